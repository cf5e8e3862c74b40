//! The schedules API (API contract 13.1): create, read (ETag), list, change (If-Match),
//! delete; every refusal with its field or part named; team scoping; read keys read only.

use procflow_tests::{TestApp, assert_keys, unknown_id};
use serde_json::{Value, json};

const SCHEDULE_FIELDS: &[&str] = &[
    "id",
    "template_id",
    "name",
    "recurrence",
    "timezone",
    "enabled",
    "run",
    "next_run_at",
    "last_run_at",
    "last_run_id",
    "last_error",
    "missed_count",
    "created_at",
    "updated_at",
];

/// Mondays 09:00 in the team's zone (Europe/Paris), from 2030-01-07, a Monday.
const WEEKLY: &str = "DTSTART:20300107T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO";

async fn create(app: &TestApp, body: &Value) -> Value {
    app.post("/api/v1/schedules", body).await.data(201)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_schedule_is_created_read_listed_changed_and_deleted() {
    let app = TestApp::spawn().await;
    let full_name = app.template.task("Collect documents")["custom_elements"][0]["id"].clone();
    let task = app.template.task("Collect documents")["id"].clone();
    let created = create(
        &app,
        &json!({
            "template_id": app.template.id,
            "name": "Weekly onboarding",
            "recurrence": WEEKLY,
            "run": {
                "name": "Onboarding {date}",
                "actor_email": "member@a.example",
                "due_in": "P2D",
                "custom_elements": [{"task_id": task, "element_id": full_name, "value": "Ada"}],
                "invite": {"email": "guest@elsewhere.example", "enable_reminders": true, "reminder_days": 3}
            }
        }),
    )
    .await;
    assert_keys(&created, SCHEDULE_FIELDS);
    assert_eq!(created["timezone"], "Europe/Paris", "the team's zone");
    assert_eq!(created["enabled"], true);
    assert_eq!(created["next_run_at"], "2030-01-07T08:00:00Z");
    assert_eq!(
        (
            &created["last_run_at"],
            &created["last_run_id"],
            &created["last_error"]
        ),
        (&json!(null), &json!(null), &json!(null))
    );
    assert_eq!(created["missed_count"], 0);
    assert_eq!(created["run"]["due_in"], "P2D");
    assert_eq!(created["run"]["invite"]["email"], "guest@elsewhere.example");
    let id = created["id"].as_str().unwrap().to_owned();
    let path = format!("/api/v1/schedules/{id}");

    let got = app.get(&path).await;
    let etag = got.header("etag").expect("an ETag").to_owned();
    assert_eq!(got.data(200), created);
    app.call(reqwest::Method::GET, &path)
        .header("If-None-Match", &etag)
        .send()
        .await
        .assert_status(304);

    let other = create(
        &app,
        &json!({"template_id": app.template.id, "recurrence": WEEKLY, "timezone": "America/New_York", "enabled": false}),
    )
    .await;
    assert_eq!(other["next_run_at"], "2030-01-07T14:00:00Z");
    let (listed, _, _) = app.get("/api/v1/schedules").await.list();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["id"], created["id"], "oldest first");
    let (enabled, _, _) = app.get("/api/v1/schedules?enabled=true").await.list();
    assert_eq!(enabled.len(), 1);
    let (of_template, _, _) = app
        .get(&format!(
            "/api/v1/schedules?template_id={}",
            app.template.id
        ))
        .await
        .list();
    assert_eq!(of_template.len(), 2);
    let (of_none, _, _) = app
        .get(&format!("/api/v1/schedules?template_id={}", unknown_id()))
        .await
        .list();
    assert!(of_none.is_empty());

    let patched = app
        .call(reqwest::Method::PATCH, &path)
        .header("If-Match", &etag)
        .json(&json!({"name": null, "recurrence": "DTSTART:20300101T180000\nRRULE:FREQ=MONTHLY;BYDAY=-1FR"}))
        .send()
        .await;
    let new_etag = patched.header("etag").expect("an ETag").to_owned();
    let patched = patched.data(200);
    assert_eq!(patched["name"], json!(null));
    assert_eq!(
        patched["next_run_at"], "2030-01-25T17:00:00Z",
        "the last Friday of January, 18:00 in Paris"
    );
    assert_ne!(new_etag, etag);
    app.call(reqwest::Method::PATCH, &path)
        .header("If-Match", &etag)
        .json(&json!({"enabled": false}))
        .send()
        .await
        .error(412, "precondition_failed");

    app.delete(&path).await.assert_status(204);
    app.get(&path).await.error(404, "not_found");
    app.delete(&path).await.error(404, "not_found");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_schedules_are_refused_naming_the_field_or_part() {
    let app = TestApp::spawn().await;
    let template = app.template.id.clone();
    let task = app.template.task("Collect documents")["id"].clone();
    let department = app.template.task("Collect documents")["custom_elements"][1]["id"].clone();
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"template_id": template, "recurrence": "DTSTART:20300107T090000\nRRULE:FREQ=HOURLY"}),
            "FREQ=HOURLY",
        ),
        (
            json!({"template_id": template, "recurrence": "DTSTART:20300107T090000\nRRULE:FREQ=MONTHLY;BYSETPOS=1;BYDAY=MO"}),
            "BYSETPOS",
        ),
        (
            json!({"template_id": template, "recurrence": "DTSTART:20300107T090000\nRRULE:FREQ=DAILY;BYMINUTE=0,5"}),
            "15 minutes",
        ),
        (
            json!({"template_id": template, "recurrence": "DTSTART:20300107T090000\nRRULE:FREQ=DAILY;UNTIL=20290101T000000Z"}),
            "UNTIL",
        ),
        (
            json!({"template_id": template, "recurrence": "RRULE:FREQ=DAILY"}),
            "DTSTART",
        ),
        (
            json!({"template_id": template, "recurrence": "DTSTART:20300107T090000\nRRULE:FREQ=DAILY\nEXDATE:20300108T090000"}),
            "EXDATE",
        ),
        (
            json!({"template_id": template, "recurrence": WEEKLY, "timezone": "Mars/Olympus"}),
            "timezone",
        ),
        (
            json!({"template_id": template, "recurrence": WEEKLY, "name": "  "}),
            "name",
        ),
        (
            json!({"template_id": template, "recurrence": WEEKLY, "name": ""}),
            "name",
        ),
        (
            json!({"template_id": template, "recurrence": WEEKLY, "run": {"name": " "}}),
            "run.name",
        ),
        (
            json!({"template_id": template, "recurrence": WEEKLY, "run": {"due_in": "P1M"}}),
            "run.due_in",
        ),
        (
            json!({"template_id": template, "recurrence": WEEKLY, "run": {"actor_email": "nobody"}}),
            "run.actor_email",
        ),
        (
            json!({"template_id": template, "recurrence": WEEKLY, "run": {"invite": {"email": "x"}}}),
            "run.invite.email",
        ),
        (
            json!({"template_id": template, "recurrence": WEEKLY, "run": {"invite": {"email": "g@x.example", "reminder_days": 0}}}),
            "run.invite.reminder_days",
        ),
        (
            json!({"template_id": template, "recurrence": WEEKLY, "run": {"custom_elements": [{"task_id": "x", "element_id": department, "value": "Eng"}]}}),
            "run.custom_elements[0].task_id",
        ),
        (
            json!({"template_id": template, "recurrence": WEEKLY, "run": {"custom_elements": [{"task_id": task, "element_id": department, "value": "Marketing"}]}}),
            "Marketing",
        ),
        (
            json!({"template_id": template, "recurrence": WEEKLY, "surprise": 1}),
            "surprise",
        ),
        (json!({"template_id": template}), "recurrence"),
    ];
    for (body, named) in cases {
        let message = app
            .post("/api/v1/schedules", &body)
            .await
            .error(400, "validation_error");
        assert!(message.contains(named), "{body}: {message}");
    }
    let id = create(
        &app,
        &json!({"template_id": template, "recurrence": WEEKLY}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let message = app
        .patch(
            &format!("/api/v1/schedules/{id}"),
            &json!({"recurrence": "DTSTART:20300107T090000\nRRULE:FREQ=WEEKLY;BYWEEKNO=2"}),
        )
        .await
        .error(400, "validation_error");
    assert!(message.contains("BYWEEKNO"), "{message}");
    let message = app
        .get("/api/v1/schedules?enabled=maybe")
        .await
        .error(400, "validation_error");
    assert!(message.contains("enabled"), "{message}");
}

#[tokio::test(flavor = "multi_thread")]
async fn another_teams_schedule_or_template_is_not_found_and_read_keys_only_read() {
    let app = TestApp::spawn().await;
    let created = create(
        &app,
        &json!({"template_id": app.template.id, "recurrence": WEEKLY}),
    )
    .await;
    let path = format!("/api/v1/schedules/{}", created["id"].as_str().unwrap());

    // Another team's key sees nothing of it.
    let other = |method, path: &str| app.call(method, path).key(&app.other_key);
    other(reqwest::Method::GET, &path)
        .send()
        .await
        .error(404, "not_found");
    other(reqwest::Method::PATCH, &path)
        .json(&json!({"enabled": false}))
        .send()
        .await
        .error(404, "not_found");
    other(reqwest::Method::DELETE, &path)
        .send()
        .await
        .error(404, "not_found");
    let (listed, _, _) = other(reqwest::Method::GET, "/api/v1/schedules")
        .send()
        .await
        .list();
    assert!(listed.is_empty());
    // Nor may it schedule this team's template.
    other(reqwest::Method::POST, "/api/v1/schedules")
        .json(&json!({"template_id": app.template.id, "recurrence": WEEKLY}))
        .send()
        .await
        .error(404, "not_found");
    app.post(
        "/api/v1/schedules",
        &json!({"template_id": unknown_id(), "recurrence": WEEKLY}),
    )
    .await
    .error(404, "not_found");
    app.post(
        "/api/v1/schedules",
        &json!({"template_id": "not-an-id", "recurrence": WEEKLY}),
    )
    .await
    .error(404, "not_found");
    app.get("/api/v1/schedules/not-an-id")
        .await
        .error(404, "not_found");
    app.get(&format!("/api/v1/schedules/{}", unknown_id()))
        .await
        .error(404, "not_found");

    let read = app.read_key().await;
    let reader = |method, path: &str| app.call(method, path).key(&read);
    reader(reqwest::Method::GET, &path).send().await.data(200);
    reader(reqwest::Method::GET, "/api/v1/schedules")
        .send()
        .await
        .list();
    reader(reqwest::Method::POST, "/api/v1/schedules")
        .json(&json!({"template_id": app.template.id, "recurrence": WEEKLY}))
        .send()
        .await
        .error(403, "forbidden");
    reader(reqwest::Method::PATCH, &path)
        .json(&json!({"enabled": false}))
        .send()
        .await
        .error(403, "forbidden");
    reader(reqwest::Method::DELETE, &path)
        .send()
        .await
        .error(403, "forbidden");
    app.get(&path).await.data(200);
}

/// The worker of two instances on one database, each ticking every second: a schedule due in
/// a few seconds starts exactly one run, by itself, and moves on to the next day.
#[tokio::test(flavor = "multi_thread")]
async fn the_workers_of_two_instances_start_a_due_occurrence_once() {
    let app = TestApp::with(procflow_tests::Options {
        worker: Some(procflow_server::config::WorkerSettings {
            scheduler_interval: std::time::Duration::from_secs(1),
            ..procflow_server::config::WorkerSettings::default()
        }),
        ..procflow_tests::Options::default()
    })
    .await;
    let _second = app.spawn_instance();
    let at = time::OffsetDateTime::now_utc() + time::Duration::seconds(3);
    let dtstart = format!(
        "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second()
    );
    let created = create(
        &app,
        &json!({
            "template_id": app.template.id,
            "recurrence": format!("DTSTART:{dtstart}\nRRULE:FREQ=DAILY"),
            "run": {"name": "Daily {date}"}
        }),
    )
    .await;
    let path = format!("/api/v1/schedules/{}", created["id"].as_str().unwrap());
    let runs_path = format!("/api/v1/process-runs?template_id={}", app.template.id);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let schedule = loop {
        let schedule = app.get(&path).await.data(200);
        if !schedule["last_run_id"].is_null() {
            break schedule;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no run within 30 s: {schedule}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };
    // Both workers have ticked past the occurrence by now; still one run.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let (runs, _, _) = app.get(&runs_path).await.list();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["id"], schedule["last_run_id"]);
    assert!(runs[0]["title"].as_str().unwrap().starts_with("Daily 20"));
    let next = time::OffsetDateTime::parse(
        schedule["next_run_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    assert_eq!(
        next.unix_timestamp(),
        (at + time::Duration::days(1)).unix_timestamp()
    );
    assert_eq!(schedule["missed_count"], 0);
}
