//! The HTTP sender against a receiver on loopback: headers and signatures an independent
//! verifier accepts, redirects not followed, time limits, and the refused destinations.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use procflow_domain::ids::{DeliveryId, EventId, TeamId, WebhookId};
use procflow_domain::ports::Sender;
use procflow_domain::webhook::{
    AttemptOutcome, ClaimedDelivery, DeliveryOrigin, SigningSecrets, WebhookEvent, WebhookSecret,
};
use procflow_notify::resolver::Lookup;
use procflow_notify::{HttpSender, SenderConfig};
use procflow_testkit::receiver::{Answer, Receiver};
use time::OffsetDateTime;
use uuid::Uuid;

const WAIT: Duration = Duration::from_secs(10);

fn claimed(url: &str, secrets: SigningSecrets) -> ClaimedDelivery {
    ClaimedDelivery {
        id: DeliveryId::from_uuid(Uuid::now_v7()),
        team_id: TeamId::from_uuid(Uuid::now_v7()),
        webhook_id: WebhookId::from_uuid(Uuid::now_v7()),
        event_id: EventId::from_uuid(Uuid::now_v7()),
        event: WebhookEvent::RunCreated,
        origin: DeliveryOrigin::Event,
        attempt: 1,
        lease: Uuid::now_v7(),
        payload: r#"{"id":"x","event":"process_run.created"}"#.into(),
        url: url.parse().unwrap(),
        secrets,
        endpoint_enabled: true,
    }
}

fn secrets() -> SigningSecrets {
    SigningSecrets::new(WebhookSecret::from_key(&[7; 32]))
}

fn sender(allow_private: bool) -> HttpSender {
    HttpSender::new(&SenderConfig {
        allow_private,
        ..SenderConfig::default()
    })
    .unwrap()
}

#[tokio::test]
async fn a_delivery_carries_the_headers_and_a_signature_the_reference_verifier_accepts() {
    let receiver = Receiver::start().await;
    let now = OffsetDateTime::now_utc();
    let old = WebhookSecret::from_key(&[1; 32]);
    let rotated = SigningSecrets::new(old.clone()).rotate(WebhookSecret::from_key(&[2; 32]), now);
    let delivery = claimed(&format!("{}/hooks?x=1", receiver.url()), rotated.clone());
    let outcome = sender(true).send(&delivery, now).await;
    assert_eq!(
        outcome,
        AttemptOutcome::Response {
            status: 200,
            body: "ok".into(),
            retry_after: None
        }
    );
    let request = receiver.wait_for(1, WAIT).await.remove(0);
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", "/hooks?x=1")
    );
    assert_eq!(request.body, delivery.payload.as_bytes());
    let id = delivery.event_id.to_string();
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(
        request.header("user-agent"),
        Some(concat!("procflow/", env!("CARGO_PKG_VERSION")))
    );
    assert_eq!(
        request.header("x-webhook-event"),
        Some("process_run.created")
    );
    assert_eq!(request.header("x-webhook-id"), Some(id.as_str()));
    assert_eq!(request.header("webhook-id"), Some(id.as_str()));
    assert_eq!(
        request.header("webhook-timestamp"),
        Some(now.unix_timestamp().to_string().as_str())
    );
    let signature = request.header("webhook-signature").unwrap();
    assert_eq!(
        signature.split(' ').count(),
        2,
        "both secrets sign for a day"
    );
    let mut headers = http::HeaderMap::new();
    for (name, value) in &request.headers {
        headers.insert(
            http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            value.parse().unwrap(),
        );
    }
    for secret in [&rotated.current, &old] {
        standardwebhooks::Webhook::new(secret.expose())
            .unwrap()
            .verify(&request.body, &headers)
            .unwrap();
    }
}

#[tokio::test]
async fn redirects_are_answers_not_followed_and_retry_after_is_read() {
    let receiver = Receiver::start().await;
    receiver.script([Answer::Status(302, None), Answer::Status(503, Some(7))]);
    let delivery = claimed(&receiver.url(), secrets());
    let sender = sender(true);
    let now = OffsetDateTime::now_utc();
    assert!(matches!(
        sender.send(&delivery, now).await,
        AttemptOutcome::Response { status: 302, .. }
    ));
    assert_eq!(
        sender.send(&delivery, now).await,
        AttemptOutcome::Response {
            status: 503,
            body: "ok".into(),
            retry_after: Some(time::Duration::seconds(7))
        }
    );
    assert_eq!(
        receiver.received().len(),
        2,
        "no request followed the redirect"
    );
}

#[tokio::test]
async fn an_answer_that_never_comes_times_out_and_a_closed_port_fails() {
    let mut receiver = Receiver::start().await;
    receiver.answer_by_default(Answer::Hang);
    let sender = HttpSender::new(&SenderConfig {
        allow_private: true,
        timeout: Duration::from_millis(300),
    })
    .unwrap();
    let delivery = claimed(&receiver.url(), secrets());
    let AttemptOutcome::Error(error) = sender.send(&delivery, OffsetDateTime::now_utc()).await
    else {
        panic!("an answer came");
    };
    assert!(error.contains("timed out"), "{error}");
    receiver.stop();
    let AttemptOutcome::Error(error) = sender.send(&delivery, OffsetDateTime::now_utc()).await
    else {
        panic!("an answer came");
    };
    assert!(error.contains("connection failed"), "{error}");
}

/// Resolves every name to loopback, as a hostile DNS record would.
struct ToLoopback;

impl Lookup for ToLoopback {
    fn lookup(&self, _host: String) -> BoxFuture<'static, std::io::Result<Vec<IpAddr>>> {
        Box::pin(async { Ok(vec!["127.0.0.1".parse().unwrap()]) })
    }
}

#[tokio::test]
async fn refused_destinations_fail_without_a_connection() {
    let receiver = Receiver::start().await;
    let port = receiver.port();
    let sender = sender(false);
    let hostile = HttpSender::with_lookup(&SenderConfig::default(), Arc::new(ToLoopback)).unwrap();
    let now = OffsetDateTime::now_utc();
    for host in [
        "127.0.0.1",
        "localhost",
        "[::1]",
        "[::ffff:7f00:1]",
        // SIIT (IPv4-translated), once let through to a connection attempt.
        "[::ffff:0:7f00:1]",
        "0.0.0.0",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "[fd00::1]",
    ] {
        let delivery = claimed(&format!("http://{host}:{port}/"), secrets());
        match sender.send(&delivery, now).await {
            AttemptOutcome::Error(error) => {
                assert!(error.starts_with("destination refused"), "{host}: {error}");
            }
            other => panic!("{host}: {other:?}"),
        }
    }
    let delivery = claimed(&format!("http://hooks.example.com:{port}/"), secrets());
    match hostile.send(&delivery, now).await {
        AttemptOutcome::Error(error) => {
            assert!(error.contains("hooks.example.com is loopback"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    assert!(receiver.received().is_empty(), "the receiver saw a request");
    // The same name through the same resolver, allowed: the request arrives.
    let allowed = HttpSender::with_lookup(
        &SenderConfig {
            allow_private: true,
            ..SenderConfig::default()
        },
        Arc::new(ToLoopback),
    )
    .unwrap();
    assert!(matches!(
        allowed.send(&delivery, now).await,
        AttemptOutcome::Response { status: 200, .. }
    ));
    assert_eq!(receiver.wait_for(1, WAIT).await.len(), 1);
}
