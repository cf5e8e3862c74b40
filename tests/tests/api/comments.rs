//! Comments over HTTP (API contract 14.1): a thread written, listed, edited and deleted; every
//! refusal with its code; the webhook to a real receiver and the emails through a real SMTP
//! server, to the assignee and the members mentioned, never to the author.

use std::time::Duration;

use procflow_server::config::WorkerSettings;
use procflow_testkit::receiver::Receiver;
use procflow_testkit::smtp::SmtpServer;
use procflow_tests::{Options, TestApp, assert_keys, smtp_config, verify, worker_settings};
use serde_json::{Value, json};

use super::logic::Onboarding;

const WAIT: Duration = Duration::from_secs(20);

const COMMENT_FIELDS: &[&str] = &[
    "id",
    "run_id",
    "task_id",
    "author",
    "text",
    "mentions",
    "attachments",
    "deleted",
    "created_at",
    "edited_at",
];

/// A run of the demo template and its first task: the thread's path.
async fn thread(app: &TestApp) -> (String, String, String) {
    let run = app.start_demo_run().await;
    let task = app.run_tasks(&run).await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!("/api/v1/process-runs/{run}/tasks/{task}/comments");
    (run, task, path)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thread_is_written_listed_edited_and_deleted() {
    let app = TestApp::spawn().await;
    let (run, task, path) = thread(&app).await;
    let first = app
        .post(
            &path,
            &json!({"text": "<b>See</b> clause 4, @member@a.example.", "actor_email": "admin@a.example"}),
        )
        .await
        .data(201);
    assert_keys(&first, COMMENT_FIELDS);
    assert_eq!(first["run_id"], run);
    assert_eq!(first["task_id"], task);
    assert_eq!(
        first["author"],
        json!({"user_id": app.admin.id.to_string(), "email": "admin@a.example", "is_guest": false})
    );
    // Plain text, kept as written.
    assert_eq!(first["text"], "<b>See</b> clause 4, @member@a.example.");
    assert_eq!(first["mentions"], json!([app.member.id.to_string()]));
    assert_eq!(first["attachments"], json!([]));
    assert_eq!(first["deleted"], false);
    assert_eq!(first["edited_at"], Value::Null);
    let second = app.post(&path, &json!({"text": "second"})).await.data(201);
    assert_eq!(
        second["author"],
        json!({"user_id": null, "email": null, "is_guest": false})
    );

    let (page, cursor, more) = app.get(&format!("{path}?limit=1")).await.list();
    assert_eq!(page, std::slice::from_ref(&first));
    assert!(more);
    let (rest, _, more) = app
        .get(&format!("{path}?limit=1&cursor={}", cursor.unwrap()))
        .await
        .list();
    assert_eq!(rest, std::slice::from_ref(&second));
    assert!(!more);

    let id = first["id"].as_str().unwrap();
    let edited = app
        .patch(&format!("/api/v1/comments/{id}"), &json!({"text": "final"}))
        .await
        .data(200);
    assert_eq!(edited["text"], "final");
    assert_eq!(edited["mentions"], json!([]));
    assert!(edited["edited_at"].is_string());
    app.delete(&format!("/api/v1/comments/{id}"))
        .await
        .assert_status(204);
    app.delete(&format!("/api/v1/comments/{id}"))
        .await
        .assert_status(204);
    let (page, _, _) = app.get(&path).await.list();
    assert_eq!(page.len(), 2);
    assert_eq!(page[0]["id"], first["id"]);
    assert_eq!(page[0]["deleted"], true);
    assert_eq!(page[0]["text"], "");

    // A read key reads.
    let read = app.read_key().await;
    app.call(reqwest::Method::GET, &path)
        .key(&read)
        .send()
        .await
        .assert_status(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_with_an_idempotency_key_is_replayed_not_repeated() {
    let app = TestApp::spawn().await;
    let (_, _, path) = thread(&app).await;
    let post = |body: Value| {
        app.call(reqwest::Method::POST, &path)
            .header("Idempotency-Key", "comment-1")
            .json(&body)
            .send()
    };
    let first = post(json!({"text": "once"})).await.data(201);
    let again = post(json!({"text": "once"})).await.data(201);
    assert_eq!(first, again);
    assert_eq!(app.get(&path).await.list().0.len(), 1);
    post(json!({"text": "twice"}))
        .await
        .error(422, "idempotency_key_reused");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refusal_of_a_comment_has_its_code() {
    let app = TestApp::spawn().await;
    let (run, task, path) = thread(&app).await;
    for (body, field) in [
        (json!({"text": ""}), "text"),
        (json!({"text": "   "}), "text"),
        (json!({"text": "a\u{0}b"}), "text"),
        (json!({"text": "x".repeat(10_001)}), "text"),
        (
            json!({"text": "x", "attachment_ids": ["nope"]}),
            "attachment_ids[0]",
        ),
        (
            json!({"text": "x", "attachment_ids": ["0190d3c4-6f1e-7a4b-9c7d-2b1a3e4f5a6b"]}),
            "attachment_ids[0]",
        ),
        (json!({"text": "x", "html": true}), "html"),
        (json!({}), "text"),
    ] {
        let message = app.post(&path, &body).await.error(400, "validation_error");
        assert!(message.contains(field), "{body}: {message}");
    }
    // Unknown run, unknown task, another team's run.
    let unknown = "0190d3c4-6f1e-7a4b-9c7d-2b1a3e4f5a6b";
    app.post(
        &format!("/api/v1/process-runs/{unknown}/tasks/{task}/comments"),
        &json!({"text": "x"}),
    )
    .await
    .error(404, "not_found");
    app.get(&format!(
        "/api/v1/process-runs/{run}/tasks/{unknown}/comments"
    ))
    .await
    .error(404, "not_found");
    app.call(reqwest::Method::POST, &path)
        .key(&app.other_key)
        .json(&json!({"text": "x"}))
        .send()
        .await
        .error(404, "not_found");

    let comment = app.post(&path, &json!({"text": "ours"})).await.data(201);
    let at = format!("/api/v1/comments/{}", comment["id"].as_str().unwrap());
    // Another team's comment, an id that is none.
    app.call(reqwest::Method::PATCH, &at)
        .key(&app.other_key)
        .json(&json!({"text": "theirs"}))
        .send()
        .await
        .error(404, "not_found");
    app.call(reqwest::Method::DELETE, &at)
        .key(&app.other_key)
        .send()
        .await
        .error(404, "not_found");
    app.delete("/api/v1/comments/not-an-id")
        .await
        .error(404, "not_found");
    app.patch(&at, &json!({"text": ""}))
        .await
        .error(400, "validation_error");
    // A read key writes nothing.
    let read = app.read_key().await;
    for method in [
        reqwest::Method::POST,
        reqwest::Method::PATCH,
        reqwest::Method::DELETE,
    ] {
        let target = if method == reqwest::Method::POST {
            &path
        } else {
            &at
        };
        let mut call = app.call(method.clone(), target).key(&read);
        if method != reqwest::Method::DELETE {
            call = call.json(&json!({"text": "x"}));
        }
        call.send().await.error(403, "forbidden");
    }
    app.get(&at).await.error(405, "method_not_allowed");
    // A deleted comment cannot be edited.
    app.delete(&at).await.assert_status(204);
    app.patch(&at, &json!({"text": "back"}))
        .await
        .error(409, "conflict");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_under_if_match_needs_the_comments_current_etag() {
    let app = TestApp::spawn().await;
    let (_, _, path) = thread(&app).await;
    let created = app
        .call(reqwest::Method::POST, &path)
        .json(&json!({"text": "draft"}))
        .send()
        .await;
    let etag = created
        .header("etag")
        .expect("an ETag on create")
        .to_owned();
    let at = format!(
        "/api/v1/comments/{}",
        created.data(201)["id"].as_str().unwrap()
    );
    let edit = |tag: &str, text: &str| {
        app.call(reqwest::Method::PATCH, &at)
            .header("If-Match", tag)
            .json(&json!({"text": text}))
    };
    edit("{}", "x").send().await.error(400, "validation_error");
    edit("\"stale\"", "x")
        .send()
        .await
        .error(412, "precondition_failed");
    let edited = edit(&etag, "second").send().await;
    let second_etag = edited.header("etag").expect("an ETag on edit").to_owned();
    assert_eq!(edited.data(200)["text"], "second");
    assert_ne!(second_etag, etag);
    // The tag of the draft is stale now: the lost update is refused and nothing changes.
    edit(&etag, "lost")
        .send()
        .await
        .error(412, "precondition_failed");
    let (thread, _, _) = app.get(&path).await.list();
    assert_eq!(thread[0]["text"], "second");
    assert_eq!(edit("*", "third").send().await.data(200)["text"], "third");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hidden_task_refuses_comments_and_a_completed_run_takes_them() {
    let app = TestApp::spawn().await;
    let onboarding = Onboarding::start(&app, &[]).await;
    let tasks = onboarding.tasks(&app).await;
    let hidden = tasks.iter().find(|t| t["hidden"] == true).unwrap();
    let path = format!(
        "/api/v1/process-runs/{}/tasks/{}/comments",
        onboarding.run,
        hidden["id"].as_str().unwrap()
    );
    let message = app
        .post(&path, &json!({"text": "hello"}))
        .await
        .error(409, "task_hidden");
    assert!(message.contains("hidden"), "{message}");
    assert!(app.get(&path).await.list().0.is_empty());

    let run = app.start_demo_run().await;
    for task in app.run_tasks(&run).await {
        let id = task["id"].as_str().unwrap();
        let body = if task["type"] == "approval" {
            json!({"decision": "approved"})
        } else {
            json!({"completed": true})
        };
        app.patch_task(&run, id, &body).await.data(200);
    }
    assert_eq!(app.run(&run).await["status"], "completed");
    let task = app.run_tasks(&run).await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.post(
        &format!("/api/v1/process-runs/{run}/tasks/{task}/comments"),
        &json!({"text": "after the work"}),
    )
    .await
    .data(201);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_comment_is_a_signed_webhook_and_emails_the_assignee_and_the_mentioned_not_the_author() {
    let smtp = SmtpServer::start();
    let app = TestApp::with(Options {
        worker: Some(WorkerSettings {
            mail: smtp_config(smtp.url()),
            ..worker_settings("5s", true)
        }),
        ..Options::default()
    })
    .await;
    let receiver = Receiver::start().await;
    let hook = app
        .create_webhook(&receiver.url(), Some(&["task.comment_created"]))
        .await;
    let (run, task, path) = thread(&app).await;
    let share = app
        .post(
            &format!("/api/v1/process-runs/{run}/invite"),
            &json!({"email": "guest@example.org"}),
        )
        .await
        .data(200);
    app.patch_task(&run, &task, &json!({"assignee": "guest@example.org"}))
        .await
        .data(200);
    // The invitation and the assignment.
    assert_eq!(smtp.wait_for(2, WAIT).len(), 2);

    let comment = app
        .post(
            &path,
            &json!({"text": "Please sign, @member@a.example and @admin@a.example <script>", "actor_email": "admin@a.example"}),
        )
        .await
        .data(201);
    let received = receiver.wait_for(1, WAIT).await;
    verify(&received[0], hook["secret"].as_str().unwrap());
    let event: Value = serde_json::from_slice(&received[0].body).unwrap();
    assert_eq!(event["event"], "task.comment_created");
    assert_eq!(
        event["data"],
        json!({
            "comment_id": comment["id"],
            "task_id": task,
            "instance_id": run,
            "author": {"user_id": app.admin.id.to_string(), "email": "admin@a.example", "is_guest": false},
            "text_excerpt": "Please sign, @member@a.example and @admin@a.example <script>",
        })
    );
    let (feed, _, _) = app
        .get("/api/v1/events?event=task.comment_created")
        .await
        .list();
    assert_eq!(feed, [event]);

    let messages = smtp.wait_for(4, WAIT);
    let comments: Vec<_> = messages
        .iter()
        .filter(|m| m.subject.starts_with("New comment"))
        .collect();
    let mut to: Vec<&str> = comments.iter().map(|m| m.rcpt_tos[0].as_str()).collect();
    to.sort_unstable();
    assert_eq!(
        to,
        ["guest@example.org", "member@a.example"],
        "{messages:?}"
    );
    let member = comments
        .iter()
        .find(|m| m.rcpt_tos == ["member@a.example"])
        .unwrap();
    let text = member.text.as_deref().unwrap();
    assert!(text.contains("admin@a.example mentioned you"), "{text}");
    assert!(text.contains("> Please sign"), "{text}");
    let html = member.html.as_deref().unwrap();
    assert!(!html.contains("<script>"), "{html}");
    assert!(member.message_id.ends_with(".task_comment@localhost>"));
    // The guest, the assignee: a share link of its own that opens the run.
    let guest = comments
        .iter()
        .find(|m| m.rcpt_tos == ["guest@example.org"])
        .unwrap();
    let text = guest.text.as_deref().unwrap();
    assert!(text.contains("commented on your task"), "{text}");
    let run_page = share["share_url"]
        .as_str()
        .unwrap()
        .split("?token=")
        .next()
        .unwrap()
        .to_owned();
    let link = text
        .split_whitespace()
        .find(|word| word.starts_with(&run_page))
        .unwrap_or_else(|| panic!("no link to {run_page} in {text}"));
    app.open_page(link.strip_prefix(app.base()).unwrap())
        .await
        .assert_status(200);
}
