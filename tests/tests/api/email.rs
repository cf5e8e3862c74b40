//! Emails (API contract 8.4) against a real SMTP server on loopback (aiosmtpd, started by the
//! test): what each message says and to whom, the reminder and overdue rules driven through a
//! clock the test moves, retries of 4xx replies and none of 5xx, two instances, and the mail
//! folder of a developer's machine.

use std::time::Duration;

use procflow_notify::MailConfig;
use procflow_server::config::WorkerSettings;
use procflow_testkit::smtp::{Email, SmtpServer};
use procflow_tests::{MailWorld, Options, TestApp, smtp_config, test_clock};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(20);

async fn start_run(app: &TestApp, body: Value) -> String {
    let mut body = body;
    body["template_id"] = json!(app.template.id);
    app.start_run(&body).await["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn invite(app: &TestApp, run: &str, body: Value) -> Value {
    app.post(&format!("/api/v1/process-runs/{run}/invite"), &body)
        .await
        .data(200)
}

fn to<'a>(messages: &'a [Email], address: &str) -> Vec<&'a Email> {
    messages
        .iter()
        .filter(|m| m.rcpt_tos == [address])
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_invitation_sent_by_the_server_holds_the_link_both_parts_and_a_message_id() {
    let smtp = SmtpServer::start();
    let app = TestApp::with(Options {
        worker: Some(WorkerSettings {
            mail: smtp_config(smtp.url()),
            ..WorkerSettings::default()
        }),
        ..Options::default()
    })
    .await;
    let run = start_run(&app, json!({"name": "Onboarding <Ada>"})).await;
    let share = invite(&app, &run, json!({"email": "Guest@Example.org"})).await;
    let link = share["share_url"].as_str().unwrap();

    let mail = &smtp.wait_for(1, WAIT)[0];
    assert_eq!(mail.rcpt_tos, ["guest@example.org"]);
    assert_eq!(mail.to, "guest@example.org");
    assert_eq!(mail.from, "Team A <procflow@localhost>");
    assert_eq!(mail.subject, "Team A invited you to “Onboarding <Ada>”");
    assert_eq!(mail.content_type, "multipart/alternative");
    let text = mail.text.as_deref().unwrap();
    assert!(
        text.contains("Team A has shared “Onboarding <Ada>” with you."),
        "{text}"
    );
    assert!(text.contains(link), "{text}");
    let html = mail.html.as_deref().unwrap();
    assert!(
        html.contains("Onboarding &#60;Ada&#62;") || html.contains("Onboarding &lt;Ada&gt;"),
        "{html}"
    );
    assert!(!html.contains("<Ada>"), "{html}");
    assert!(html.contains(&format!("href=\"{link}\"")), "{html}");
    let id = mail.message_id.as_str();
    assert!(
        id.starts_with('<') && id.ends_with(".guest_invitation@localhost>"),
        "{id}"
    );
    assert_eq!(id.len(), "<.guest_invitation@localhost>".len() + 36, "{id}");
}

#[tokio::test(flavor = "multi_thread")]
async fn assignment_emails_go_out_for_each_of_the_three_triggers() {
    let smtp = SmtpServer::start();
    let app = TestApp::spawn().await;
    let clock = test_clock();
    let world = MailWorld::new(app.db_url(), &smtp_config(smtp.url()), clock);

    // A run attributed to a member: the runner's task is theirs (spec 4.6 rule 5).
    let runner_run = start_run(&app, json!({"actor_email": "member@a.example"})).await;
    // A template task assigned to an email.
    let mut document = procflow_tests::demo_document();
    document["sections"][1]["tasks"][1]["assignee"] = json!("member@a.example");
    let assigned = app.seed_published(&document).await;
    let plain = app
        .start_run(&json!({"template_id": assigned.id, "name": "Assigned by the template"}))
        .await;
    // PATCH assignee: an outsider, then the run's guest (who gets the share link).
    let task = app.task_id(&runner_run, "Say hello").await;
    app.patch_task(
        &runner_run,
        &task,
        &json!({"assignee": "Outsider@Elsewhere.example"}),
    )
    .await
    .data(200);
    let share = invite(&app, &runner_run, json!({"email": "guest@example.org"})).await;
    let lunch = app.task_id(&runner_run, "Team lunch").await;
    app.patch_task(
        &runner_run,
        &lunch,
        &json!({"assignee": "guest@example.org"}),
    )
    .await
    .data(200);
    world.pump().await;

    let messages = smtp.wait_for(5, WAIT);
    let member = to(&messages, "member@a.example");
    assert_eq!(member.len(), 2, "{messages:#?}");
    let runner = member
        .iter()
        .find(|m| m.subject == "You were assigned “Collect documents” in “Employee onboarding”")
        .expect("the runner's task");
    let text = runner.text.as_deref().unwrap();
    assert!(text.contains("You have been assigned the task “Collect documents” in “Employee onboarding” of Team A."), "{text}");
    assert!(text.contains("It is due on "), "{text}");
    assert!(
        !text.contains("token="),
        "a member gets no share link: {text}"
    );
    assert!(
        member
            .iter()
            .any(|m| m.subject == "You were assigned “Team lunch” in “Assigned by the template”")
    );
    assert_eq!(plain["title"], "Assigned by the template");

    let outsider = to(&messages, "outsider@elsewhere.example");
    assert_eq!(outsider.len(), 1);
    assert_eq!(
        outsider[0].subject,
        "You were assigned “Say hello” in “Employee onboarding”"
    );

    let guest: Vec<_> = to(&messages, "guest@example.org");
    let assignment = guest
        .iter()
        .find(|m| m.subject.starts_with("You were assigned “Team lunch”"))
        .expect("the guest's assignment");
    // A link of its own (the server keeps only digests, so it cannot repeat the invite's),
    // to the same run, that opens it.
    let invited = share["share_url"].as_str().unwrap();
    let run_page = invited.split("?token=").next().unwrap();
    let text = assignment.text.as_deref().unwrap();
    let link = text
        .split_whitespace()
        .find(|word| word.starts_with(run_page))
        .unwrap_or_else(|| panic!("no link to {run_page} in {text}"));
    assert_ne!(link, invited);
    assert!(
        assignment
            .html
            .as_deref()
            .unwrap()
            .contains(&format!("href=\"{}\"", link.replace('&', "&amp;"))),
    );
    let path = link.strip_prefix(app.base()).unwrap();
    app.open_page(path).await.assert_status(200);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_reminder_goes_once_to_a_guest_who_has_not_opened_the_page_of_an_active_run() {
    let smtp = SmtpServer::start();
    let app = TestApp::spawn().await;
    let clock = test_clock();
    let world = MailWorld::new(app.db_url(), &smtp_config(smtp.url()), clock.clone());
    let reminders = json!({"enable_reminders": true, "reminder_days": 2});
    let with = |email: &str| {
        let mut body = reminders.clone();
        body["email"] = json!(email);
        body
    };
    let waiting = start_run(&app, json!({"name": "Waiting"})).await;
    invite(&app, &waiting, with("waiting@example.org")).await;
    let opened = start_run(&app, json!({"name": "Opened"})).await;
    let share = invite(&app, &opened, with("opened@example.org")).await;
    let page = app
        .client
        .get(share["share_url"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let done = start_run(&app, json!({"name": "Done"})).await;
    invite(&app, &done, with("done@example.org")).await;
    for task in app.run_tasks(&done).await {
        let id = task["id"].as_str().unwrap();
        app.patch_task(&done, id, &json!({"completed": true}))
            .await
            .data(200);
    }
    assert_eq!(app.run(&done).await["status"], "completed");
    let silent = start_run(&app, json!({"name": "No reminders"})).await;
    invite(&app, &silent, json!({"email": "silent@example.org"})).await;

    world.pump().await;
    assert_eq!(smtp.wait_for(4, WAIT).len(), 4, "the four invitations");
    clock.advance(time::Duration::days(1));
    world.pump().await;
    assert_eq!(smtp.messages().len(), 4, "not yet: reminder_days is 2");

    clock.advance(time::Duration::days(1) + time::Duration::hours(1));
    world.pump().await;
    let messages = smtp.wait_for(5, WAIT);
    let reminder = &messages[4];
    assert_eq!(reminder.rcpt_tos, ["waiting@example.org"]);
    assert_eq!(reminder.subject, "Reminder: “Waiting” is waiting for you");
    assert!(reminder.text.as_deref().unwrap().contains("/instance/"));
    assert!(reminder.message_id.ends_with(".guest_reminder@localhost>"));

    clock.advance(time::Duration::days(10));
    world.pump().await;
    world.pump().await;
    assert_eq!(smtp.messages().len(), 5, "{:#?}", smtp.messages());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_overdue_task_notifies_its_assignee_once_and_again_a_day_later() {
    let smtp = SmtpServer::start();
    let app = TestApp::spawn().await;
    let clock = test_clock();
    let world = MailWorld::new(app.db_url(), &smtp_config(smtp.url()), clock.clone());
    // "Collect documents" is the runner's, due three days after the start.
    let run = start_run(
        &app,
        json!({"actor_email": "member@a.example", "name": "Late"}),
    )
    .await;
    world.pump().await;
    assert_eq!(
        smtp.wait_for(1, WAIT)[0].subject,
        "You were assigned “Collect documents” in “Late”"
    );

    clock.advance(time::Duration::days(2));
    world.pump().await;
    assert_eq!(smtp.messages().len(), 1, "not due yet");
    clock.advance(time::Duration::days(1) + time::Duration::hours(1));
    world.pump().await;
    world.pump().await;
    let messages = smtp.wait_for(2, WAIT);
    let overdue = &messages[1];
    assert_eq!(overdue.rcpt_tos, ["member@a.example"]);
    assert_eq!(overdue.subject, "Overdue: “Collect documents” in “Late”");
    assert!(
        overdue
            .text
            .as_deref()
            .unwrap()
            .contains("is past its due date and still open")
    );
    assert!(overdue.message_id.ends_with(".task_overdue@localhost>"));

    clock.advance(time::Duration::hours(23));
    world.pump().await;
    assert_eq!(smtp.messages().len(), 2, "once a day");
    clock.advance(time::Duration::hours(2));
    world.pump().await;
    let messages = smtp.wait_for(3, WAIT);
    assert_eq!(
        messages[2].subject,
        "Overdue: “Collect documents” in “Late”"
    );
    assert_ne!(
        messages[2].message_id, overdue.message_id,
        "another notice, another id"
    );

    let task = app.task_id(&run, "Collect documents").await;
    app.patch_task(&run, &task, &json!({"completed": true}))
        .await
        .data(200);
    clock.advance(time::Duration::days(3));
    world.pump().await;
    assert_eq!(smtp.messages().len(), 3, "no notice once it is completed");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_4xx_reply_is_retried_on_the_schedule_and_a_5xx_fails_the_email_at_once() {
    let smtp = SmtpServer::start();
    let app = TestApp::spawn().await;
    let clock = test_clock();
    let world = MailWorld::new(app.db_url(), &smtp_config(smtp.url()), clock.clone());
    let soft = start_run(&app, json!({"name": "Soft"})).await;
    invite(&app, &soft, json!({"email": "soft-guest@example.org"})).await;
    let hard = start_run(&app, json!({"name": "Hard"})).await;
    invite(&app, &hard, json!({"email": "hard-guest@example.org"})).await;

    world.pump().await;
    // The sends are over; the server's report of them may still be on its way to the test.
    let mut refused = smtp.wait_for_refused(2, WAIT);
    refused.sort();
    assert_eq!(
        refused,
        [
            ("hard-guest@example.org".to_owned(), 550),
            ("soft-guest@example.org".to_owned(), 451)
        ]
    );
    assert!(smtp.messages().is_empty());

    // The first wait of the default schedule is 5 s ± 20 %.
    clock.advance(time::Duration::seconds(7));
    world.pump().await;
    let messages = smtp.wait_for(1, WAIT);
    assert_eq!(messages[0].rcpt_tos, ["soft-guest@example.org"]);
    assert_eq!(messages[0].subject, "Team A invited you to “Soft”");

    clock.advance(time::Duration::days(2));
    world.pump().await;
    assert_eq!(smtp.refused().len(), 2, "the 5xx was not tried again");
    assert_eq!(smtp.messages().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn two_instances_send_each_notice_once() {
    let smtp = SmtpServer::start();
    let app = TestApp::spawn().await;
    let clock = test_clock();
    let config = smtp_config(smtp.url());
    let one = MailWorld::new(app.db_url(), &config, clock.clone());
    let two = MailWorld::new(app.db_url(), &config, clock.clone());
    let mut runs = Vec::new();
    for i in 0..4 {
        let run = start_run(
            &app,
            json!({"actor_email": "member@a.example", "name": format!("Run {i}")}),
        )
        .await;
        invite(&app, &run, json!({"email": format!("guest{i}@example.org"), "enable_reminders": true, "reminder_days": 1})).await;
        runs.push(run);
    }
    tokio::join!(one.pump(), two.pump());
    tokio::join!(one.pump(), two.pump());
    // 4 assignments and 4 invitations.
    assert_eq!(smtp.wait_for(8, WAIT).len(), 8);

    // Then 4 reminders (a day on) and 4 overdue notices (three days on), raised by both at once.
    clock.advance(time::Duration::days(3) + time::Duration::hours(1));
    for _ in 0..3 {
        tokio::join!(one.pump(), two.pump());
    }
    let messages = smtp.wait_for(16, WAIT);
    let mut notices: Vec<(String, String)> = messages[8..]
        .iter()
        .map(|m| (m.rcpt_tos[0].clone(), m.subject.clone()))
        .collect();
    notices.sort();
    let mut expected: Vec<(String, String)> = (0..4)
        .flat_map(|i| {
            [
                (
                    format!("guest{i}@example.org"),
                    format!("Reminder: “Run {i}” is waiting for you"),
                ),
                (
                    "member@a.example".to_owned(),
                    format!("Overdue: “Collect documents” in “Run {i}”"),
                ),
            ]
        })
        .collect();
    expected.sort();
    assert_eq!(notices, expected);
    tokio::join!(one.pump(), two.pump());
    assert_eq!(smtp.messages().len(), 16);
}

#[tokio::test(flavor = "multi_thread")]
async fn with_a_mail_folder_each_email_is_an_eml_file_there() {
    let app = TestApp::spawn().await;
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("mail");
    let config = MailConfig {
        dir: Some(folder.clone()),
        ..MailConfig::default()
    };
    let world = MailWorld::new(app.db_url(), &config, test_clock());
    let run = start_run(&app, json!({"name": "Local"})).await;
    invite(&app, &run, json!({"email": "guest@example.org"})).await;
    world.pump().await;

    let files: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0].extension().unwrap(), "eml");
    let eml = std::fs::read_to_string(&files[0]).unwrap();
    assert!(eml.contains("To: guest@example.org"), "{eml}");
    assert!(
        eml.contains("From: \"Team A\" <procflow@localhost>")
            || eml.contains("From: Team A <procflow@localhost>"),
        "{eml}"
    );
    assert!(eml.contains(".guest_invitation@localhost>"), "{eml}");
    assert!(eml.contains("multipart/alternative"), "{eml}");
}

/// The one email's status, attempts and error, read from its row.
async fn email_row(app: &TestApp) -> (String, i64, Option<String>) {
    let rows = procflow_postgres::testing::rows(
        app.db_url(),
        "SELECT status, attempts, error FROM emails",
    )
    .await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    (
        row["status"].as_str().unwrap().to_owned(),
        row["attempts"].as_i64().unwrap(),
        row["error"].as_str().map(str::to_owned),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_team_name_stored_with_a_line_break_before_the_rule_is_sent_on_one_line() {
    let smtp = SmtpServer::start();
    let app = TestApp::spawn().await;
    let world = MailWorld::new(app.db_url(), &smtp_config(smtp.url()), test_clock());
    // A row from before names were checked where they are set: the worker's panic on it left
    // its email `sending` and took it again past the schedule (11 attempts of 8).
    procflow_postgres::testing::execute(
        app.db_url(),
        &format!(
            "UPDATE teams SET name = E'Acme\\r\\nBcc: evil@example.org' WHERE id = '{}'",
            app.team.id
        ),
    )
    .await;
    let run = start_run(&app, json!({})).await;
    invite(&app, &run, json!({"email": "guest@example.org"})).await;
    world.pump().await;

    let mail = &smtp.wait_for(1, WAIT)[0];
    assert_eq!(mail.rcpt_tos, ["guest@example.org"], "no Bcc was added");
    assert!(
        !mail.from.contains('\n') && !mail.from.contains('\r'),
        "{:?}",
        mail.from
    );
    assert!(
        mail.from.contains("Acme") && mail.from.ends_with("<procflow@localhost>"),
        "{:?}",
        mail.from
    );
    assert_eq!(email_row(&app).await, ("sent".to_owned(), 1, None));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_email_whose_last_attempt_never_reported_fails_instead_of_going_again() {
    let smtp = SmtpServer::start();
    let app = TestApp::spawn().await;
    let world = MailWorld::new(app.db_url(), &smtp_config(smtp.url()), test_clock());
    let run = start_run(&app, json!({})).await;
    invite(&app, &run, json!({"email": "guest@example.org"})).await;
    world.fan_out().await;
    // Its eighth and last attempt was taken by a worker that died: held, the lease run out.
    // (A lease written out, not gen_random_uuid(): Citus refuses a volatile function in an
    // UPDATE, and `make test-citus` runs this too.)
    procflow_postgres::testing::execute(
        app.db_url(),
        "UPDATE emails SET status = 'sending', attempts = 8, \
         lease = '5e1d0a7e-0000-4000-8000-000000000008', due_at = now() - interval '1 minute'",
    )
    .await;
    world.pump().await;
    let (status, attempts, error) = email_row(&app).await;
    assert_eq!((status.as_str(), attempts), ("failed", 9));
    assert!(
        error
            .unwrap()
            .starts_with("not sent: attempt 9 of a schedule of 8")
    );
    world.pump().await;
    assert_eq!(smtp.messages().len(), 0, "never sent after its schedule");
    assert_eq!(email_row(&app).await.1, 9, "and never taken again");
}
