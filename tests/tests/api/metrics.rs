//! `/metrics`: the Prometheus page, without a key, outside `/api/v1`.
//!
//! The request series are process-wide (every app of this test binary records into one
//! recorder), so the checks compare scrapes and count at least; the pool and outbox gauges are
//! the app's own, read from its store at scrape time.

use procflow_tests::{Reply, TestApp, sample};
use reqwest::Method;
use serde_json::json;

const CREATED_RUNS: &str =
    r#"procflow_http_requests_total{method="POST",route="/api/v1/process-runs",status="201"}"#;

async fn scrape(app: &TestApp) -> Reply {
    let reply = app.call(Method::GET, "/metrics").no_key().send().await;
    reply.assert_status(200);
    reply
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_requests_by_route_pattern_and_report_the_store() {
    let app = TestApp::spawn().await;
    let before = scrape(&app).await.text;
    let created_before = sample(&before, CREATED_RUNS).unwrap_or(0.0);
    let backlog_before = sample(&before, "procflow_outbox_backlog").expect("a backlog gauge");

    for _ in 0..2 {
        app.start_run(&json!({"template_id": app.template.id}))
            .await;
    }
    // A task and its thread, mounted in a scope of their own, are labelled by their whole
    // pattern.
    let run = app.start_demo_run().await;
    let task = app.task_id(&run, "Say hello").await;
    let thread = format!("/api/v1/process-runs/{run}/tasks/{task}/comments");
    app.get(&thread).await.assert_status(200);
    app.get(&format!("/api/v1/process-runs/{run}/tasks/{task}"))
        .await
        .assert_status(200);

    let reply = scrape(&app).await;
    assert!(
        reply
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/plain; version=0.0.4")),
        "{:?}",
        reply.headers
    );
    let text = reply.text;
    let created =
        sample(&text, CREATED_RUNS).unwrap_or_else(|| panic!("no {CREATED_RUNS}: {text}"));
    assert!(
        created >= created_before + 2.0,
        "{created} after {created_before}"
    );
    for route in [
        "/api/v1/process-runs/{id}/tasks/{task_id}/comments",
        "/api/v1/process-runs/{id}/tasks/{task_id}",
    ] {
        let listed =
            format!(r#"procflow_http_requests_total{{method="GET",route="{route}",status="200"}}"#);
        assert!(
            sample(&text, &listed).is_some_and(|count| count >= 1.0),
            "no {listed}: {text}"
        );
    }
    assert!(
        !text.contains("/api/v1/process-runs/0"),
        "paths with ids never become labels: {text}"
    );

    assert!(
        text.contains("# TYPE procflow_http_request_duration_seconds histogram"),
        "{text}"
    );
    let timed = r#"procflow_http_request_duration_seconds_count{method="POST",route="/api/v1/process-runs",status="201"}"#;
    assert!(
        sample(&text, timed).is_some_and(|count| count >= 2.0),
        "{text}"
    );
    assert!(
        text.lines().any(|line| line.starts_with(
            r#"procflow_http_request_duration_seconds_bucket{method="POST",route="/api/v1/process-runs",status="201",le="+Inf"}"#
        )),
        "{text}"
    );

    // The app's own pool (8 connections at most, see `Options`) and outbox.
    assert_eq!(
        sample(&text, "procflow_db_pool_max_size"),
        Some(8.0),
        "{text}"
    );
    for gauge in [
        "procflow_db_pool_size",
        "procflow_db_pool_available",
        "procflow_db_pool_in_use",
        "procflow_db_pool_waiting",
    ] {
        assert!(sample(&text, gauge).is_some(), "no {gauge}: {text}");
        assert!(text.contains(&format!("# TYPE {gauge} gauge")), "{text}");
    }
    assert!(
        sample(&text, "procflow_db_pool_size").unwrap() >= 1.0,
        "the pool has served requests: {text}"
    );
    let backlog = sample(&text, "procflow_outbox_backlog").expect("a backlog gauge");
    assert!(
        backlog >= backlog_before + 2.0,
        "each started run leaves an undelivered event: {backlog} after {backlog_before}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_need_no_key_and_answer_only_get() {
    let app = TestApp::spawn().await;
    let reply = app
        .call(Method::GET, "/metrics")
        .key("pf_live_nonsense")
        .send()
        .await;
    reply.assert_status(200);
    let reply = app.call(Method::POST, "/metrics").no_key().send().await;
    reply.assert_status(405);
    assert!(
        app.call(Method::GET, "/api/v1/metrics")
            .no_key()
            .send()
            .await
            .status
            != 200,
        "the page is not under /api/v1"
    );
}
