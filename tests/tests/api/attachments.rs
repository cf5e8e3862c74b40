//! Attachments over HTTP (API contract 14.2): a file uploaded as multipart, listed, downloaded
//! with its safe headers and deleted; every refusal with its code and nothing stored; the
//! webhook to a real receiver; a comment showing the task's attachments.

use std::time::Duration;

use procflow_files::{StorageUrl, testing};
use procflow_testkit::receiver::Receiver;
use procflow_tests::{Options, Reply, TestApp, assert_keys, verify, worker_settings};
use reqwest::Method;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::logic::Onboarding;

const WAIT: Duration = Duration::from_secs(20);

const BOUNDARY: &str = "procflow-test-boundary-7d1f";
const MULTIPART: &str = "multipart/form-data; boundary=procflow-test-boundary-7d1f";

const FIELDS: &[&str] = &[
    "id",
    "run_id",
    "task_id",
    "filename",
    "content_type",
    "size",
    "sha256",
    "uploaded_by",
    "created_at",
    "url",
];

/// A multipart body of one part `name` with this filename, type and bytes.
fn part(name: &str, filename: &str, content_type: &str, bytes: &[u8]) -> Vec<u8> {
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\nContent-Type: {content_type}\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// A run of the demo template, its first task, and the task's attachments path.
async fn task_of(app: &TestApp) -> (String, String, String) {
    let run = app.start_demo_run().await;
    let task = app.run_tasks(&run).await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!("/api/v1/process-runs/{run}/tasks/{task}/attachments");
    (run, task, path)
}

async fn upload(app: &TestApp, path: &str, body: Vec<u8>) -> Reply {
    app.call(Method::POST, path)
        .raw(body, Some(MULTIPART))
        .send()
        .await
}

/// The files under the app's storage directory.
fn stored_files(app: &TestApp) -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, found: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, found);
            } else {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(app.files_dir().unwrap(), &mut found);
    found
}

/// `GET url` with `key`: the status, the headers and the raw bytes.
async fn download(app: &TestApp, url: &str, key: &str) -> reqwest::Response {
    app.client
        .get(format!("{}{url}", app.base()))
        .bearer_auth(key)
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_is_uploaded_listed_downloaded_with_safe_headers_and_deleted() {
    let app = TestApp::spawn().await;
    let (run, task, path) = task_of(&app).await;
    let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let created = upload(
        &app,
        &path,
        part(
            "file",
            "../../etc/contrat \u{e9}t\u{e9}.pdf",
            "application/pdf",
            &bytes,
        ),
    )
    .await
    .data(201);
    assert_keys(&created, FIELDS);
    assert_eq!(created["run_id"], run);
    assert_eq!(created["task_id"], task);
    assert_eq!(created["filename"], "contrat \u{e9}t\u{e9}.pdf");
    assert_eq!(created["content_type"], "application/pdf");
    assert_eq!(created["size"], 200_000);
    let digest: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(created["sha256"], digest);
    assert_eq!(
        created["uploaded_by"],
        json!({"user_id": null, "email": null, "is_guest": false})
    );
    let url = created["url"].as_str().unwrap().to_owned();
    assert_eq!(
        url,
        format!(
            "/api/v1/attachments/{}/content",
            created["id"].as_str().unwrap()
        )
    );

    let (listed, _, more) = app.get(&path).await.list();
    assert_eq!(listed, std::slice::from_ref(&created));
    assert!(!more);

    let got = download(&app, &url, &app.key).await;
    assert_eq!(got.status(), 200);
    let header = |name: &str| got.headers()[name].to_str().unwrap().to_owned();
    assert_eq!(header("content-type"), "application/pdf");
    assert_eq!(header("x-content-type-options"), "nosniff");
    assert_eq!(header("content-security-policy"), "sandbox");
    assert_eq!(
        header("content-disposition"),
        "attachment; filename*=UTF-8''contrat%20%C3%A9t%C3%A9.pdf"
    );
    assert_eq!(header("content-length"), "200000");
    assert_eq!(got.bytes().await.unwrap().as_ref(), bytes.as_slice());

    // Markup is never served as itself.
    let page = upload(
        &app,
        &path,
        part("file", "x.html", "text/html", b"<script>alert(1)</script>"),
    )
    .await
    .data(201);
    let got = download(&app, page["url"].as_str().unwrap(), &app.key).await;
    assert_eq!(got.headers()["content-type"], "application/octet-stream");

    app.delete(&format!(
        "/api/v1/attachments/{}",
        created["id"].as_str().unwrap()
    ))
    .await
    .assert_status(204);
    assert_eq!(download(&app, &url, &app.key).await.status(), 404);
    let (listed, _, _) = app.get(&path).await.list();
    assert_eq!(listed, [page]);
    assert_eq!(stored_files(&app).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refusal_of_an_upload_has_its_code_and_stores_nothing() {
    let app = TestApp::with(Options {
        upload_max_bytes: Some(1000),
        ..Options::default()
    })
    .await;
    let (run, _, path) = task_of(&app).await;
    // One byte over: refused as the bytes pass the limit.
    upload(
        &app,
        &path,
        part("file", "a.bin", "application/octet-stream", &[7; 1001]),
    )
    .await
    .error(413, "payload_too_large");
    // A declared length over the limit and its envelope allowance: refused before reading.
    upload(
        &app,
        &path,
        part("file", "a.bin", "application/octet-stream", &[7; 70_000]),
    )
    .await
    .error(413, "payload_too_large");
    assert!(stored_files(&app).is_empty());
    assert!(app.get(&path).await.list().0.is_empty());
    // At the limit: taken.
    upload(
        &app,
        &path,
        part("file", "a.bin", "application/octet-stream", &[7; 1000]),
    )
    .await
    .data(201);

    app.post(&path, &json!({"file": "x"}))
        .await
        .error(415, "unsupported_media_type");
    let message = upload(&app, &path, part("other", "a.bin", "text/plain", b"x"))
        .await
        .error(400, "validation_error");
    assert!(message.contains("file"), "{message}");
    upload(&app, &path, b"not multipart at all".to_vec())
        .await
        .error(400, "validation_error");
    let missing = format!(
        "/api/v1/process-runs/{run}/tasks/{}/attachments",
        uuid::Uuid::now_v7()
    );
    upload(&app, &missing, part("file", "a", "text/plain", b"x"))
        .await
        .error(404, "not_found");

    // Another team's attachment is not found; a read key reads and may not write.
    let mine = upload(&app, &path, part("file", "b.txt", "text/plain", b"hello"))
        .await
        .data(201);
    let id = mine["id"].as_str().unwrap();
    let url = mine["url"].as_str().unwrap();
    assert_eq!(download(&app, url, &app.other_key).await.status(), 404);
    app.call(Method::DELETE, &format!("/api/v1/attachments/{id}"))
        .key(&app.other_key)
        .send()
        .await
        .error(404, "not_found");
    app.delete("/api/v1/attachments/not-an-id")
        .await
        .error(404, "not_found");
    let read = app.read_key().await;
    app.call(Method::POST, &path)
        .key(&read)
        .raw(part("file", "c.txt", "text/plain", b"x"), Some(MULTIPART))
        .send()
        .await
        .error(403, "forbidden");
    app.call(Method::DELETE, &format!("/api/v1/attachments/{id}"))
        .key(&read)
        .send()
        .await
        .error(403, "forbidden");
    let got = download(&app, url, &read).await;
    assert_eq!(got.status(), 200);
    assert_eq!(got.headers()["content-type"], "text/plain");
    assert_eq!(got.bytes().await.unwrap().as_ref(), b"hello");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parts_other_than_file_are_ignored_and_an_unreadable_part_name_is_a_400() {
    let app = TestApp::spawn().await;
    let (_, _, path) = task_of(&app).await;
    let with_note = |name: &str| {
        let mut body = format!(
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\nhello\r\n"
        )
        .into_bytes();
        body.extend(part("file", "a.txt", "text/plain", b"bytes"));
        body
    };
    let stored = upload(&app, &path, with_note("note.v-1_x")).await.data(201);
    assert_eq!(stored["size"], 5);
    // A part name with a control character cannot be read from its header: a 400 naming the
    // body, nothing stored beside the first file.
    let message = upload(&app, &path, with_note("bad\u{e}name"))
        .await
        .error(400, "validation_error");
    assert!(message.contains("file"), "{message}");
    assert_eq!(app.get(&path).await.list().0.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_with_an_idempotency_key_is_replayed_not_repeated() {
    let app = TestApp::spawn().await;
    let (_, _, path) = task_of(&app).await;
    let post = |bytes: &'static [u8]| {
        app.call(Method::POST, &path)
            .header("Idempotency-Key", "upload-1")
            .raw(part("file", "a.txt", "text/plain", bytes), Some(MULTIPART))
            .send()
    };
    let first = post(b"once").await.data(201);
    let again = post(b"once").await;
    assert_eq!(again.header("idempotency-replayed"), Some("true"));
    assert_eq!(first, again.data(201));
    // The same key with another file is another request, even of the same length (the body
    // is compared by the file's SHA-256, read again on the retry).
    post(b"twice").await.error(422, "idempotency_key_reused");
    post(b"ONCE").await.error(422, "idempotency_key_reused");
    // And with a body that carries no file at all.
    app.call(Method::POST, &path)
        .header("Idempotency-Key", "upload-1")
        .raw(part("note", "", "text/plain", b"once"), Some(MULTIPART))
        .send()
        .await
        .error(422, "idempotency_key_reused");
    assert_eq!(post(b"once").await.data(201), first);
    assert_eq!(app.get(&path).await.list().0.len(), 1);
    assert_eq!(stored_files(&app).len(), 1);
}

/// A bucket whose server is down: a port nothing listens on.
fn bucket_that_is_down() -> StorageUrl {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    testing::bucket_url("procflow", &format!("http://127.0.0.1:{port}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_to_a_bucket_that_is_down_is_a_503_to_retry_and_stores_nothing() {
    let app = TestApp::with(Options {
        storage_url: Some(bucket_that_is_down()),
        ..Options::default()
    })
    .await;
    let (_, _, path) = task_of(&app).await;
    let refused = upload(&app, &path, part("file", "a.txt", "text/plain", b"hello")).await;
    refused.error(503, "unavailable");
    assert!(refused.header("retry-after").is_some());
    assert!(app.get(&path).await.list().0.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hidden_task_refuses_uploads_and_a_completed_run_takes_them() {
    let app = TestApp::spawn().await;
    let onboarding = Onboarding::start(&app, &[]).await;
    let tasks = onboarding.tasks(&app).await;
    let hidden = tasks.iter().find(|t| t["hidden"] == true).unwrap();
    let path = format!(
        "/api/v1/process-runs/{}/tasks/{}/attachments",
        onboarding.run,
        hidden["id"].as_str().unwrap()
    );
    upload(&app, &path, part("file", "a.txt", "text/plain", b"x"))
        .await
        .error(409, "task_hidden");
    assert!(stored_files(&app).is_empty());

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
    let path = format!("/api/v1/process-runs/{run}/tasks/{task}/attachments");
    upload(&app, &path, part("file", "after.txt", "text/plain", b"x"))
        .await
        .data(201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_is_a_signed_webhook_and_is_in_the_feed() {
    let app = TestApp::with(Options {
        worker: Some(worker_settings("5s", true)),
        ..Options::default()
    })
    .await;
    let receiver = Receiver::start().await;
    let hook = app
        .create_webhook(&receiver.url(), Some(&["task.attachment_added"]))
        .await;
    let (run, task, path) = task_of(&app).await;
    let created = upload(
        &app,
        &path,
        part("file", "<b>x</b>.png", "image/png", b"\x89PNG"),
    )
    .await
    .data(201);
    let received = receiver.wait_for(1, WAIT).await;
    verify(&received[0], hook["secret"].as_str().unwrap());
    let event: Value = serde_json::from_slice(&received[0].body).unwrap();
    assert_eq!(event["event"], "task.attachment_added");
    assert_eq!(
        event["data"],
        json!({
            "attachment_id": created["id"],
            "task_id": task,
            "instance_id": run,
            "filename": "b>.png",
            "size": 4,
        })
    );
    let (feed, _, _) = app
        .get("/api/v1/events?event=task.attachment_added")
        .await
        .list();
    assert_eq!(feed, [event]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_comment_shows_the_attachments_it_names() {
    let app = TestApp::spawn().await;
    let (run, task, path) = task_of(&app).await;
    let file = upload(&app, &path, part("file", "a.txt", "text/plain", b"x"))
        .await
        .data(201);
    let comments = format!("/api/v1/process-runs/{run}/tasks/{task}/comments");
    let comment = app
        .post(
            &comments,
            &json!({"text": "attached", "attachment_ids": [file["id"]]}),
        )
        .await
        .data(201);
    assert_eq!(comment["attachments"], json!([file]));
    let message = app
        .post(
            &comments,
            &json!({"text": "attached", "attachment_ids": [uuid::Uuid::now_v7().to_string()]}),
        )
        .await
        .error(400, "validation_error");
    assert!(message.contains("attachment_ids[0]"), "{message}");

    app.delete(&format!(
        "/api/v1/attachments/{}",
        file["id"].as_str().unwrap()
    ))
    .await
    .assert_status(204);
    let (thread, _, _) = app.get(&comments).await.list();
    assert_eq!(thread[0]["attachments"], json!([]));
}
