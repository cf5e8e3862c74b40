//! `/healthz` (the process answers) and `/readyz` (the database answers), without a key.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use procflow_tests::TestApp;
use reqwest::Method;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_health_checks_answer_200_without_a_key() {
    let app = TestApp::spawn().await;
    for path in ["/healthz", "/readyz"] {
        let reply = app.call(Method::GET, path).no_key().send().await;
        reply.assert_status(200);
        reply.assert_request_id();
        reply.assert_json_content_type();
        let reply = app
            .call(Method::GET, path)
            .key("pf_live_nonsense")
            .send()
            .await;
        reply.assert_status(200);
    }
}

/// A "database" that accepts connections and never says a word, for as long as the test runs.
fn silent_database() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    port
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_answers_503_within_its_deadline_when_the_database_is_silent() {
    let app = TestApp::spawn().await;
    let silent = app.spawn_instance_on(&format!(
        "postgres://postgres@127.0.0.1:{}/silent",
        silent_database()
    ));
    for _ in 0..2 {
        let started = Instant::now();
        let reply = app
            .call(Method::GET, "/readyz")
            .at(silent.base())
            .no_key()
            .send()
            .await;
        let waited = started.elapsed();
        reply.error(503, "unavailable");
        // The deadline is one second; the pool alone would wait its five-second timeout.
        // The bound leaves room for a loaded machine and still tells the two apart.
        assert!(
            waited < Duration::from_millis(2_500),
            "/readyz took {waited:?}"
        );
    }
}
