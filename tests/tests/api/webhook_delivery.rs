//! Webhooks that arrive: the worker inside the app delivers to a receiver on loopback, signed,
//! retried, disabled after failures, redelivered, and never to a refused address.

use std::collections::BTreeSet;
use std::time::Duration;

use procflow_testkit::receiver::{Answer, Receiver};
use procflow_tests::{DELIVERY_FIELDS, Options, TestApp, assert_keys, verify, worker_settings};
use serde_json::{Value, json};

/// Long enough for a loaded machine; the worker itself is woken at once.
const WAIT: Duration = Duration::from_secs(20);

async fn app(schedule: &str) -> TestApp {
    TestApp::with(Options {
        worker: Some(worker_settings(schedule, true)),
        ..Options::default()
    })
    .await
}

fn body(request: &procflow_testkit::receiver::Received) -> Value {
    serde_json::from_slice(&request.body).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_runs_life_arrives_as_three_signed_events_in_order() {
    let app = app("5s").await;
    let receiver = Receiver::start().await;
    let hook = app
        .create_webhook(&format!("{}/in", receiver.url()), None)
        .await;
    let secret = hook["secret"].as_str().unwrap();
    let run = app
        .start_run(&json!({"template_id": app.template.id, "actor_email": "member@a.example"}))
        .await;
    let run_id = run["id"].as_str().unwrap();
    // Each step waits for the webhook of the one before: attempts run in parallel, so events
    // raised at the same moment may arrive in any order (receivers order by timestamp).
    receiver.wait_for(1, WAIT).await;
    let tasks = app.run_tasks(run_id).await;
    let complete = async |task: &Value| {
        app.patch_task(
            run_id,
            task["id"].as_str().unwrap(),
            &json!({"completed": true}),
        )
        .await
        .assert_status(200);
    };
    complete(&tasks[0]).await;
    receiver.wait_for(2, WAIT).await;
    for task in &tasks[1..] {
        complete(task).await;
    }
    let received = receiver.wait_for(3, WAIT).await;
    let events: Vec<Value> = received.iter().map(body).collect();
    let names: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "process_run.created",
            "process_step.completed",
            "process_run.completed"
        ]
    );
    for (request, event) in received.iter().zip(&events) {
        verify(request, secret);
        assert_eq!(request.header("webhook-id"), event["id"].as_str());
        assert_eq!(request.header("x-webhook-event"), event["event"].as_str());
        assert_eq!(event["test"], false);
        assert_eq!(event["data"]["instance_id"], run_id);
    }
    assert_eq!(
        events[0]["data"]["started_by"],
        json!({"user_id": app.member.id.to_string(), "email": "member@a.example", "is_guest": false})
    );
    assert_eq!(events[0]["data"]["task_count"], 4);
    assert_eq!(events[1]["data"]["title"], "Collect documents");
    assert_eq!(
        events[1]["data"]["completed_by"],
        json!({"user_id": null, "email": null, "is_guest": false})
    );
    let id = hook["id"].as_str().unwrap();
    let log = app
        .wait_for_deliveries(id, WAIT, |log| {
            log.len() == 3 && log.iter().all(|d| d["status"] == "delivered")
        })
        .await;
    assert_keys(&log[0], DELIVERY_FIELDS);
    assert_eq!(
        (
            log[0]["response_status"].clone(),
            log[0]["attempts"].clone()
        ),
        (json!(200), json!(1))
    );
    assert_eq!(
        log[0]["payload"], events[2],
        "the log keeps the envelope sent"
    );
    assert_eq!(log[0]["next_attempt_at"], json!(null));
    // The feed carries the same envelopes.
    let (feed, _, _) = app.get("/api/v1/events").await.list();
    assert_eq!(feed, events);
}

#[tokio::test(flavor = "multi_thread")]
async fn retries_500_500_200_make_three_attempts_with_one_webhook_id() {
    let app = app("1s,1s,1s").await;
    let receiver = Receiver::start().await;
    receiver.script([Answer::Status(500, None), Answer::Status(500, None)]);
    let hook = app
        .create_webhook(&receiver.url(), Some(&["process_run.created"]))
        .await;
    app.start_demo_run().await;
    let received = receiver.wait_for(3, WAIT).await;
    let ids: BTreeSet<&str> = received
        .iter()
        .map(|r| r.header("webhook-id").unwrap())
        .collect();
    assert_eq!(ids.len(), 1, "one webhook-id across the attempts");
    let timestamps: Vec<&str> = received
        .iter()
        .map(|r| r.header("webhook-timestamp").unwrap())
        .collect();
    assert_ne!(timestamps[0], timestamps[2], "signed again at each attempt");
    let log = app
        .wait_for_deliveries(hook["id"].as_str().unwrap(), WAIT, |log| {
            log[0]["status"] == "delivered"
        })
        .await;
    assert_eq!(log[0]["attempts"], 3);
    assert_eq!(log[0]["error"], json!(null));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_receiver_down_then_up_gets_every_event() {
    let app = app("1s,1s,1s,1s,1s").await;
    let mut receiver = Receiver::start().await;
    let hook = app
        .create_webhook(&receiver.url(), Some(&["process_run.created"]))
        .await;
    let id = hook["id"].as_str().unwrap();
    receiver.stop();
    let mut runs = BTreeSet::new();
    for _ in 0..3 {
        runs.insert(app.start_demo_run().await);
    }
    let failed_once = app
        .wait_for_deliveries(id, WAIT, |log| {
            log.len() == 3
                && log
                    .iter()
                    .all(|d| d["attempts"].as_u64() >= Some(1) && d["status"] == "pending")
        })
        .await;
    assert!(
        failed_once[0]["error"]
            .as_str()
            .unwrap()
            .contains("connection failed"),
        "{:?}",
        failed_once[0]
    );
    receiver.restart().await;
    let received = receiver.wait_for(3, WAIT).await;
    let arrived: BTreeSet<String> = received
        .iter()
        .map(|r| body(r)["data"]["instance_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(arrived, runs);
}

#[tokio::test(flavor = "multi_thread")]
async fn ten_failed_deliveries_disable_the_endpoint_until_it_is_enabled_again() {
    let app = app("1s").await;
    let receiver = Receiver::start().await;
    receiver.answer_by_default(Answer::Status(500, None));
    let hook = app
        .create_webhook(&receiver.url(), Some(&["process_run.created"]))
        .await;
    let id = hook["id"].as_str().unwrap();
    for _ in 0..10 {
        app.start_demo_run().await;
    }
    app.wait_for_deliveries(id, Duration::from_secs(40), |log| {
        log.len() == 10 && log.iter().all(|d| d["status"] == "failed")
    })
    .await;
    let disabled = app.get(&format!("/api/v1/webhooks/{id}")).await.data(200);
    assert_eq!(
        (
            disabled["enabled"].clone(),
            disabled["disabled_reason"].clone(),
            disabled["consecutive_failures"].clone()
        ),
        (json!(false), json!("consecutive_failures"), json!(10))
    );
    // Nothing is made for a disabled endpoint; the event stays in the feed.
    app.start_demo_run().await;
    let (feed, _, _) = app.get("/api/v1/events?limit=100").await.list();
    assert_eq!(feed.len(), 11);
    app.wait_until_dispatched(WAIT).await;
    assert_eq!(
        app.deliveries(id).await.len(),
        10,
        "no delivery was made while disabled"
    );
    let enabled = app
        .patch(&format!("/api/v1/webhooks/{id}"), &json!({"enabled": true}))
        .await
        .data(200);
    assert_eq!(
        (
            enabled["enabled"].clone(),
            enabled["disabled_reason"].clone(),
            enabled["consecutive_failures"].clone()
        ),
        (json!(true), json!(null), json!(0))
    );
    assert_eq!(
        app.deliveries(id).await.len(),
        10,
        "no delivery was made while disabled"
    );
    assert_eq!(
        receiver.received().len(),
        20,
        "two attempts each, none after disabling"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_test_and_a_redelivery_arrive_with_their_event_ids_and_rotation_signs_with_both() {
    let app = app("5s").await;
    let receiver = Receiver::start().await;
    let hook = app
        .create_webhook(&receiver.url(), Some(&["process_run.created"]))
        .await;
    let id = hook["id"].as_str().unwrap();
    let old_secret = hook["secret"].as_str().unwrap();

    let test = app
        .post(
            &format!("/api/v1/webhooks/{id}/test"),
            &json!({"event": "process_step.completed"}),
        )
        .await
        .data(202);
    assert_keys(&test, DELIVERY_FIELDS);
    // The worker may have sent it before the answer left.
    assert!(["pending", "delivering", "delivered"].contains(&test["status"].as_str().unwrap()));
    let sample = receiver.wait_for(1, WAIT).await.remove(0);
    verify(&sample, old_secret);
    assert_eq!(sample.header("webhook-id"), test["event_id"].as_str());
    assert_eq!(
        (
            body(&sample)["test"].clone(),
            body(&sample)["event"].clone()
        ),
        (json!(true), json!("process_step.completed"))
    );

    app.start_demo_run().await;
    let original = receiver.wait_for(2, WAIT).await.remove(1);
    let delivery = app
        .wait_for_deliveries(id, WAIT, |log| {
            log.iter()
                .any(|d| d["event"] == "process_run.created" && d["status"] == "delivered")
        })
        .await
        .into_iter()
        .find(|d| d["event"] == "process_run.created")
        .unwrap();
    let rotated = app
        .post(&format!("/api/v1/webhooks/{id}/rotate-secret"), &json!({}))
        .await
        .data(200);
    let again = app
        .post(
            &format!(
                "/api/v1/webhook-deliveries/{}/redeliver",
                delivery["id"].as_str().unwrap()
            ),
            &json!({}),
        )
        .await
        .data(202);
    assert_ne!(again["id"], delivery["id"]);
    assert_eq!(again["event_id"], delivery["event_id"]);
    let redelivered = receiver.wait_for(3, WAIT).await.remove(2);
    assert_eq!(
        redelivered.header("webhook-id"),
        original.header("webhook-id")
    );
    assert_eq!(redelivered.body, original.body, "the same payload");
    assert_eq!(
        redelivered
            .header("webhook-signature")
            .unwrap()
            .split(' ')
            .count(),
        2
    );
    verify(&redelivered, rotated["secret"].as_str().unwrap());
    verify(&redelivered, old_secret);
}

#[tokio::test(flavor = "multi_thread")]
async fn refused_destinations_fail_and_the_receiver_sees_nothing() {
    let app = TestApp::with(Options {
        worker: Some(worker_settings("1s", false)),
        ..Options::default()
    })
    .await;
    let receiver = Receiver::start().await;
    let port = receiver.port();
    let mut hooks = Vec::new();
    for host in [
        "127.0.0.1",
        "localhost",
        "[::1]",
        "[::ffff:7f00:1]",
        "0.0.0.0",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "[fd00::1]",
    ] {
        let hook = app
            .create_webhook(&format!("http://{host}:{port}/in"), None)
            .await;
        let id = hook["id"].as_str().unwrap().to_owned();
        app.post(&format!("/api/v1/webhooks/{id}/test"), &json!({}))
            .await
            .data(202);
        hooks.push((host, id));
    }
    for (host, id) in &hooks {
        let log = app
            .wait_for_deliveries(id, WAIT, |log| {
                log.len() == 1 && log[0]["status"] == "failed"
            })
            .await;
        let error = log[0]["error"].as_str().unwrap();
        assert!(error.starts_with("destination refused"), "{host}: {error}");
        assert_eq!(log[0]["response_status"], json!(null));
    }
    assert!(
        receiver.received().is_empty(),
        "the receiver saw {:?}",
        receiver.received()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn three_instances_deliver_thirty_events_each_exactly_once() {
    let app = app("1s,1s,1s").await;
    let second = app.spawn_instance();
    let third = app.spawn_instance();
    let receiver = Receiver::start().await;
    let hook = app
        .create_webhook(&receiver.url(), Some(&["process_run.created"]))
        .await;
    let bases = [
        app.base().to_owned(),
        second.base().to_owned(),
        third.base().to_owned(),
    ];
    let mut runs = BTreeSet::new();
    for n in 0..30 {
        let run = app
            .call(reqwest::Method::POST, "/api/v1/process-runs")
            .at(&bases[n % 3])
            .json(&json!({"template_id": app.template.id}))
            .send()
            .await
            .data(201);
        runs.insert(run["id"].as_str().unwrap().to_owned());
    }
    app.wait_for_deliveries(hook["id"].as_str().unwrap(), WAIT, |log| {
        log.len() == 30 && log.iter().all(|d| d["status"] == "delivered")
    })
    .await;
    let received = receiver.received();
    let ids: BTreeSet<&str> = received
        .iter()
        .map(|r| r.header("webhook-id").unwrap())
        .collect();
    assert_eq!(received.len(), 30, "each event exactly once");
    assert_eq!(ids.len(), 30);
    let arrived: BTreeSet<String> = received
        .iter()
        .map(|r| body(r)["data"]["instance_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(arrived, runs);
}
