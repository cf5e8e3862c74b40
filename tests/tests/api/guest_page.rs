//! The guest page (API contract 7): `GET /instance/:run_id?token=...`, HTML, opened only with
//! the run's token while it is shared; the same 404 page otherwise; security headers; escaping.

use procflow_tests::{Reply, TestApp, unknown_id};
use reqwest::Method;
use serde_json::json;

async fn share(app: &TestApp, run_id: &str) -> String {
    app.post(&format!("/api/v1/process-runs/{run_id}/invite"), &json!({}))
        .await
        .data(200)["share_url"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// `GET` a path of the app without any key.
async fn open(app: &TestApp, path: &str) -> Reply {
    app.call(Method::GET, path).no_key().send().await
}

/// The path and query of a share URL on the app's address.
fn path_of(app: &TestApp, share_url: &str) -> String {
    share_url
        .strip_prefix(app.base())
        .unwrap_or_else(|| panic!("{share_url} is not on {}", app.base()))
        .to_owned()
}

#[track_caller]
fn assert_guest_headers(reply: &Reply) {
    let content_type = reply.header("content-type").unwrap_or_default();
    assert!(content_type.starts_with("text/html"), "{content_type}");
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    assert_eq!(reply.header("referrer-policy"), Some("no-referrer"));
    assert_eq!(reply.header("x-frame-options"), Some("DENY"));
    let csp = reply.header("content-security-policy").unwrap_or_default();
    assert!(csp.contains("default-src 'none'"), "a strict CSP: {csp:?}");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp:?}");
    reply.assert_request_id();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guest_page_shows_the_runs_title_sections_and_tasks() {
    let app = TestApp::spawn().await;
    let run = app
        .start_run(&json!({"template_id": app.template.id, "name": "Onboarding Ada"}))
        .await;
    let run_id = run["id"].as_str().unwrap();
    let hello = app.task_id(run_id, "Say hello").await;
    app.patch_task(run_id, &hello, &json!({"completed": true}))
        .await
        .data(200);
    let url = share(&app, run_id).await;
    let reply = open(&app, &path_of(&app, &url)).await;
    reply.assert_status(200);
    assert_guest_headers(&reply);
    let page = &reply.text;
    for text in [
        "Onboarding Ada",
        "Before day one",
        "Day one",
        "Collect documents",
        "Manager approval",
        "Say hello",
        "Team lunch",
    ] {
        assert!(page.contains(text), "the page shows {text:?}: {page}");
    }
    assert!(page.contains("completed"), "task states are shown: {page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_token_an_unknown_run_and_a_missing_token_get_the_same_404_page() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let unshared = app.start_demo_run().await;
    let url = share(&app, &run_id).await;
    let token = url.split("token=").nth(1).unwrap().to_owned();
    let cases = [
        format!("/instance/{run_id}?token=wrong"),
        format!("/instance/{run_id}?token={token}x"),
        format!("/instance/{run_id}"),
        format!("/instance/{run_id}?token="),
        format!("/instance/{}?token={token}", unknown_id()),
        format!("/instance/{unshared}?token={token}"),
        format!("/instance/not-a-run?token={token}"),
    ];
    let mut bodies = Vec::new();
    for path in &cases {
        let reply = open(&app, path).await;
        reply.assert_status(404);
        assert_guest_headers(&reply);
        assert!(
            !reply.text.contains("Employee onboarding"),
            "{path} leaks the run"
        );
        bodies.push(reply.text);
    }
    assert!(
        bodies.windows(2).all(|pair| pair[0] == pair[1]),
        "every refusal is the same page"
    );
    open(&app, &path_of(&app, &url)).await.assert_status(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_link_stops_working_when_sharing_stops() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let url = share(&app, &run_id).await;
    let path = path_of(&app, &url);
    open(&app, &path).await.assert_status(200);
    app.delete(&format!("/api/v1/process-runs/{run_id}/invite"))
        .await
        .data(200);
    let reply = open(&app, &path).await;
    reply.assert_status(404);
    assert_guest_headers(&reply);
    let unknown = open(&app, &format!("/instance/{}?token=x", unknown_id())).await;
    assert_eq!(
        reply.text, unknown.text,
        "the same page as for an unknown run"
    );

    let new_url = share(&app, &run_id).await;
    open(&app, &path).await.assert_status(404);
    open(&app, &path_of(&app, &new_url))
        .await
        .assert_status(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guest_page_escapes_what_it_shows() {
    let app = TestApp::spawn().await;
    let template = app
        .seed_published(&json!({"title": "T", "sections": [
            {"title": "<b>Section</b>", "tasks": [{"title": "<img src=x onerror=alert(1)>"}]}]}))
        .await;
    let run = app
        .start_run(&json!({"template_id": template.id, "name": "<script>alert(1)</script>"}))
        .await;
    let url = share(&app, run["id"].as_str().unwrap()).await;
    let reply = open(&app, &path_of(&app, &url)).await;
    reply.assert_status(200);
    let page = &reply.text;
    assert!(!page.contains("<script>"), "{page}");
    assert!(!page.contains("<img"), "{page}");
    assert!(!page.contains("<b>Section"), "{page}");
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{page}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guest_page_needs_no_api_key_and_ignores_one() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let url = share(&app, &run_id).await;
    let path = path_of(&app, &url);
    app.call(Method::GET, &path)
        .key("pf_live_not-a-key")
        .send()
        .await
        .assert_status(200);
    app.call(Method::GET, &path)
        .key(&app.other_key)
        .send()
        .await
        .assert_status(200);
}
