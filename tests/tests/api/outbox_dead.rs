//! Outbox events that no reader accepts (a hand-written row, an older or newer version's) are
//! set aside by the worker, counted and listed, while every other event goes out at once.

use std::time::{Duration, Instant};

use procflow_domain::ports::Outbox;
use procflow_postgres::testing::execute;
use procflow_testkit::receiver::Receiver;
use procflow_tests::{Options, TestApp, sample, worker_settings};
use reqwest::Method;
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(20);
const UNREADABLE: usize = 200;

#[tokio::test(flavor = "multi_thread")]
async fn unreadable_events_are_set_aside_and_do_not_hold_up_the_others() {
    let app = TestApp::with(Options {
        worker: Some(worker_settings("5s", true)),
        ..Options::default()
    })
    .await;
    let receiver = Receiver::start().await;
    app.create_webhook(&format!("{}/in", receiver.url()), None)
        .await;
    // Due before anything the service writes, so that each claim meets them first.
    execute(
        app.db_url(),
        &format!(
            "INSERT INTO outbox (id, team_id, kind, payload, occurred_at, due_at) \
             SELECT gen_random_uuid(), '{}', 'process_run.created', '{{}}', \
                    now() - interval '1 minute', now() - interval '1 minute' \
             FROM generate_series(1, {UNREADABLE})",
            app.other.id
        ),
    )
    .await;

    for _ in 0..3 {
        app.start_demo_run().await;
    }
    let received = receiver.wait_for(3, WAIT).await;
    assert_eq!(received.len(), 3);

    let deadline = Instant::now() + WAIT;
    let dead = loop {
        let dead = app.store.dead_events(1_000).await.unwrap();
        if dead.len() >= UNREADABLE || Instant::now() > deadline {
            break dead;
        }
        tokio::task::yield_now().await;
    };
    assert_eq!(
        dead.len(),
        UNREADABLE,
        "each unreadable event is set aside once"
    );
    assert!(dead.iter().all(|d| d.team_id == app.other.id));
    assert!(
        dead.iter().all(|d| d.error == "missing field `id`"),
        "{:?}",
        dead[0]
    );

    let metrics = app.call(Method::GET, "/metrics").no_key().send().await;
    metrics.assert_status(200);
    // The counter is process-wide, and no other test of this binary sets events aside.
    assert_eq!(
        sample(&metrics.text, "procflow_outbox_dead_total"),
        Some(UNREADABLE as f64),
        "{}",
        metrics.text
    );
    assert_eq!(
        sample(&metrics.text, "procflow_outbox_backlog"),
        Some(0.0),
        "events set aside are not a backlog"
    );
    let (feed, _, _) = app
        .call(Method::GET, "/api/v1/events")
        .key(&app.other_key)
        .send()
        .await
        .list();
    assert_eq!(feed, Vec::<Value>::new(), "the feed leaves them out");
}
