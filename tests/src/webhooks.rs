//! Webhook helpers: a worker for the test app, endpoints, and waiting on deliveries.

use std::time::{Duration, Instant};

use procflow_notify::{SenderConfig, WorkerConfig};
use procflow_server::config::WorkerSettings;
use procflow_testkit::receiver::Received;
use serde_json::{Value, json};

use crate::app::TestApp;

/// The fields of a webhook endpoint (API contract 8.1), without its secret.
pub const WEBHOOK_FIELDS: &[&str] = &[
    "id",
    "url",
    "events",
    "description",
    "enabled",
    "disabled_reason",
    "consecutive_failures",
    "created_at",
    "updated_at",
];

/// The fields of a delivery (API contract 8.1).
pub const DELIVERY_FIELDS: &[&str] = &[
    "id",
    "webhook_id",
    "event_id",
    "event",
    "status",
    "attempts",
    "response_status",
    "response_body",
    "error",
    "payload",
    "created_at",
    "last_attempt_at",
    "next_attempt_at",
];

/// A worker retrying on `schedule`, with loopback destinations allowed (unless
/// `allow_private` is false), a short attempt limit, and the production poll and lease.
#[must_use]
pub fn worker_settings(schedule: &str, allow_private: bool) -> WorkerSettings {
    WorkerSettings {
        worker: WorkerConfig {
            schedule: schedule.parse().expect("schedule"),
            ..WorkerConfig::default()
        },
        sender: SenderConfig {
            allow_private,
            timeout: Duration::from_secs(3),
        },
        ..WorkerSettings::default()
    }
}

/// Checks a received webhook with the `standardwebhooks` crate and `secret`.
///
/// # Panics
/// When the signature does not verify.
pub fn verify(request: &Received, secret: &str) {
    let mut headers = http::HeaderMap::new();
    for (name, value) in &request.headers {
        headers.insert(
            http::HeaderName::from_bytes(name.as_bytes()).expect("header name"),
            value.parse().expect("header value"),
        );
    }
    standardwebhooks::Webhook::new(secret)
        .expect("secret")
        .verify(&request.body, &headers)
        .unwrap_or_else(|e| panic!("the signature does not verify with {secret:.10}..: {e}"));
}

impl TestApp {
    /// Waits until every outbox event was fanned out by a worker, at most `deadline`.
    ///
    /// # Panics
    /// When events still wait then.
    pub async fn wait_until_dispatched(&self, deadline: Duration) {
        use procflow_domain::ports::StoreStats;
        let until = Instant::now() + deadline;
        while self.store.outbox_backlog().await.expect("backlog") > 0 {
            assert!(
                Instant::now() < until,
                "outbox events not dispatched within {deadline:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Registers an endpoint (201) and returns it with its secret.
    pub async fn create_webhook(&self, url: &str, events: Option<&[&str]>) -> Value {
        let mut body = json!({"url": url});
        if let Some(events) = events {
            body["events"] = json!(events);
        }
        self.post("/api/v1/webhooks", &body).await.data(201)
    }

    /// An endpoint's deliveries, newest first.
    pub async fn deliveries(&self, webhook: &str) -> Vec<Value> {
        self.all(&format!("/api/v1/webhooks/{webhook}/deliveries"))
            .await
    }

    /// Polls an endpoint's deliveries until `done` holds of them, at most `deadline`.
    ///
    /// # Panics
    /// When it does not hold in time.
    pub async fn wait_for_deliveries(
        &self,
        webhook: &str,
        deadline: Duration,
        done: impl Fn(&[Value]) -> bool,
    ) -> Vec<Value> {
        let until = Instant::now() + deadline;
        loop {
            let deliveries = self.deliveries(webhook).await;
            if done(&deliveries) {
                return deliveries;
            }
            assert!(
                Instant::now() < until,
                "deliveries not as expected within {deadline:?}: {deliveries:#?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
