//! Authentication (spec 5, API contract 1 and 2): a Bearer key of an active team, or 401 with
//! `WWW-Authenticate: Bearer`; an inactive subscription is 403.

use procflow_domain::team::Subscription;
use procflow_postgres::testing::execute;
use procflow_tests::{Reply, TestApp, unknown_id};
use reqwest::Method;
use serde_json::json;

#[track_caller]
fn assert_unauthorized(reply: &Reply) {
    reply.error(401, "unauthorized");
    let challenge = reply.header("www-authenticate").unwrap_or_default();
    assert!(
        challenge.starts_with("Bearer"),
        "{}: WWW-Authenticate {challenge:?}",
        reply.request
    );
}

/// One request per API route, each with a body where the route reads one.
fn every_api_route(
    app: &TestApp,
    run_id: &str,
    task_id: &str,
) -> Vec<(Method, String, Option<serde_json::Value>)> {
    let template = &app.template.id;
    vec![
        (Method::GET, "/api/v1/process-templates".into(), None),
        (
            Method::POST,
            "/api/v1/process-templates".into(),
            Some(json!({"title": "T"})),
        ),
        (
            Method::GET,
            format!("/api/v1/process-templates/{template}"),
            None,
        ),
        (
            Method::PUT,
            format!("/api/v1/process-templates/{template}"),
            Some(json!({"title": "T"})),
        ),
        (
            Method::DELETE,
            format!("/api/v1/process-templates/{template}"),
            None,
        ),
        (
            Method::GET,
            format!("/api/v1/process-templates/{template}/tasks"),
            None,
        ),
        (
            Method::POST,
            format!("/api/v1/process-templates/{template}/publish"),
            Some(json!({"published": false})),
        ),
        (Method::GET, "/api/v1/process-runs".into(), None),
        (
            Method::POST,
            "/api/v1/process-runs".into(),
            Some(json!({"template_id": template})),
        ),
        (Method::GET, format!("/api/v1/process-runs/{run_id}"), None),
        (
            Method::POST,
            format!("/api/v1/process-runs/{run_id}/invite"),
            Some(json!({})),
        ),
        (
            Method::DELETE,
            format!("/api/v1/process-runs/{run_id}/invite"),
            None,
        ),
        (
            Method::GET,
            format!("/api/v1/process-runs/{run_id}/tasks"),
            None,
        ),
        (
            Method::GET,
            format!("/api/v1/process-runs/{run_id}/tasks/{task_id}"),
            None,
        ),
        (
            Method::PATCH,
            format!("/api/v1/process-runs/{run_id}/tasks/{task_id}"),
            Some(json!({"completed": true})),
        ),
    ]
}

/// Asserts that nothing of the seeded state changed.
async fn assert_unchanged(app: &TestApp, run_id: &str) {
    let template = app
        .get(&format!("/api/v1/process-templates/{}", app.template.id))
        .await
        .data(200);
    assert_eq!(template["is_published"], true);
    assert_eq!(template["title"], "Employee onboarding");
    let runs = app.all("/api/v1/process-runs").await;
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["is_shared"], false);
    assert!(
        app.run_tasks(run_id)
            .await
            .iter()
            .all(|t| t["completed"] == false)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_api_route_refuses_a_request_without_a_key() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let task_id = app.task_id(&run_id, "Say hello").await;
    for (method, path, body) in every_api_route(&app, &run_id, &task_id) {
        let mut call = app.call(method, &path).no_key();
        if let Some(body) = &body {
            call = call.json(body);
        }
        assert_unauthorized(&call.send().await);
    }
    assert_unchanged(&app, &run_id).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_authorization_header_is_401() {
    let app = TestApp::spawn().await;
    let key = app.key.clone();
    for value in [
        String::new(),
        "Bearer".to_owned(),
        "Bearer ".to_owned(),
        format!("Basic {key}"),
        format!("Token {key}"),
        key.clone(),
        format!("Bearer{key}"),
    ] {
        let reply = app
            .call(Method::GET, "/api/v1/process-templates")
            .header("authorization", &value)
            .send()
            .await;
        assert_unauthorized(&reply);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_authorization_headers_are_400_whichever_keys_they_hold() {
    let app = TestApp::spawn().await;
    let good = format!("Bearer {}", app.key);
    for (first, second) in [
        (good.as_str(), "Bearer pf_live_unknown"),
        ("Bearer pf_live_unknown", good.as_str()),
        (good.as_str(), good.as_str()),
    ] {
        let reply = app
            .call(Method::GET, "/api/v1/process-templates")
            .header("Authorization", first)
            .header("Authorization", second)
            .send()
            .await;
        let message = reply.error(400, "validation_error");
        assert_eq!(
            message,
            "Authorization: sent more than once; send one header, Bearer <API key>"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_key_is_401() {
    let app = TestApp::spawn().await;
    let tampered = format!("{}x", app.key);
    for key in ["pf_live_unknown", tampered.as_str(), "x"] {
        let reply = app
            .call(Method::GET, "/api/v1/process-templates")
            .key(key)
            .send()
            .await;
        assert_unauthorized(&reply);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_key_is_refused_at_once() {
    let app = TestApp::spawn().await;
    let (key_id, key) = app.new_key(&app.team, &app.admin).await;
    app.call(Method::GET, "/api/v1/process-templates")
        .key(&key)
        .send()
        .await
        .list();
    app.revoke(key_id).await;
    let reply = app
        .call(Method::GET, "/api/v1/process-templates")
        .key(&key)
        .send()
        .await;
    assert_unauthorized(&reply);
    app.get("/api/v1/process-templates").await.list();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_update_by_a_key_revoked_behind_the_instances_back_writes_nothing() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let task_id = app.task_id(&run_id, "Say hello").await;
    let (key_id, key) = app.new_key(&app.team, &app.admin).await;
    // Admitted once, the key is known to the instance: its task updates now run beside their
    // admission (docs/decisions.md).
    app.call(Method::GET, "/api/v1/process-templates")
        .key(&key)
        .send()
        .await
        .list();
    app.events().await;
    // Revoked in the database alone: no notice tells the instance, which still guesses the key.
    execute(
        app.db_url(),
        &format!("UPDATE api_keys SET revoked_at = now() WHERE id = '{key_id}'"),
    )
    .await;
    let reply = app
        .call(
            Method::PATCH,
            &format!("/api/v1/process-runs/{run_id}/tasks/{task_id}"),
        )
        .key(&key)
        .json(&json!({"completed": true}))
        .send()
        .await;
    assert_unauthorized(&reply);
    assert_unchanged(&app, &run_id).await;
    assert!(
        app.events().await.is_empty(),
        "an event of a refused update"
    );
    // Its transaction rolled back: the run is not left locked.
    app.patch_task(&run_id, &task_id, &json!({"completed": true}))
        .await
        .data(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_without_an_active_subscription_is_403_on_every_route() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let task_id = app.task_id(&run_id, "Say hello").await;
    app.set_subscription(Subscription::Inactive).await;
    for (method, path, body) in every_api_route(&app, &run_id, &task_id) {
        let mut call = app.call(method, &path);
        if let Some(body) = &body {
            call = call.json(body);
        }
        let message = call.send().await.error(403, "forbidden");
        assert!(message.contains("subscription"), "{message}");
    }
    app.call(Method::GET, "/api/v1/process-runs")
        .key(&app.other_key)
        .send()
        .await
        .list();
    app.set_subscription(Subscription::Active).await;
    assert_unchanged(&app, &run_id).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_acts_only_for_its_own_team() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let (templates, _, _) = app
        .call(Method::GET, "/api/v1/process-templates")
        .key(&app.other_key)
        .send()
        .await
        .list();
    assert!(templates.is_empty());
    let (runs, _, _) = app
        .call(Method::GET, "/api/v1/process-runs")
        .key(&app.other_key)
        .send()
        .await
        .list();
    assert!(runs.is_empty());
    app.call(Method::GET, &format!("/api/v1/process-runs/{run_id}"))
        .key(&app.other_key)
        .send()
        .await
        .error(404, "not_found");
    app.call(
        Method::GET,
        &format!("/api/v1/process-runs/{}", unknown_id()),
    )
    .send()
    .await
    .error(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_is_authenticated_before_its_body_is_read() {
    let app = TestApp::spawn().await;
    let bad_bodies: [(&[u8], Option<&str>); 3] = [
        (b"{not json", Some("application/json")),
        (b"{\"template_id\": 5}", Some("application/json")),
        (b"plain", Some("text/plain")),
    ];
    for (body, content_type) in bad_bodies {
        let no_key = app
            .call(Method::POST, "/api/v1/process-runs")
            .no_key()
            .raw(body, content_type)
            .send()
            .await;
        assert_unauthorized(&no_key);
        let unknown_key = app
            .call(Method::POST, "/api/v1/process-runs")
            .key("pf_live_not-a-key")
            .raw(body, content_type)
            .send()
            .await;
        assert_unauthorized(&unknown_key);
    }
    app.set_subscription(Subscription::Inactive).await;
    app.call(Method::POST, "/api/v1/process-runs")
        .raw(&b"{not json"[..], Some("application/json"))
        .send()
        .await
        .error(403, "forbidden");
}
