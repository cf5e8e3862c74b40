//! What the guest routes refuse (API contract 7.1): one 404 page for every wrong link (a wrong
//! or void token, an unknown or unshared run, a malformed id, an odd query string), forged
//! posts on tasks of others or of another run, bodies that are no form, too many posts; every
//! answer with the page's headers.

use procflow_tests::{Options, Page, Reply, TestApp, unknown_id};
use reqwest::Method;
use serde_json::Value;

#[track_caller]
fn assert_guest_headers(reply: &Reply) {
    let content_type = reply.header("content-type").unwrap_or_default();
    assert!(content_type.starts_with("text/html"), "{content_type}");
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    assert_eq!(reply.header("referrer-policy"), Some("no-referrer"));
    assert_eq!(reply.header("x-frame-options"), Some("DENY"));
    assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
    let csp = reply.header("content-security-policy").unwrap_or_default();
    for directive in [
        "default-src 'none'",
        "style-src 'sha256-",
        "img-src https: http:",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    ] {
        assert!(csp.contains(directive), "{directive} in {csp:?}");
    }
    assert!(!csp.contains("script-src"), "{csp:?}");
    reply.assert_request_id();
}

async fn task_json(app: &TestApp, run_id: &str, task: &str) -> Value {
    app.get(&format!("/api/v1/process-runs/{run_id}/tasks/{task}"))
        .await
        .data(200)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_wrong_link_gets_the_same_404_page() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let unshared = app.start_demo_run().await;
    let link = app.share(&run_id, None).await;
    let token = &link.token;
    let task = app.task_id(&run_id, "Say hello").await;
    let ok = app.open_page(&link.page()).await;
    ok.assert_status(200);
    assert_guest_headers(&ok);
    let long = "a".repeat(5_000);
    let pages = [
        format!("/instance/{run_id}?token=wrong"),
        format!("/instance/{run_id}?token={token}x"),
        format!("/instance/{run_id}"),
        format!("/instance/{run_id}?token="),
        format!("/instance/{run_id}?token"),
        format!("/instance/{run_id}?token=%00"),
        format!("/instance/{run_id}?token={token}%00"),
        format!("/instance/{run_id}?token=a%00b"),
        format!("/instance/{run_id}?token={token}&token={token}"),
        format!("/instance/{run_id}?token=%{token}"),
        format!("/instance/{run_id}?token=%ZZ"),
        format!("/instance/{run_id}?token=<script>"),
        format!("/instance/{run_id}?token={long}"),
        format!("/instance/{run_id}?tok={token}"),
        format!("/instance/{}?token={token}", unknown_id()),
        format!("/instance/{unshared}?token={token}"),
        format!("/instance/not-a-run?token={token}"),
        format!(
            "/instance/{}?token={token}",
            run_id.to_uppercase().replace('-', "")
        ),
        format!("/instance/%00?token={token}"),
        format!("/instance/{run_id}%00?token={token}"),
    ];
    let mut bodies = Vec::new();
    for path in &pages {
        let reply = app.open_page(path).await;
        reply.assert_status(404);
        assert_guest_headers(&reply);
        assert!(
            !reply.text.contains("Employee onboarding"),
            "{path} leaks the run"
        );
        bodies.push(reply.text);
    }
    let posts = [
        format!("/instance/{run_id}/tasks/{task}?token=wrong"),
        format!("/instance/{run_id}/tasks/{task}?token=%00"),
        format!("/instance/{run_id}/tasks/{task}"),
        format!("/instance/{run_id}/tasks/not-a-task?token={token}"),
        format!("/instance/{run_id}/tasks/{}?token={token}", unknown_id()),
        format!("/instance/not-a-run/tasks/{task}?token={token}"),
        format!("/instance/{unshared}/tasks/{task}?token={token}"),
    ];
    for path in &posts {
        let reply = app.post_form(path, &[("action", "complete")]).await;
        reply.assert_status(404);
        assert_guest_headers(&reply);
        bodies.push(reply.text);
    }
    assert!(
        bodies.windows(2).all(|pair| pair[0] == pair[1]),
        "every refusal is the same page"
    );
    assert!(Page::parse(&ok).body_text().contains("Employee onboarding"));
    assert_eq!(task_json(&app, &run_id, &task).await["completed"], false);
    // Parameters a mail client adds do not break the link.
    app.open_page(&format!("{}&utm_source=mail", link.page()))
        .await
        .assert_status(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_link_stops_working_when_sharing_stops() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let link = app.share(&run_id, None).await;
    let task = app.task_id(&run_id, "Say hello").await;
    app.open_page(&link.page()).await.assert_status(200);
    app.delete(&format!("/api/v1/process-runs/{run_id}/invite"))
        .await
        .data(200);
    let reply = app.open_page(&link.page()).await;
    reply.assert_status(404);
    assert_guest_headers(&reply);
    let unknown = app
        .open_page(&format!("/instance/{}?token=x", unknown_id()))
        .await;
    assert_eq!(
        reply.text, unknown.text,
        "the same page as for an unknown run"
    );
    let post = app
        .post_form(&link.task(&task), &[("action", "complete")])
        .await;
    post.assert_status(404);
    assert_eq!(post.text, unknown.text);
    assert_eq!(task_json(&app, &run_id, &task).await["completed"], false);

    let again = app.share(&run_id, None).await;
    app.open_page(&link.page()).await.assert_status(404);
    app.open_page(&again.page()).await.assert_status(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_posts_on_tasks_of_others_or_of_another_run_change_nothing() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let other_run = app.start_demo_run().await;
    let link = app.share(&run_id, Some("guest@example.org")).await;
    let other_link = app.share(&other_run, None).await;
    let collect = app.task_id(&run_id, "Collect documents").await;
    let hello = app.task_id(&run_id, "Say hello").await;
    app.patch_task(
        &run_id,
        &collect,
        &serde_json::json!({"assignee": "member@a.example"}),
    )
    .await
    .data(200);
    app.patch_task(
        &run_id,
        &hello,
        &serde_json::json!({"assignee": "else@example.org"}),
    )
    .await
    .data(200);
    let before = app.run_tasks(&run_id).await;
    for task in [&collect, &hello] {
        let reply = app
            .post_form(&link.task(task), &[("action", "complete")])
            .await;
        reply.assert_status(403);
        assert_guest_headers(&reply);
        let page = Page::parse(&reply);
        assert!(
            page.body_text()
                .contains("This task is not yours to change")
        );
        assert_eq!(
            page.one("a").value().attr("href"),
            Some(format!("../../{run_id}?token={}#task-{task}", link.token).as_str())
        );
        // A refused form of someone else's task is refused as theirs, not re-rendered.
        let reply = app.post_form(&link.task(task), &[("action", "nope")]).await;
        reply.assert_status(403);
    }
    // A task of this run posted with another run's valid link, and the reverse.
    let reply = app
        .post_form(&other_link.task(&collect), &[("action", "complete")])
        .await;
    reply.assert_status(404);
    let theirs = app.task_id(&other_run, "Team lunch").await;
    let reply = app
        .post_form(&link.task(&theirs), &[("action", "complete")])
        .await;
    reply.assert_status(404);
    assert_eq!(app.run_tasks(&run_id).await, before);
    assert_eq!(
        task_json(&app, &other_run, &theirs).await["completed"],
        false
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_is_no_form_too_large_or_unreadable_is_refused_with_a_page() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let link = app.share(&run_id, None).await;
    let task = app.task_id(&run_id, "Say hello").await;
    let path = link.task(&task);
    let json = app
        .call(Method::POST, &path)
        .no_key()
        .raw(r#"{"action":"complete"}"#, Some("application/json"))
        .send()
        .await;
    json.assert_status(415);
    assert_guest_headers(&json);
    let none = app
        .call(Method::POST, &path)
        .no_key()
        .raw("action=complete", None)
        .send()
        .await;
    none.assert_status(415);
    let big = format!("action=save&comment={}", "x".repeat(1024 * 1024));
    let reply = app
        .call(Method::POST, &path)
        .no_key()
        .raw(big, Some("application/x-www-form-urlencoded"))
        .send()
        .await;
    reply.assert_status(413);
    assert_guest_headers(&reply);
    let reply = app
        .call(Method::POST, &path)
        .no_key()
        .raw(
            "action=complete&comment=%FF",
            Some("application/x-www-form-urlencoded; charset=UTF-8"),
        )
        .send()
        .await;
    reply.assert_status(400);
    assert_guest_headers(&reply);
    assert!(
        Page::parse(&reply)
            .body_text()
            .contains("The form could not be read")
    );
    assert_eq!(task_json(&app, &run_id, &task).await["completed"], false);
    // With a charset parameter, a form is a form.
    let reply = app
        .call(Method::POST, &path)
        .no_key()
        .raw(
            "action=complete",
            Some("Application/X-WWW-Form-Urlencoded; charset=UTF-8"),
        )
        .send()
        .await;
    reply.assert_status(303);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tasks_address_opened_as_a_page_leads_to_the_run_at_that_task() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let link = app.share(&run_id, None).await;
    let task = app.task_id(&run_id, "Say hello").await;
    let reply = app.open_page(&link.task(&task)).await;
    reply.assert_status(303);
    assert_eq!(
        reply.header("location"),
        Some(format!("../../{run_id}?token={}#task-{task}", link.token).as_str())
    );
    let reply = app
        .open_page(&format!("/instance/{run_id}/tasks/{task}?token=%00"))
        .await;
    reply.assert_status(404);
    assert_guest_headers(&reply);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn posts_are_limited_per_run_and_per_client_address_with_a_429_page() {
    let app = TestApp::with(Options {
        guest_posts_per_minute: (3, 5),
        ..Options::default()
    })
    .await;
    let first = app.start_demo_run().await;
    let second = app.start_demo_run().await;
    let (link, other) = (
        app.share(&first, None).await,
        app.share(&second, None).await,
    );
    let task = app.task_id(&first, "Say hello").await;
    let other_task = app.task_id(&second, "Say hello").await;
    for _ in 0..3 {
        app.post_form(&link.task(&task), &[("action", "save")])
            .await
            .assert_status(303);
    }
    // Posts with a wrong token use up the address's quota, never the run's guest's.
    app.post_form(
        &format!("/instance/{first}/tasks/{task}?token=wrong"),
        &[("action", "save")],
    )
    .await
    .assert_status(404);
    let refused = app
        .post_form(&link.task(&task), &[("action", "complete")])
        .await;
    refused.assert_status(429);
    assert_guest_headers(&refused);
    let wait: u32 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=61).contains(&wait), "{wait}");
    assert!(
        Page::parse(&refused)
            .body_text()
            .contains("Too many changes at once")
    );
    assert_eq!(
        task_json(&app, &first, &task).await["completed"],
        false,
        "refused, not applied"
    );
    // Another run has its own quota, but this address has one post left of its 5.
    app.post_form(&other.task(&other_task), &[("action", "save")])
        .await
        .assert_status(303);
    app.post_form(&other.task(&other_task), &[("action", "save")])
        .await
        .assert_status(429);
    // The page itself is not a post: it still opens.
    app.open_page(&link.page()).await.assert_status(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guest_routes_need_no_api_key_and_ignore_one() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let link = app.share(&run_id, None).await;
    app.call(Method::GET, &link.page())
        .key("pf_live_not-a-key")
        .send()
        .await
        .assert_status(200);
    app.call(Method::GET, &link.page())
        .key(&app.other_key)
        .send()
        .await
        .assert_status(200);
    let task = app.task_id(&run_id, "Say hello").await;
    app.call(Method::POST, &link.task(&task))
        .key("pf_live_not-a-key")
        .raw("action=save", Some("application/x-www-form-urlencoded"))
        .send()
        .await
        .assert_status(303);
}
