//! `/healthz` (the process answers) and `/readyz` (the database answers), without a key.

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
