//! `Idempotency-Key` on `POST` (API contract 10): the same request again replays the first
//! response, another request with the key is refused (422), one still running answers 409;
//! held across instances, per team.

use futures_util::future::join_all;
use procflow_tests::{Options, Reply, TestApp, demo_document};
use reqwest::Method;
use serde_json::{Value, json};

const RUNS: &str = "/api/v1/process-runs";

/// `POST path` with this JSON body and `Idempotency-Key: key`, with the team's key.
async fn post_keyed(app: &TestApp, path: &str, key: &str, body: &Value) -> Reply {
    app.call(Method::POST, path)
        .header("Idempotency-Key", key)
        .json(body)
        .send()
        .await
}

/// The demo template document under another title.
fn titled(title: &str) -> Value {
    let mut document = demo_document();
    document["title"] = json!(title);
    document
}

fn replayed(reply: &Reply) -> bool {
    reply.header("idempotency-replayed") == Some("true")
}

async fn run_count(app: &TestApp) -> usize {
    app.all(RUNS).await.len()
}

/// Asserts that exactly one reply is a 201 that ran, and every other one the same 201
/// replayed or 409 `idempotency_in_flight`.
fn assert_one_answer(replies: &[Reply]) {
    let ran: Vec<&Reply> = replies
        .iter()
        .filter(|reply| reply.status == 201 && !replayed(reply))
        .collect();
    assert_eq!(ran.len(), 1, "exactly one request ran");
    let first = ran[0];
    for reply in replies {
        if reply.status == 409 {
            reply.error(409, "idempotency_in_flight");
        } else {
            reply.assert_status(201);
            assert_eq!(reply.text, first.text, "every 201 is the same answer");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_key_and_body_twice_replays_the_first_response_and_runs_once() {
    let app = TestApp::spawn().await;
    let body = json!({"template_id": app.template.id});

    let first = post_keyed(&app, RUNS, "create-1", &body).await;
    let run = first.data(201);
    assert!(!replayed(&first), "the first answer is no replay");

    let again = post_keyed(&app, RUNS, "create-1", &body).await;
    assert_eq!(again.data(201), run);
    assert_eq!(again.text, first.text, "byte for byte");
    assert!(replayed(&again), "Idempotency-Replayed: true");
    again.assert_json_content_type();
    assert_eq!(run_count(&app).await, 1);

    // Another key runs again; no key behaves as before the feature.
    post_keyed(&app, RUNS, "create-2", &body).await.data(201);
    app.post(RUNS, &body).await.data(201);
    app.post(RUNS, &body).await.data(201);
    assert_eq!(run_count(&app).await, 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_key_with_another_request_is_refused_with_422() {
    let app = TestApp::spawn().await;
    let body = json!({"template_id": app.template.id});
    post_keyed(&app, RUNS, "k", &body).await.data(201);

    let other_body = json!({"template_id": app.template.id, "title": "Another"});
    post_keyed(&app, RUNS, "k", &other_body)
        .await
        .error(422, "idempotency_key_reused");
    post_keyed(&app, "/api/v1/process-templates", "k", &body)
        .await
        .error(422, "idempotency_key_reused");
    assert_eq!(run_count(&app).await, 1);

    // The refusals changed nothing: the first request still replays.
    let again = post_keyed(&app, RUNS, "k", &body).await;
    again.data(201);
    assert!(replayed(&again));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_creates_with_one_key_make_one_run() {
    let app = TestApp::with(Options {
        workers: 4,
        pool_size: 16,
        ..Options::default()
    })
    .await;
    let body = json!({"template_id": app.template.id});

    let replies = join_all((0..50).map(|_| post_keyed(&app, RUNS, "race", &body))).await;

    assert_one_answer(&replies);
    assert_eq!(run_count(&app).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_creates_with_one_key_on_two_instances_make_one_run() {
    let app = TestApp::with(Options {
        workers: 4,
        pool_size: 16,
        ..Options::default()
    })
    .await;
    let second = app.spawn_instance();
    let body = json!({"template_id": app.template.id});

    let replies = join_all((0..50).map(|i| {
        let base = if i % 2 == 0 {
            app.base()
        } else {
            second.base()
        };
        app.call(Method::POST, RUNS)
            .at(base)
            .header("Idempotency-Key", "race")
            .json(&body)
            .send()
    }))
    .await;

    assert_one_answer(&replies);
    assert_eq!(run_count(&app).await, 1);
    // Each instance replays the answer the other kept.
    for base in [app.base(), second.base()] {
        let reply = app
            .call(Method::POST, RUNS)
            .at(base)
            .header("Idempotency-Key", "race")
            .json(&body)
            .send()
            .await;
        reply.assert_status(201);
        assert!(replayed(&reply));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_400_answer_is_kept_and_replayed() {
    let app = TestApp::spawn().await;
    let bad = json!({"template_id": app.template.id, "unknown_field": true});

    let first = post_keyed(&app, RUNS, "bad", &bad).await;
    let message = first.error(400, "validation_error");
    let again = post_keyed(&app, RUNS, "bad", &bad).await;
    assert_eq!(again.error(400, "validation_error"), message);
    assert_eq!(again.text, first.text);
    assert!(replayed(&again));

    // The key holds the refusal: a corrected body needs a new key.
    let good = json!({"template_id": app.template.id});
    post_keyed(&app, RUNS, "bad", &good)
        .await
        .error(422, "idempotency_key_reused");
    post_keyed(&app, RUNS, "good", &good).await.data(201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_about_the_caller_is_not_kept() {
    let app = TestApp::spawn().await;
    let body = json!({"template_id": app.template.id});

    app.call(Method::POST, RUNS)
        .key("pf_live_unknown")
        .header("Idempotency-Key", "k")
        .json(&body)
        .send()
        .await
        .error(401, "unauthorized");
    let reply = post_keyed(&app, RUNS, "k", &body).await;
    reply.data(201);
    assert!(!replayed(&reply), "the 401 was not kept");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_key_is_refused_with_400_and_nothing_runs() {
    let app = TestApp::spawn().await;
    let body = json!({"template_id": app.template.id});

    let too_long = "k".repeat(256);
    for key in [
        too_long.as_str(),
        &"k".repeat(300),
        "",
        "two words",
        "tab\there",
    ] {
        let message = post_keyed(&app, RUNS, key, &body)
            .await
            .error(400, "validation_error");
        assert!(message.contains("Idempotency-Key"), "{message}");
    }
    assert_eq!(run_count(&app).await, 0);

    // The longest key accepted.
    post_keyed(&app, RUNS, &"k".repeat(255), &body)
        .await
        .data(201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_body_with_a_key_is_refused_with_413_and_not_kept() {
    let app = TestApp::spawn().await;
    let oversized = format!("{{\"title\":\"{}\"}}", "x".repeat(1024 * 1024));

    app.call(Method::POST, RUNS)
        .header("Idempotency-Key", "big")
        .raw(oversized, Some("application/json"))
        .send()
        .await
        .error(413, "payload_too_large");
    let body = json!({"template_id": app.template.id});
    let reply = post_keyed(&app, RUNS, "big", &body).await;
    reply.data(201);
    assert!(!replayed(&reply));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_team_with_the_same_key_is_independent() {
    let app = TestApp::spawn().await;
    let ours = post_keyed(
        &app,
        "/api/v1/process-templates",
        "shared",
        &demo_document(),
    )
    .await;
    ours.data(201);

    let theirs = app
        .call(Method::POST, "/api/v1/process-templates")
        .key(&app.other_key)
        .header("Idempotency-Key", "shared")
        .json(&titled("Theirs"))
        .send()
        .await;
    assert_eq!(theirs.data(201)["title"], "Theirs");
    assert!(
        !replayed(&theirs),
        "not a replay of the other team's answer"
    );

    let again = post_keyed(
        &app,
        "/api/v1/process-templates",
        "shared",
        &demo_document(),
    )
    .await;
    assert_eq!(again.text, ours.text);
    assert!(replayed(&again));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_methods_ignore_the_key() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;

    for _ in 0..2 {
        let reply = app
            .call(Method::GET, &format!("{RUNS}/{run_id}"))
            .header("Idempotency-Key", "k")
            .send()
            .await;
        reply.data(200);
        assert!(!replayed(&reply));
    }
    // Not even validated.
    app.call(Method::GET, RUNS)
        .header("Idempotency-Key", "")
        .send()
        .await
        .list();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replays_count_against_the_rate_limit() {
    let app = TestApp::with(Options {
        rate_limit_per_minute: 3,
        ..Options::default()
    })
    .await;
    // Seeding the template used the quota; another key of the team has its own.
    let (_, key) = app.new_key(&app.team, &app.admin).await;
    let body = titled("Counted");
    let send = || {
        app.call(Method::POST, "/api/v1/process-templates")
            .key(&key)
            .header("Idempotency-Key", "k")
            .json(&body)
            .send()
    };

    // Each request is counted once: the guard admits it, the handler finds it admitted.
    let first = send().await;
    first.data(201);
    assert_eq!(first.header("ratelimit-remaining"), Some("2"));
    for remaining in ["1", "0"] {
        let reply = send().await;
        reply.data(201);
        assert!(replayed(&reply));
        assert_eq!(reply.header("ratelimit-remaining"), Some(remaining));
    }
    send().await.error(429, "rate_limited");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_route_is_404_with_a_key_and_counts_nothing() {
    let app = TestApp::spawn().await;
    for path in ["/api/v1/nope", "/nope"] {
        app.call(Method::POST, path)
            .no_key()
            .header("Idempotency-Key", "k")
            .json(&json!({}))
            .send()
            .await
            .error(404, "not_found");
        let reply = post_keyed(&app, path, "k", &json!({})).await;
        reply.error(404, "not_found");
        assert_eq!(reply.header("ratelimit-remaining"), None, "not admitted");
    }
    // The key was claimed by nothing: a real request can use it.
    let reply = post_keyed(&app, RUNS, "k", &json!({"template_id": app.template.id})).await;
    reply.data(201);
    assert!(!replayed(&reply));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_left_in_flight_by_a_dead_instance_is_free_after_its_lease() {
    let app = TestApp::spawn().await;
    let body = json!({"template_id": app.template.id});
    let lease = procflow_http::idempotency::IN_FLIGHT_LEASE.whole_seconds();
    // What an instance killed mid-request leaves: a claim without an answer, and what a
    // request still running holds, a moment old.
    procflow_testkit::execute_sql(
        app.db_url(),
        &format!(
            "INSERT INTO idempotency_keys (team_id, key, request_hash, created_at) VALUES \
             ('{team}', 'died', '\\x00', now() - interval '{died} seconds'), \
             ('{team}', 'running', '\\x00', now() - interval '5 seconds')",
            team = app.team.id,
            died = lease + 1,
        ),
    )
    .await;

    let retried = post_keyed(&app, RUNS, "died", &body).await;
    retried.data(201);
    assert!(!replayed(&retried));
    assert_eq!(run_count(&app).await, 1, "the retry ran");
    let again = post_keyed(&app, RUNS, "died", &body).await;
    assert!(
        replayed(&again),
        "and is now the key's answer: {} {}",
        again.status,
        again.text
    );
    assert_eq!(again.text, retried.text);

    post_keyed(&app, RUNS, "running", &body)
        .await
        .error(422, "idempotency_key_reused");
    assert_eq!(run_count(&app).await, 1, "a live claim still holds its key");
}
