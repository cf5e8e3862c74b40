//! Unknown query parameters are refused with 400 on every operation but the guest pages, as
//! the document's description says: the operations that declare query parameters refuse the
//! others (their extractors deny unknown fields), and those that declare none refuse any.

use procflow_tests::{TestApp, committed, concrete_path, operation_method, unknown_id};
use reqwest::Method;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_but_the_guest_pages_refuses_an_unknown_query_parameter() {
    let app = TestApp::spawn().await;
    let description = committed();
    let mut refused = 0;
    for (name, path) in description.operations() {
        if path.starts_with("/instance/") {
            continue;
        }
        let method = operation_method(&name);
        let mut call = app.call(method, &format!("{}?unknown=1", concrete_path(&path)));
        if description.operation(&name, &path)["requestBody"].is_object() {
            call = call.json(&json!({}));
        }
        let reply = call.send().await;
        let message = reply.error(400, "validation_error");
        assert!(message.contains("unknown"), "{name} {path}: {message}");
        description.check(&name, &path, &reply);
        refused += 1;
    }
    assert_eq!(refused, 46, "the JSON operations of the document");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_document_and_the_health_checks_refuse_a_query_but_not_an_empty_one() {
    let app = TestApp::spawn().await;
    for path in ["/api/v1/openapi.json", "/healthz", "/readyz"] {
        let message = app
            .call(Method::GET, &format!("{path}?x=1"))
            .no_key()
            .send()
            .await
            .error(400, "validation_error");
        assert!(
            message.contains("unknown parameter `x`"),
            "{path}: {message}"
        );
        app.call(Method::GET, &format!("{path}?"))
            .no_key()
            .send()
            .await
            .assert_status(200);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authenticated_operation_checks_the_key_before_the_query() {
    let app = TestApp::spawn().await;
    app.call(
        Method::GET,
        &format!("/api/v1/process-runs/{}?x=1", unknown_id()),
    )
    .no_key()
    .send()
    .await
    .error(401, "unauthorized");
}
