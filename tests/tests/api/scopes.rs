//! Scoped keys (API contract 11): a `read` key may call every `GET` and nothing else. The
//! refusals are checked on every mutating operation of the route table, so a new one cannot be
//! forgotten.

use procflow_http::routes::{Operation, operations};
use procflow_tests::{TestApp, unknown_id};
use reqwest::Method;
use serde_json::json;

/// A concrete path for a route: unknown ids for its parameters.
fn concrete(path: &str) -> String {
    path.split('/')
        .map(|segment| {
            if segment.starts_with('{') {
                unknown_id()
            } else {
                segment.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn api_operations() -> Vec<Operation> {
    operations()
        .into_iter()
        .filter(Operation::is_authenticated)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_mutating_operation_is_refused_to_a_read_key_before_any_work() {
    let app = TestApp::spawn().await;
    let reader = app.read_key().await;
    let mut refused = 0;
    for operation in api_operations().iter().filter(|o| o.is_mutating()) {
        for method in &operation.methods {
            let method = Method::from_bytes(method.as_str().as_bytes()).unwrap();
            let path = concrete(&operation.path);
            // A body that is no JSON and an idempotency key: neither is even looked at.
            let reply = app
                .call(method.clone(), &path)
                .key(&reader)
                .header("Idempotency-Key", "scoped")
                .raw("{not json", Some("application/json"))
                .send()
                .await;
            let message = reply.error(403, "forbidden");
            assert!(
                message.contains("read scope") && message.contains("needs the write scope"),
                "{method} {path}: {message}"
            );
            assert!(message.contains(&format!("{method} {path}")), "{message}");
            assert!(
                reply.header("ratelimit-remaining").is_some(),
                "the request was admitted (and counted) before its scope was checked"
            );
            // The same request with a write key is served by the route (whatever it answers).
            let served = app
                .call(method.clone(), &path)
                .raw("{not json", Some("application/json"))
                .send()
                .await;
            assert!(
                ![403, 405].contains(&served.status),
                "{method} {path}: {} {}",
                served.status,
                served.text
            );
            if served.status == 404 {
                let message = served.error(404, "not_found");
                assert!(
                    !message.starts_with("no route"),
                    "{method} {path}: {message}"
                );
            }
            refused += 1;
        }
    }
    assert!(refused >= 8, "only {refused} mutating operations found");

    // The refused requests claimed no Idempotency-Key: a write key's request with it runs.
    let created = app
        .call(Method::POST, "/api/v1/process-runs")
        .header("Idempotency-Key", "scoped")
        .json(&json!({"template_id": app.template.id}))
        .send()
        .await;
    created.data(201);
    assert_eq!(created.header("idempotency-replayed"), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_key_reads_everything_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let reader = app.read_key().await;
    let run = app.start_demo_run().await;
    let task = app.task_id(&run, "Say hello").await;
    for operation in api_operations().iter().filter(|o| !o.is_mutating()) {
        let path = concrete(&operation.path);
        let reply = app.call(Method::GET, &path).key(&reader).send().await;
        assert_ne!(reply.status, 403, "GET {path}: {}", reply.text);
    }
    let task_path = format!("/api/v1/process-runs/{run}/tasks/{task}");
    let read = app.call(Method::GET, &task_path).key(&reader).send().await;
    assert_eq!(read.data(200)["id"], task);
    let before = app.run_tasks(&run).await;
    let runs_before = app.all("/api/v1/process-runs").await.len();
    for (method, path, body) in [
        (Method::PATCH, task_path.clone(), json!({"completed": true})),
        (
            Method::POST,
            "/api/v1/process-runs".to_owned(),
            json!({"template_id": app.template.id}),
        ),
    ] {
        app.call(method, &path)
            .key(&reader)
            .json(&body)
            .send()
            .await
            .error(403, "forbidden");
    }
    assert_eq!(app.run_tasks(&run).await, before);
    assert_eq!(app.all("/api/v1/process-runs").await.len(), runs_before);
    // A method the path does not serve stays 405, whatever the key.
    app.call(Method::DELETE, &task_path)
        .key(&reader)
        .send()
        .await
        .error(405, "method_not_allowed");
}
