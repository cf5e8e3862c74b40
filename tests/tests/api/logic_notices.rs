//! A task unblocked, told (API contract 12.2): `process_step.unblocked` to a real receiver
//! (signed, subscribable by name, in the event feed) and a "ready to start" email to its
//! assignee through a real SMTP server (the share link for the run's guest), once per
//! unblocking.

use std::time::Duration;

use procflow_server::config::WorkerSettings;
use procflow_testkit::receiver::Receiver;
use procflow_testkit::smtp::{Email, SmtpServer};
use procflow_tests::{Options, TestApp, smtp_config, verify, worker_settings};
use serde_json::{Value, json};

use super::logic::Onboarding;

const WAIT: Duration = Duration::from_secs(20);

async fn app(smtp: &SmtpServer) -> TestApp {
    TestApp::with(Options {
        worker: Some(WorkerSettings {
            mail: smtp_config(smtp.url()),
            ..worker_settings("5s", true)
        }),
        ..Options::default()
    })
    .await
}

fn ready(messages: &[Email]) -> Vec<&Email> {
    messages
        .iter()
        .filter(|m| m.subject.starts_with("Ready to start"))
        .collect()
}

fn complete() -> Value {
    json!({"completed": true})
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unblocked_task_is_a_signed_webhook_and_one_ready_email_to_its_assignee() {
    let smtp = SmtpServer::start();
    let app = app(&smtp).await;
    let receiver = Receiver::start().await;
    let hook = app
        .create_webhook(&receiver.url(), Some(&["process_step.unblocked"]))
        .await;
    let onboarding = Onboarding::start(&app, &[]).await;
    onboarding
        .patch(
            &app,
            "grant-access",
            &json!({"assignee": "member@a.example"}),
        )
        .await
        .data(200);
    assert_eq!(
        smtp.wait_for(1, WAIT)[0].rcpt_tos,
        ["member@a.example"],
        "the assignment"
    );

    onboarding
        .patch(&app, "security-training", &complete())
        .await
        .data(200);
    onboarding
        .patch(&app, "manager-approval", &complete())
        .await
        .data(200);
    let received = receiver.wait_for(1, WAIT).await;
    let event: Value = serde_json::from_slice(&received[0].body).unwrap();
    verify(&received[0], hook["secret"].as_str().unwrap());
    let grant = onboarding.task(&app, "grant-access").await;
    assert_eq!(event["event"], "process_step.unblocked");
    assert_eq!(
        event["data"],
        json!({
            "task_id": grant["id"],
            "instance_id": onboarding.run,
            "template_task_id": grant["template_task_id"],
            "title": "Grant production access",
            "assignee": app.member.id.to_string(),
        })
    );

    let messages = smtp.wait_for(2, WAIT);
    let notices = ready(&messages);
    assert_eq!(notices.len(), 1, "{messages:?}");
    assert_eq!(notices[0].rcpt_tos, ["member@a.example"]);
    assert_eq!(
        notices[0].subject,
        "Ready to start: “Grant production access” in “Employee onboarding”"
    );
    let text = notices[0].text.as_deref().unwrap();
    assert!(text.contains("is ready to start"), "{text}");
    assert!(notices[0].message_id.ends_with(".task_ready@localhost>"));

    // In the feed, by name.
    let (feed, _, _) = app
        .get("/api/v1/events?event=process_step.unblocked")
        .await
        .list();
    assert_eq!(feed, std::slice::from_ref(&event));

    // Blocked again by a reopened prerequisite, unblocked again: told again, once more.
    onboarding
        .patch(&app, "manager-approval", &json!({"completed": false}))
        .await
        .data(200);
    onboarding
        .patch(&app, "manager-approval", &complete())
        .await
        .data(200);
    assert_eq!(receiver.wait_for(2, WAIT).await.len(), 2);
    let messages = smtp.wait_for(3, WAIT);
    assert_eq!(ready(&messages).len(), 2);
    // Nothing more comes of a change that unblocks nothing: the feed, written with each
    // change, holds the two.
    onboarding
        .patch(&app, "grant-access", &complete())
        .await
        .data(200);
    let (feed, _, _) = app
        .get("/api/v1/events?event=process_step.unblocked")
        .await
        .list();
    assert_eq!(feed.len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_runs_guest_is_told_with_the_share_link() {
    let smtp = SmtpServer::start();
    let app = app(&smtp).await;
    let onboarding = Onboarding::start(&app, &[]).await;
    let share = app
        .post(
            &format!("/api/v1/process-runs/{}/invite", onboarding.run),
            &json!({"email": "guest@example.org"}),
        )
        .await
        .data(200);
    onboarding
        .patch(
            &app,
            "grant-access",
            &json!({"assignee": "guest@example.org"}),
        )
        .await
        .data(200);
    for task in ["security-training", "manager-approval"] {
        onboarding.patch(&app, task, &complete()).await.data(200);
    }
    // The invitation, the assignment and the notice.
    let messages = smtp.wait_for(3, WAIT);
    let notices = ready(&messages);
    assert_eq!(notices.len(), 1, "{messages:?}");
    assert_eq!(notices[0].rcpt_tos, ["guest@example.org"]);
    // A link of its own (the server keeps only digests of share tokens, so it cannot repeat
    // the invitation's), to the same run, that opens it.
    let invited = share["share_url"].as_str().unwrap();
    let run_page = invited.split("?token=").next().unwrap();
    let text = notices[0].text.as_deref().unwrap();
    let link = text
        .split_whitespace()
        .find(|word| word.starts_with(run_page))
        .unwrap_or_else(|| panic!("no link to {run_page} in {text}"));
    assert!(
        notices[0]
            .html
            .as_deref()
            .unwrap()
            .contains(&format!("href=\"{}\"", link.replace('&', "&amp;")))
    );
    let path = link.strip_prefix(app.base()).unwrap();
    app.open_page(path).await.assert_status(200);
}
