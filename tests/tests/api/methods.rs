//! A method a known path does not serve (API contract 1): 405 `method_not_allowed` with `Allow`,
//! decided by the route alone, before anything about the caller or the request is read. So it
//! needs no valid key, claims no `Idempotency-Key`, counts nothing against the rate limit.

use procflow_tests::{Options, Reply, TestApp};
use reqwest::Method;
use serde_json::json;

const RUNS: &str = "/api/v1/process-runs";

#[track_caller]
fn assert_refused_method(reply: &Reply, allow: &str) {
    reply.error(405, "method_not_allowed");
    assert_eq!(reply.header("allow"), Some(allow), "{}", reply.request);
}

#[track_caller]
fn remaining(reply: &Reply) -> u64 {
    reply
        .header("ratelimit-remaining")
        .and_then(|value| value.parse().ok())
        .unwrap_or_else(|| panic!("{}: no RateLimit-Remaining", reply.request))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_method_with_a_used_idempotency_key_is_405_and_the_key_still_replays() {
    let app = TestApp::spawn().await;
    let body = json!({"template_id": app.template.id});
    let keyed = |method: Method| {
        app.call(method, RUNS)
            .header("Idempotency-Key", "used-before")
            .json(&body)
    };
    let first = keyed(Method::POST).send().await;
    let run = first.data(201);

    assert_refused_method(&keyed(Method::PATCH).send().await, "GET, POST");
    assert_refused_method(&keyed(Method::PUT).send().await, "GET, POST");

    let again = keyed(Method::POST).send().await;
    assert_eq!(again.data(201), run);
    assert_eq!(again.header("idempotency-replayed"), Some("true"));
    assert_eq!(app.all(RUNS).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_method_claims_no_idempotency_key() {
    let app = TestApp::spawn().await;
    let body = json!({"template_id": app.template.id});
    let keyed = |method: Method| {
        app.call(method, RUNS)
            .header("Idempotency-Key", "fresh")
            .json(&body)
    };
    assert_refused_method(&keyed(Method::PATCH).send().await, "GET, POST");
    // Had the 405 been kept as the key's answer, this would be 422 `idempotency_key_reused`.
    let first = keyed(Method::POST).send().await;
    first.data(201);
    assert_eq!(first.header("idempotency-replayed"), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_method_needs_no_valid_key() {
    let app = TestApp::spawn().await;
    let run = format!("{RUNS}/{}", app.start_demo_run().await);
    for (method, path, allow) in [
        (Method::PATCH, RUNS, "GET, POST"),
        (Method::DELETE, run.as_str(), "GET"),
        (Method::PUT, "/api/v1/webhooks", "GET, POST"),
    ] {
        let without = app.call(method.clone(), path).no_key().send().await;
        assert_refused_method(&without, allow);
        let unknown = app
            .call(method.clone(), path)
            .key("pf_live_nonsense")
            .send()
            .await;
        assert_refused_method(&unknown, allow);
        let malformed = app
            .call(method, path)
            .header("Authorization", "Basic x")
            .send()
            .await;
        assert_refused_method(&malformed, allow);
    }
    // A served method still asks for the key first.
    app.call(Method::GET, RUNS)
        .no_key()
        .send()
        .await
        .error(401, "unauthorized");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_method_counts_nothing_against_the_rate_limit() {
    let app = TestApp::with(Options {
        rate_limit_per_minute: 100,
        ..Options::default()
    })
    .await;
    let (_, key) = app.new_key(&app.team, &app.admin).await;
    let list = || app.call(Method::GET, RUNS).key(&key);
    let before = remaining(&list().send().await);
    for method in [Method::PATCH, Method::DELETE, Method::PUT] {
        let refused = app
            .call(method, RUNS)
            .key(&key)
            .header("Idempotency-Key", "not-counted")
            .json(&json!({}))
            .send()
            .await;
        assert_refused_method(&refused, "GET, POST");
        assert_eq!(
            refused.header("ratelimit-remaining"),
            None,
            "a 405 is not an admitted request"
        );
    }
    assert_eq!(
        remaining(&list().send().await),
        before - 1,
        "only the second GET was counted"
    );
}
