//! Sharing a run with a guest (spec 2.8, 4.7; API contract 7): the share result, one guest per
//! run, team members refused, and stopping sharing.

use procflow_tests::{RUN_FIELDS, SHARE_FIELDS, TestApp, assert_keys, sized_document};
use serde_json::{Value, json};

fn invite_path(run_id: &str) -> String {
    format!("/api/v1/process-runs/{run_id}/invite")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inviting_without_an_email_shares_the_run_and_answers_the_share_result() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let share = app.post(&invite_path(&run_id), &json!({})).await.data(200);
    assert_keys(&share, SHARE_FIELDS);
    assert_eq!(share["run_id"], run_id.as_str());
    assert_eq!(share["invited_email"], Value::Null);
    assert_eq!(share["sent_process_run_id"], Value::Null);
    assert_eq!(share["is_shared"], true);
    let url = share["share_url"].as_str().unwrap();
    let prefix = format!("{}/instance/{run_id}?token=", app.team.base_url);
    assert!(url.starts_with(&prefix), "{url} on the team's address");
    let token = &url[prefix.len()..];
    assert!(token.len() >= 22, "a token of at least 128 bits: {token:?}");

    let run = app.run(&run_id).await;
    assert_eq!(run["is_shared"], true);
    let listed = app.all("/api/v1/process-runs").await;
    assert_eq!(listed[0]["is_shared"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inviting_a_guest_records_them_against_the_run() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let share = app
        .post(
            &invite_path(&run_id),
            &json!({"email": "guest@example.org", "enable_reminders": true, "reminder_days": 3}),
        )
        .await
        .data(200);
    assert_keys(&share, SHARE_FIELDS);
    assert_eq!(share["invited_email"], "guest@example.org");
    procflow_tests::uuid(&share["sent_process_run_id"]);
    assert_eq!(share["is_shared"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inviting_the_same_guest_again_answers_the_same_guest_and_a_new_link_beside_the_first() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let body = json!({"email": "guest@example.org"});
    let first = app.post(&invite_path(&run_id), &body).await.data(200);
    let again = app.post(&invite_path(&run_id), &body).await.data(200);
    let without_email = app.post(&invite_path(&run_id), &json!({})).await.data(200);
    assert_eq!(
        again["sent_process_run_id"], first["sent_process_run_id"],
        "same guest"
    );
    assert_eq!(again["invited_email"], first["invited_email"]);
    assert_eq!(without_email["invited_email"], serde_json::Value::Null);
    // Tokens are kept as digests only: an earlier link cannot be shown again, so each answer
    // is a link of its own, and every one of them opens the run.
    assert_ne!(again["share_url"], first["share_url"]);
    assert_ne!(without_email["share_url"], again["share_url"]);
    for answer in [&first, &again, &without_email] {
        let url = answer["share_url"].as_str().unwrap();
        let path = url.strip_prefix(app.base()).unwrap();
        app.open_page(path).await.assert_status(200);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_different_guest_is_refused() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    app.post(
        &invite_path(&run_id),
        &json!({"email": "guest@example.org"}),
    )
    .await
    .data(200);
    app.post(
        &invite_path(&run_id),
        &json!({"email": "other@example.org"}),
    )
    .await
    .error(409, "guest_already_invited");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_member_cannot_be_invited_as_a_guest() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    for email in ["member@a.example", "ADMIN@a.example", "former@a.example"] {
        let message = app
            .post(&invite_path(&run_id), &json!({"email": email}))
            .await
            .error(409, "guest_is_team_member");
        assert!(message.contains("actor_email"), "{message}");
    }
    assert_eq!(
        app.run(&run_id).await["is_shared"],
        false,
        "nothing was shared"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_invitations_are_refused() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    for body in [
        json!({"email": "not an email"}),
        json!({"email": 5}),
        json!({"reminder_days": 0, "email": "guest@example.org", "enable_reminders": true}),
        json!({"reminder_days": 366, "email": "guest@example.org", "enable_reminders": true}),
        json!({"reminder_days": 2.5, "email": "guest@example.org", "enable_reminders": true}),
        json!({"enable_reminders": "yes"}),
        json!({"cc": "guest@example.org"}),
    ] {
        app.post(&invite_path(&run_id), &body)
            .await
            .error(400, "validation_error");
    }
    assert_eq!(app.run(&run_id).await["is_shared"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_number_written_as_a_float_is_an_integer() {
    // JSON Schema's `integer` is any number without a fraction; the document says integer.
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let share = app
        .post(
            &invite_path(&run_id),
            &json!({"email": "guest@example.org", "enable_reminders": true, "reminder_days": 278.0}),
        )
        .await
        .data(200);
    assert_eq!(share["invited_email"], "guest@example.org");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_sharing_turns_it_off_and_a_new_share_gets_a_new_token() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let first = app
        .post(
            &invite_path(&run_id),
            &json!({"email": "guest@example.org"}),
        )
        .await
        .data(200);
    let run = app.delete(&invite_path(&run_id)).await.data(200);
    assert_keys(&run, RUN_FIELDS);
    assert_eq!(run["is_shared"], false);
    assert_eq!(app.run(&run_id).await["is_shared"], false);

    let second = app
        .post(
            &invite_path(&run_id),
            &json!({"email": "someone@example.org"}),
        )
        .await
        .data(200);
    assert_eq!(
        second["invited_email"], "someone@example.org",
        "the guest record was removed"
    );
    assert_ne!(
        second["share_url"], first["share_url"],
        "sharing again issues a new token"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_completed_run_can_be_shared() {
    let app = TestApp::spawn().await;
    let template = app.seed_published(&sized_document("One", 1)).await;
    let run_id = app.start_run(&json!({"template_id": template.id})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let task = app.task_id(&run_id, "Task 0").await;
    app.patch_task(&run_id, &task, &json!({"completed": true}))
        .await
        .data(200);
    let share = app.post(&invite_path(&run_id), &json!({})).await.data(200);
    assert_eq!(share["is_shared"], true);
}
