//! `?validate_only=true` (API contract 15.2): every operation that takes it answers 200 with
//! what it would produce and `Procflow-Validate-Only: true`, or the error the real request
//! gets, and writes nothing: no row (the lists and gets are as before), no event (the outbox
//! and the feed are as before), no idempotency record (the key is free for the real request).

use procflow_tests::{TestApp, unknown_id};
use reqwest::Method;
use serde_json::{Value, json};

const HEADER: &str = "procflow-validate-only";

/// What a dry run must leave as it was: the templates, the runs, the feed, and each of the
/// run's tasks.
async fn snapshot(app: &TestApp, run: &str) -> Vec<Value> {
    let mut seen = Vec::new();
    seen.push(Value::Array(app.all("/api/v1/process-templates").await));
    seen.push(Value::Array(app.all("/api/v1/process-runs").await));
    seen.push(Value::Array(app.all("/api/v1/events").await));
    seen.push(Value::Array(app.run_tasks(run).await));
    seen.push(app.run(run).await);
    seen
}

fn dry(path: &str) -> String {
    let separator = if path.contains('?') { '&' } else { '?' };
    format!("{path}{separator}validate_only=true")
}

/// A message without the ids of new elements (each build of a document draws its own).
fn without_ids(message: &str) -> String {
    let mut kept = String::new();
    let mut rest = message;
    while let Some(open) = rest.find('(') {
        kept.push_str(&rest[..open]);
        match rest[open..].find(')') {
            Some(close) if close == 37 => rest = &rest[open + close + 1..],
            _ => {
                kept.push('(');
                rest = &rest[open + 1..];
            }
        }
    }
    kept.push_str(rest);
    kept
}

fn a_draft() -> Value {
    json!({"title": "Dry", "sections": [{"title": "All", "tasks": [
        {"ref": "ask", "title": "Ask", "custom_elements": [
            {"ref": "answer", "type": "dropdown", "label": "Answer", "options": ["Yes", "No"]}]},
        {"ref": "then", "title": "Then"}]}]})
}

fn with_a_bad_rule() -> Value {
    let mut document = a_draft();
    document["rules"] = json!([{"if": {"element": "answer", "is": "equal", "value": "Maybe"},
                                "show": ["then"]}]);
    document
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_dry_run_answers_what_it_would_do_and_writes_nothing() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let draft = app.create_template(&a_draft()).await;
    let draft_id = draft["id"].as_str().unwrap().to_owned();
    let tasks = app.run_tasks(&run).await;
    let task = tasks[0]["id"].as_str().unwrap().to_owned();
    app.events().await;
    let before = snapshot(&app, &run).await;

    // Create a template.
    let reply = app
        .post(&dry("/api/v1/process-templates"), &a_draft())
        .await;
    assert_eq!(reply.header(HEADER), Some("true"));
    let would = reply.data(200);
    assert_eq!(would["title"], "Dry");
    app.get(&format!(
        "/api/v1/process-templates/{}",
        would["id"].as_str().unwrap()
    ))
    .await
    .error(404, "not_found");

    // Replace it.
    let mut renamed = a_draft();
    renamed["title"] = json!("Renamed");
    let path = format!("/api/v1/process-templates/{draft_id}");
    let reply = app.put(&dry(&path), &renamed).await;
    assert_eq!(reply.header(HEADER), Some("true"));
    assert_eq!(reply.data(200)["title"], "Renamed");

    // Publish it.
    let path = format!("/api/v1/process-templates/{draft_id}/publish");
    let reply = app.post(&dry(&path), &json!({"published": true})).await;
    assert_eq!(reply.header(HEADER), Some("true"));
    let would = reply.data(200);
    assert_eq!(would["is_published"], true);
    assert_eq!(would["version"], 1);

    // Start a run.
    let body = json!({"template_id": app.template.id, "name": "Dry run"});
    let reply = app.post(&dry("/api/v1/process-runs"), &body).await;
    assert_eq!(reply.header(HEADER), Some("true"));
    assert_eq!(reply.data(200)["title"], "Dry run");

    // Complete one task; complete two in a batch.
    let path = format!("/api/v1/process-runs/{run}/tasks/{task}");
    let reply = app.patch(&dry(&path), &json!({"completed": true})).await;
    assert_eq!(reply.header(HEADER), Some("true"));
    assert_eq!(reply.data(200)["completed"], true);
    let path = format!("/api/v1/process-runs/{run}/tasks");
    let batch = json!({"tasks": [
        {"id": task, "completed": true},
        {"id": tasks[1]["id"], "completed": true}]});
    let reply = app.patch(&dry(&path), &batch).await;
    assert_eq!(reply.header(HEADER), Some("true"));
    reply.assert_status(200);
    let would = &reply.json()["data"];
    assert_eq!(would[0]["completed"], true);
    assert_eq!(would[1]["completed"], true);

    assert_eq!(
        snapshot(&app, &run).await,
        before,
        "a dry run changed something"
    );
    assert!(
        app.events().await.is_empty(),
        "a dry run wrote to the outbox"
    );
    let template = app
        .get(&format!("/api/v1/process-templates/{draft_id}"))
        .await
        .data(200);
    assert_eq!(template["title"], "Dry");
    assert_eq!(template["is_published"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dry_run_gets_the_error_the_real_request_gets() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let draft = app.create_template(&a_draft()).await;
    let path = format!(
        "/api/v1/process-templates/{}",
        draft["id"].as_str().unwrap()
    );
    // A template with a bad rule: the same 400 from the real and the dry PUT and POST.
    let real = app.put(&path, &with_a_bad_rule()).await;
    let message = real.error(400, "validation_error");
    assert!(message.contains("rules[0]"), "{message}");
    let dry_put = app.put(&dry(&path), &with_a_bad_rule()).await;
    let dry_message = dry_put.error(400, "validation_error");
    assert_eq!(without_ids(&dry_message), without_ids(&message));
    assert_ne!(without_ids(&message), message, "the ids are what differs");
    assert!(dry_put.header(HEADER).is_none());
    let dry_post = app
        .post(&dry("/api/v1/process-templates"), &with_a_bad_rule())
        .await;
    let real_post = app
        .post("/api/v1/process-templates", &with_a_bad_rule())
        .await;
    assert_eq!(
        without_ids(&dry_post.error(400, "validation_error")),
        without_ids(&real_post.error(400, "validation_error"))
    );
    // A task that is not the run's; a run of a template that is not published; a bad value.
    let unknown = unknown_id();
    let path = format!("/api/v1/process-runs/{run}/tasks/{unknown}");
    let body = json!({"completed": true});
    assert_eq!(
        app.patch(&dry(&path), &body).await.error(404, "not_found"),
        app.patch(&path, &body).await.error(404, "not_found")
    );
    let body = json!({"template_id": draft["id"]});
    let real = app.post("/api/v1/process-runs", &body).await;
    let status = real.status;
    let dry_reply = app.post(&dry("/api/v1/process-runs"), &body).await;
    assert_eq!(dry_reply.status, status);
    assert_eq!(dry_reply.json(), real.json());
    app.post("/api/v1/process-templates?validate_only=maybe", &a_draft())
        .await
        .error(400, "validation_error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dry_run_keeps_no_idempotency_record_and_counts_toward_the_rate_limit() {
    let app = TestApp::spawn().await;
    let body = json!({"template_id": app.template.id});
    let first = app
        .call(Method::POST, "/api/v1/process-runs?validate_only=true")
        .header("Idempotency-Key", "dry-then-real")
        .json(&body)
        .send()
        .await;
    let dry_id = first.data(200)["id"].clone();
    let remaining = |reply: &procflow_tests::Reply| -> u64 {
        reply
            .header("ratelimit-remaining")
            .unwrap()
            .parse()
            .unwrap()
    };
    let second = app
        .call(Method::POST, "/api/v1/process-runs?validate_only=true")
        .json(&body)
        .send()
        .await;
    assert!(
        remaining(&second) < remaining(&first),
        "a dry run is counted"
    );
    // The key is free: the real request runs (201, a run of its own), and then replays.
    let real = app
        .call(Method::POST, "/api/v1/process-runs")
        .header("Idempotency-Key", "dry-then-real")
        .json(&body)
        .send()
        .await;
    let created = real.data(201);
    assert_ne!(created["id"], dry_id);
    let again = app
        .call(Method::POST, "/api/v1/process-runs")
        .header("Idempotency-Key", "dry-then-real")
        .json(&body)
        .send()
        .await;
    assert_eq!(again.data(201)["id"], created["id"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dry_run_refuses_a_malformed_idempotency_key_as_the_real_request_does() {
    let app = TestApp::spawn().await;
    let body = json!({"template_id": app.template.id});
    for path in [
        "/api/v1/process-runs?validate_only=true",
        "/api/v1/process-runs",
    ] {
        let reply = app
            .call(Method::POST, path)
            .header("Idempotency-Key", "two words")
            .json(&body)
            .send()
            .await;
        let message = reply.error(400, "validation_error");
        assert!(message.contains("Idempotency-Key"), "{path}: {message}");
    }
}
