//! The webhooks API (API contract 8.1): endpoints, secrets, refusals, team scoping, the feed.

use procflow_tests::{TestApp, WEBHOOK_FIELDS, assert_keys, unknown_id};
use serde_json::json;

const HOOK: &str = "https://hooks.example.com/procflow";

#[tokio::test(flavor = "multi_thread")]
async fn an_endpoint_is_registered_read_changed_and_deleted_its_secret_shown_once() {
    let app = TestApp::spawn().await;
    let created = app.create_webhook(HOOK, None).await;
    let mut with_secret = WEBHOOK_FIELDS.to_vec();
    with_secret.push("secret");
    assert_keys(&created, &with_secret);
    let secret = created["secret"].as_str().unwrap();
    assert!(
        secret.starts_with("whsec_") && secret.len() == 50,
        "{secret}"
    );
    assert_eq!(
        created["events"],
        json!([
            "process_run.created",
            "process_run.completed",
            "process_step.completed",
            "process_step.unblocked",
            "task.comment_created",
            "schedule.failed",
            "task.attachment_added"
        ])
    );
    assert_eq!(
        (
            created["enabled"].clone(),
            created["disabled_reason"].clone()
        ),
        (json!(true), json!(null))
    );
    let id = created["id"].as_str().unwrap();

    let got = app.get(&format!("/api/v1/webhooks/{id}")).await.data(200);
    assert_keys(&got, WEBHOOK_FIELDS);
    let (listed, _, _) = app.get("/api/v1/webhooks").await.list();
    assert_eq!(listed.len(), 1);
    assert!(listed[0].get("secret").is_none());

    let patched = app
        .patch(
            &format!("/api/v1/webhooks/{id}"),
            &json!({"events": ["process_run.completed"], "description": "ops", "enabled": false}),
        )
        .await
        .data(200);
    assert_eq!(patched["events"], json!(["process_run.completed"]));
    assert_eq!(
        (patched["description"].clone(), patched["enabled"].clone()),
        (json!("ops"), json!(false))
    );
    let cleared = app
        .patch(
            &format!("/api/v1/webhooks/{id}"),
            &json!({"description": null}),
        )
        .await
        .data(200);
    assert_eq!(cleared["description"], json!(null));

    let rotated = app
        .post(&format!("/api/v1/webhooks/{id}/rotate-secret"), &json!({}))
        .await
        .data(200);
    assert_ne!(rotated["secret"], created["secret"]);

    app.delete(&format!("/api/v1/webhooks/{id}"))
        .await
        .assert_status(204);
    app.get(&format!("/api/v1/webhooks/{id}"))
        .await
        .error(404, "not_found");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_endpoints_are_refused_with_the_field_named() {
    let app = TestApp::spawn().await;
    for (body, field) in [
        (json!({"url": "ftp://example.com/"}), "url"),
        (json!({"url": "https://user:pw@example.com/"}), "url"),
        (json!({"url": "http://127.1/"}), "url"),
        (json!({"url": "http://[::ffff:127.0.0.1]/"}), "url"),
        (
            json!({"url": format!("https://example.com/{}", "a".repeat(2048))}),
            "url",
        ),
        (json!({"url": HOOK, "events": []}), "events"),
        (json!({"url": HOOK, "events": ["run.created"]}), "events[0]"),
        (
            json!({"url": HOOK, "events": ["process_run.created", "process_run.created"]}),
            "events[1]",
        ),
        (
            json!({"url": HOOK, "description": "x".repeat(501)}),
            "description",
        ),
        (json!({"url": HOOK, "secret": "mine"}), "secret"),
        (json!({}), "url"),
    ] {
        let message = app
            .post("/api/v1/webhooks", &body)
            .await
            .error(400, "validation_error");
        assert!(message.contains(field), "{body}: {message}");
    }
    let id = app.create_webhook(HOOK, None).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let message = app
        .post(
            &format!("/api/v1/webhooks/{id}/test"),
            &json!({"event": "nope"}),
        )
        .await
        .error(400, "validation_error");
    assert!(message.contains("process_run.created"), "{message}");
    app.get(&format!("/api/v1/webhooks/{id}/deliveries?status=lost"))
        .await
        .error(400, "validation_error");
    app.get("/api/v1/events?event=nope")
        .await
        .error(400, "validation_error");
    app.get(&format!("/api/v1/events?cursor={}", unknown_id()))
        .await
        .error(400, "validation_error");
}

#[tokio::test(flavor = "multi_thread")]
async fn another_teams_endpoints_and_deliveries_are_not_found() {
    let app = TestApp::spawn().await;
    let theirs = app
        .call(reqwest::Method::POST, "/api/v1/webhooks")
        .key(&app.other_key)
        .json(&json!({"url": HOOK}))
        .send()
        .await
        .data(201);
    let id = theirs["id"].as_str().unwrap();
    let delivery = app
        .call(
            reqwest::Method::POST,
            &format!("/api/v1/webhooks/{id}/test"),
        )
        .key(&app.other_key)
        .json(&json!({}))
        .send()
        .await
        .data(202);
    for (method, path) in [
        ("GET", format!("/api/v1/webhooks/{id}")),
        ("PATCH", format!("/api/v1/webhooks/{id}")),
        ("DELETE", format!("/api/v1/webhooks/{id}")),
        ("POST", format!("/api/v1/webhooks/{id}/rotate-secret")),
        ("POST", format!("/api/v1/webhooks/{id}/test")),
        ("GET", format!("/api/v1/webhooks/{id}/deliveries")),
        (
            "POST",
            format!(
                "/api/v1/webhook-deliveries/{}/redeliver",
                delivery["id"].as_str().unwrap()
            ),
        ),
        ("GET", format!("/api/v1/webhooks/{}", unknown_id())),
        ("GET", "/api/v1/webhooks/not-an-id".to_owned()),
    ] {
        let call = app.call(method.parse().unwrap(), &path);
        let call = if method == "GET" || method == "DELETE" {
            call
        } else {
            call.json(&json!({}))
        };
        call.send().await.error(404, "not_found");
    }
    let (ours, _, _) = app.get("/api/v1/webhooks").await.list();
    assert!(ours.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_feed_lists_the_teams_events_oldest_first_and_a_failed_request_records_none() {
    let app = TestApp::spawn().await;
    app.post(
        "/api/v1/process-runs",
        &json!({"template_id": unknown_id()}),
    )
    .await
    .error(404, "not_found");
    let (none, _, _) = app.get("/api/v1/events").await.list();
    assert!(
        none.is_empty(),
        "a request that failed recorded an event: {none:?}"
    );

    let first = app.start_demo_run().await;
    let second = app.start_demo_run().await;
    let (events, next, more) = app.get("/api/v1/events?limit=1").await.list();
    assert!(more);
    assert_keys(&events[0], &["id", "event", "timestamp", "test", "data"]);
    assert_eq!(events[0]["event"], "process_run.created");
    assert_eq!(events[0]["data"]["instance_id"], first.as_str());
    assert_eq!(events[0]["data"]["task_count"], 4);
    let (rest, _, more) = app
        .get(&format!("/api/v1/events?limit=1&cursor={}", next.unwrap()))
        .await
        .list();
    assert!(!more);
    assert_eq!(rest[0]["data"]["instance_id"], second.as_str());
    let (completed, _, _) = app
        .get("/api/v1/events?event=process_run.completed")
        .await
        .list();
    assert!(completed.is_empty());
    let (theirs, _, _) = app
        .call(reqwest::Method::GET, "/api/v1/events")
        .key(&app.other_key)
        .send()
        .await
        .list();
    assert!(theirs.is_empty());
}
