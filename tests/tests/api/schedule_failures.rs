//! A schedule's occurrence that starts no run, told (API contract 13.1): `schedule.failed` to a
//! real receiver (signed, subscribable by name, in the event feed) and an email to each active
//! admin of the team through a real SMTP server; no run, `last_error`, still enabled.

use std::time::Duration;

use procflow_domain::ids::UserId;
use procflow_domain::ports::TeamStore;
use procflow_domain::team::{Member, Role};
use procflow_server::config::WorkerSettings;
use procflow_testkit::receiver::Receiver;
use procflow_testkit::smtp::SmtpServer;
use procflow_tests::{Options, TestApp, smtp_config, verify, worker_settings};
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

const WAIT: Duration = Duration::from_secs(30);

fn instant(value: &Value) -> i64 {
    OffsetDateTime::parse(value.as_str().expect("a time"), &Rfc3339)
        .expect("RFC 3339")
        .unix_timestamp()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_occurrence_of_an_unpublished_template_is_a_signed_webhook_and_an_email_to_each_admin() {
    let smtp = SmtpServer::start();
    let app = TestApp::with(Options {
        worker: Some(WorkerSettings {
            mail: smtp_config(smtp.url()),
            scheduler_interval: Duration::from_secs(1),
            ..worker_settings("5s", true)
        }),
        ..Options::default()
    })
    .await;
    // A second active admin is told too; the member (member@a.example) is not.
    app.store
        .add_member(&Member {
            id: UserId::from_uuid(uuid::Uuid::now_v7()),
            team_id: app.team.id,
            email: "ops@a.example".parse().unwrap(),
            name: None,
            role: Role::Admin,
            active: true,
            created_at: app.team.created_at,
        })
        .await
        .unwrap();
    let receiver = Receiver::start().await;
    let hook = app
        .create_webhook(&receiver.url(), Some(&["schedule.failed"]))
        .await;
    let template = format!("/api/v1/process-templates/{}", app.template.id);
    app.post(&format!("{template}/publish"), &json!({"published": false}))
        .await
        .data(200);

    // Due in a few seconds, on the worker's own clock.
    let at = OffsetDateTime::now_utc() + time::Duration::seconds(3);
    let dtstart = format!(
        "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second()
    );
    let schedule = app
        .post(
            "/api/v1/schedules",
            &json!({
                "template_id": app.template.id,
                "name": "Weekly check",
                "recurrence": format!("DTSTART:{dtstart}\nRRULE:FREQ=DAILY"),
                "run": {"name": "Check {date}"}
            }),
        )
        .await
        .data(201);
    let path = format!("/api/v1/schedules/{}", schedule["id"].as_str().unwrap());

    let received = receiver.wait_for(1, WAIT).await;
    verify(&received[0], hook["secret"].as_str().unwrap());
    let event: Value = serde_json::from_slice(&received[0].body).unwrap();
    assert_eq!(event["event"], "schedule.failed");
    assert_eq!(event["test"], false);
    let failed = app.get(&path).await.data(200);
    let error = &failed["last_error"];
    assert_eq!(error["code"], "template_not_published", "{failed}");
    assert_eq!(
        (&failed["enabled"], &failed["last_run_id"]),
        (&json!(true), &Value::Null)
    );
    assert_eq!(
        instant(&event["data"]["occurrence_at"]),
        at.unix_timestamp()
    );
    assert_eq!(
        event["data"],
        json!({
            "schedule_id": schedule["id"],
            "template_id": app.template.id,
            "occurrence_at": event["data"]["occurrence_at"],
            "code": "template_not_published",
            "message": error["message"],
        })
    );
    assert_eq!(instant(&error["at"]), at.unix_timestamp());

    // One email to each active admin, none to the member.
    let mut messages = smtp.wait_for(2, WAIT);
    messages.sort_by(|a, b| a.rcpt_tos.cmp(&b.rcpt_tos));
    assert_eq!(
        messages
            .iter()
            .map(|m| m.rcpt_tos.clone())
            .collect::<Vec<_>>(),
        [["admin@a.example"], ["ops@a.example"]],
        "{messages:?}"
    );
    for message in &messages {
        assert_eq!(message.subject, "Schedule “Weekly check” started no run");
        let text = message.text.as_deref().unwrap();
        assert!(text.contains("(template_not_published)"), "{text}");
        assert!(text.contains("It stays enabled"), "{text}");
        assert!(message.message_id.ends_with(".schedule_failed@localhost>"));
    }

    // In the feed, by name; and no run was started.
    let (feed, _, _) = app.get("/api/v1/events?event=schedule.failed").await.list();
    assert_eq!(feed, std::slice::from_ref(&event));
    let (runs, _, _) = app
        .get(&format!(
            "/api/v1/process-runs?template_id={}",
            app.template.id
        ))
        .await
        .list();
    assert!(runs.is_empty(), "{runs:?}");
}
