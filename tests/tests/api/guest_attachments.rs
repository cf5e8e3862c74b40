//! Files on the guest page (API contract 14.2, 7.1): each visible task lists its attachments
//! (escaped, sized, their uploader named) with a link through the share token; the tasks the
//! guest may act on take an upload of their own, stored through the API's use case as the
//! guest; every refusal is a page and stores nothing; a download serves only a visible task's
//! file of the shared run, with the API's safe headers.

use procflow_domain::event::EventPayload;
use procflow_domain::team::Subscription;
use procflow_tests::{MULTIPART, Options, Page, TestApp, multipart_file};
use reqwest::Method;
use serde_json::{Value, json};

use super::logic::Onboarding;

const HOSTILE_NAME: &str = "<img src=x onerror=alert(1)>.html";

async fn listed(app: &TestApp, run: &str, task: &str) -> Vec<Value> {
    app.get(&format!(
        "/api/v1/process-runs/{run}/tasks/{task}/attachments"
    ))
    .await
    .list()
    .0
}

/// The files under the app's storage directory.
fn stored_files(app: &TestApp) -> usize {
    fn walk(dir: &std::path::Path) -> usize {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| {
                let path = entry.path();
                if path.is_dir() { walk(&path) } else { 1 }
            })
            .sum()
    }
    walk(app.files_dir().unwrap())
}

/// `GET path` without a key: the raw answer, bytes and headers.
async fn fetch(app: &TestApp, path: &str) -> reqwest::Response {
    app.client
        .get(format!("{}{path}", app.base()))
        .send()
        .await
        .unwrap()
}

/// A run and task of the other team, started from a template of its own.
async fn other_teams_task(app: &TestApp) -> (String, String) {
    let call = |method: Method, path: String, body: Value| async move {
        app.call(method, &path)
            .key(&app.other_key)
            .json(&body)
            .send()
            .await
    };
    let template = call(
        Method::POST,
        "/api/v1/process-templates".to_owned(),
        json!({"title": "Theirs", "sections": [{"title": "S", "tasks": [{"title": "T"}]}]}),
    )
    .await
    .data(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    call(
        Method::POST,
        format!("/api/v1/process-templates/{template}/publish"),
        json!({"published": true}),
    )
    .await
    .data(200);
    let run = call(
        Method::POST,
        "/api/v1/process-runs".to_owned(),
        json!({"template_id": template}),
    )
    .await
    .data(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let task = app
        .call(Method::GET, &format!("/api/v1/process-runs/{run}/tasks"))
        .key(&app.other_key)
        .send()
        .await
        .list()
        .0[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    (run, task)
}

fn is_html(reply: &procflow_tests::Reply) -> bool {
    reply
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/html"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guests_file_is_stored_as_the_guest_listed_escaped_and_downloaded() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let link = app.share(&run, Some("guest@example.org")).await;
    let hello = app.task_id(&run, "Say hello").await;
    // A member's file first, through the API: listed too, named by its uploader.
    app.call(
        Method::POST,
        &format!("/api/v1/process-runs/{run}/tasks/{hello}/attachments"),
    )
    .raw(
        multipart_file("plan.txt", "text/plain", b"the plan"),
        Some(MULTIPART),
    )
    .send()
    .await
    .data(201);

    let page = Page::parse(&app.open_page(&link.page()).await);
    let form = page
        .upload_form(&hello)
        .expect("an upload form on the guest's task");
    assert_eq!(form.value().attr("method"), Some("post"));
    assert_eq!(form.value().attr("enctype"), Some("multipart/form-data"));
    assert_eq!(
        form.value().attr("action"),
        Some(format!("{run}/tasks/{hello}/attachments?token={}", link.token).as_str())
    );
    let input = page.control(&hello, "Attach a file");
    assert_eq!(input.value().attr("type"), Some("file"));
    assert_eq!(input.value().attr("name"), Some("file"));
    let buttons: Vec<String> = form
        .select(&scraper::Selector::parse("button").unwrap())
        .map(procflow_tests::text)
        .collect();
    assert_eq!(buttons, ["Attach"]);
    app.events().await;

    let bytes = b"<script>alert(1)</script>".repeat(100);
    let reply = app
        .post_multipart(
            &link.attachments(&hello),
            multipart_file(HOSTILE_NAME, "text/html", &bytes),
        )
        .await;
    reply.assert_status(303);
    assert_eq!(
        reply.header("location").unwrap(),
        format!("../../../{run}?token={}#task-{hello}", link.token),
        "back to the page, at the task"
    );
    let files = listed(&app, &run, &hello).await;
    assert_eq!(files.len(), 2);
    let stored = &files[1];
    assert_eq!(stored["filename"], HOSTILE_NAME);
    assert_eq!(stored["size"], 2500);
    assert_eq!(stored["content_type"], "text/html");
    assert_eq!(
        stored["uploaded_by"],
        json!({"user_id": null, "email": "guest@example.org", "is_guest": true})
    );
    let events = app.events().await;
    let added: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.payload {
            EventPayload::AttachmentAdded { attachment } => Some(attachment),
            _ => None,
        })
        .collect();
    assert_eq!(added.len(), 1, "{events:?}");
    assert_eq!(added[0].id.to_string(), stored["id"].as_str().unwrap());
    assert_eq!(added[0].filename, HOSTILE_NAME);

    // Listed oldest first, the name as text: no element made of it.
    let reply = app.open_page(&link.page()).await;
    assert!(!reply.text.contains("<img src=x"), "{}", reply.text);
    assert!(
        reply.text.contains("&#60;img src"),
        "the name is there, escaped"
    );
    let page = Page::parse(&reply);
    assert!(page.all("main img").is_empty());
    let shown = page.files(&hello);
    let id = stored["id"].as_str().unwrap();
    assert_eq!(
        shown,
        [
            (
                "plan.txt".to_owned(),
                "8 bytes".to_owned(),
                "API".to_owned(),
                format!(
                    "{run}/attachments/{}?token={}",
                    files[0]["id"].as_str().unwrap(),
                    link.token
                )
            ),
            (
                HOSTILE_NAME.to_owned(),
                "2.4 KB".to_owned(),
                "Guest".to_owned(),
                format!("{run}/attachments/{id}?token={}", link.token)
            ),
        ]
    );
    assert!(
        page.one(&format!("#attachment-{id} time"))
            .value()
            .attr("datetime")
            .unwrap()
            .starts_with("20")
    );

    // The link serves the exact bytes with the API's headers; markup as octet-stream.
    let got = fetch(&app, &link.file(id)).await;
    assert_eq!(got.status(), 200);
    let header = |name: &str| got.headers()[name].to_str().unwrap().to_owned();
    assert_eq!(header("content-type"), "application/octet-stream");
    assert_eq!(header("x-content-type-options"), "nosniff");
    assert_eq!(header("content-security-policy"), "sandbox");
    assert_eq!(
        header("content-disposition"),
        "attachment; filename*=UTF-8''%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E.html"
    );
    assert_eq!(header("content-length"), "2500");
    assert_eq!(got.bytes().await.unwrap().as_ref(), bytes.as_slice());
    let got = fetch(&app, &link.file(files[0]["id"].as_str().unwrap())).await;
    assert_eq!(got.headers()["content-type"], "text/plain");
    assert_eq!(got.bytes().await.unwrap().as_ref(), b"the plan");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refusal_of_a_guest_upload_is_a_page_and_stores_nothing() {
    let app = TestApp::with(Options {
        upload_max_bytes: Some(1000),
        ..Options::default()
    })
    .await;
    let run = app.start_demo_run().await;
    let other_run = app.start_demo_run().await;
    let link = app.share(&run, Some("guest@example.org")).await;
    let hello = app.task_id(&run, "Say hello").await;
    let elsewhere = app.task_id(&other_run, "Say hello").await;
    let file = || multipart_file("a.bin", "application/octet-stream", b"bytes");
    let post = |path: String, body: Vec<u8>| {
        let app = &app;
        async move { app.post_multipart(&path, body).await }
    };

    // Over the limit: one byte over as the bytes pass it, and a declared length far over.
    for size in [1001, 70_000] {
        let reply = post(
            link.attachments(&hello),
            multipart_file("big.bin", "application/octet-stream", &vec![7; size]),
        )
        .await;
        reply.assert_status(413);
        assert!(is_html(&reply));
        let said = Page::parse(&reply).body_text();
        assert!(said.contains("up to 1000 bytes"), "{said}");
    }
    assert_eq!(stored_files(&app), 0);
    // At the limit: taken.
    post(
        link.attachments(&hello),
        multipart_file("full.bin", "application/octet-stream", &[7; 1000]),
    )
    .await
    .assert_status(303);
    assert_eq!(stored_files(&app), 1);

    // No file: no `file` part, the file input left empty, a body that is no multipart.
    let no_file_part = {
        let mut body = file();
        let at = body.windows(6).position(|w| w == b"\"file\"").unwrap();
        body[at + 1..at + 5].copy_from_slice(b"note");
        body
    };
    let empty_name = multipart_file("", "application/octet-stream", b"");
    for body in [no_file_part, empty_name, b"not multipart at all".to_vec()] {
        let reply = post(link.attachments(&hello), body).await;
        reply.assert_status(400);
        assert!(is_html(&reply));
        assert!(
            Page::parse(&reply)
                .body_text()
                .contains("No file was received")
        );
    }
    let reply = app
        .call(Method::POST, &link.attachments(&hello))
        .no_key()
        .raw(
            "file=x".to_owned(),
            Some("application/x-www-form-urlencoded"),
        )
        .send()
        .await;
    reply.assert_status(415);
    assert!(is_html(&reply));

    // Someone else's task: 403, with a page saying so.
    let approval = app.task_id(&run, "Manager approval").await;
    app.patch_task(&run, &approval, &json!({"assignee": "other@example.org"}))
        .await
        .data(200);
    let reply = post(link.attachments(&approval), file()).await;
    reply.assert_status(403);
    assert!(Page::parse(&reply).body_text().contains("not yours"));
    assert!(
        Page::parse(&app.open_page(&link.page()).await)
            .upload_form(&approval)
            .is_none()
    );

    // Every wrong link is the 404 page, with a file or without one.
    let upload_to =
        |token: &str, task: &str| format!("/instance/{run}/tasks/{task}/attachments?token={token}");
    for path in [
        upload_to("wrong", &hello),
        upload_to(&format!("{}x", link.token), &hello),
        upload_to(&link.token, &elsewhere),
        upload_to(&link.token, &uuid::Uuid::now_v7().to_string()),
        upload_to(&link.token, "not-a-task"),
        format!("/instance/{run}/tasks/{hello}/attachments"),
        format!(
            "/instance/not-a-run/tasks/{hello}/attachments?token={}",
            link.token
        ),
        format!(
            "/instance/{other_run}/tasks/{elsewhere}/attachments?token={}",
            link.token
        ),
    ] {
        for body in [file(), multipart_file("", "text/plain", b"")] {
            let reply = post(path.clone(), body).await;
            reply.assert_status(404);
            assert!(is_html(&reply), "{path}");
        }
    }
    // A right link while the team's subscription is inactive: 403.
    app.set_subscription(Subscription::Inactive).await;
    post(link.attachments(&hello), file())
        .await
        .assert_status(403);
    app.set_subscription(Subscription::Active).await;
    assert_eq!(stored_files(&app), 1);
    assert_eq!(listed(&app, &run, &hello).await.len(), 1);
    assert!(listed(&app, &run, &approval).await.is_empty());
    assert!(listed(&app, &other_run, &elsewhere).await.is_empty());

    // Reloaded, a refused upload's address is the page at the task, not an API error.
    let reply = app.open_page(&link.attachments(&hello)).await;
    reply.assert_status(303);
    assert_eq!(
        reply.header("location").unwrap(),
        format!("../../../{run}?token={}#task-{hello}", link.token)
    );
    for path in [
        upload_to(&link.token, "not-a-task"),
        format!("/instance/{run}/tasks/{hello}/attachments"),
    ] {
        let reply = app.open_page(&path).await;
        reply.assert_status(404);
        assert!(is_html(&reply), "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hidden_task_and_a_completed_run_take_no_upload() {
    let app = TestApp::spawn().await;
    let onboarding = Onboarding::start(&app, &[]).await;
    let link = app.share(&onboarding.run, None).await;
    let laptop = onboarding.id(&app, "ship-laptop").await;
    let reply = app
        .post_multipart(
            &link.attachments(&laptop),
            multipart_file("a.txt", "text/plain", b"x"),
        )
        .await;
    reply.assert_status(409);
    assert!(
        Page::parse(&reply)
            .body_text()
            .contains("not part of the run")
    );
    // Its form with no file says the same.
    app.post_multipart(
        &link.attachments(&laptop),
        multipart_file("", "text/plain", b""),
    )
    .await
    .assert_status(409);
    assert!(listed(&app, &onboarding.run, &laptop).await.is_empty());

    let run = app.start_demo_run().await;
    let link = app.share(&run, None).await;
    for task in app.run_tasks(&run).await {
        let body = if task["type"] == "approval" {
            json!({"decision": "approved"})
        } else {
            json!({"completed": true})
        };
        app.patch_task(&run, task["id"].as_str().unwrap(), &body)
            .await
            .data(200);
    }
    let hello = app.task_id(&run, "Say hello").await;
    let page = Page::parse(&app.open_page(&link.page()).await);
    assert!(
        page.all("form.upload-form").is_empty(),
        "no upload on a completed run"
    );
    assert!(page.comment_form(&hello).is_some());
    let reply = app
        .post_multipart(
            &link.attachments(&hello),
            multipart_file("late.txt", "text/plain", b"x"),
        )
        .await;
    reply.assert_status(409);
    assert!(Page::parse(&reply).body_text().contains("completed"));
    assert!(listed(&app, &run, &hello).await.is_empty());
    assert_eq!(stored_files(&app), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_count_against_the_guest_post_limits() {
    let app = TestApp::with(Options {
        guest_posts_per_minute: (2, 100),
        ..Options::default()
    })
    .await;
    let run = app.start_demo_run().await;
    let link = app.share(&run, None).await;
    let hello = app.task_id(&run, "Say hello").await;
    app.post_form(&link.comments(&hello), &[("text", "one")])
        .await
        .assert_status(303);
    app.post_multipart(
        &link.attachments(&hello),
        multipart_file("a.txt", "text/plain", b"a"),
    )
    .await
    .assert_status(303);
    let reply = app
        .post_multipart(
            &link.attachments(&hello),
            multipart_file("b.txt", "text/plain", b"b"),
        )
        .await;
    reply.assert_status(429);
    assert!(reply.header("retry-after").is_some());
    assert!(is_html(&reply));
    assert_eq!(listed(&app, &run, &hello).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_downloads_only_files_of_visible_tasks_of_its_run() {
    let app = TestApp::spawn().await;
    let onboarding = Onboarding::start(&app, &[("remote", json!(true))]).await;
    let run = onboarding.run.clone();
    let link = app.share(&run, None).await;
    let laptop = onboarding.id(&app, "ship-laptop").await;
    let upload = |run: String, task: String, key: String| {
        let app = &app;
        async move {
            app.call(
                Method::POST,
                &format!("/api/v1/process-runs/{run}/tasks/{task}/attachments"),
            )
            .key(&key)
            .raw(
                multipart_file("f.txt", "text/plain", b"secret"),
                Some(MULTIPART),
            )
            .send()
            .await
            .data(201)["id"]
                .as_str()
                .unwrap()
                .to_owned()
        }
    };
    let on_laptop = upload(run.clone(), laptop.clone(), app.key.clone()).await;
    assert_eq!(fetch(&app, &link.file(&on_laptop)).await.status(), 200);
    // Hidden by a rule: its file is no longer the guest's to see.
    onboarding
        .patch(&app, "profile", &onboarding.write("remote", json!(false)))
        .await
        .data(200);
    // Another run of the team (shared or not), and another team's run.
    let other_run = app.start_demo_run().await;
    app.share(&other_run, None).await;
    let other_task = app.task_id(&other_run, "Say hello").await;
    let of_other_run = upload(other_run, other_task, app.key.clone()).await;
    let (other_team_run, other_team_task) = other_teams_task(&app).await;
    let of_other_team = upload(other_team_run, other_team_task, app.other_key.clone()).await;
    let profile = onboarding.id(&app, "profile").await;
    let deleted = upload(run.clone(), profile.clone(), app.key.clone()).await;
    app.delete(&format!("/api/v1/attachments/{deleted}"))
        .await
        .assert_status(204);
    let visible = upload(run.clone(), profile, app.key.clone()).await;

    for path in [
        link.file(&on_laptop),
        link.file(&of_other_run),
        link.file(&of_other_team),
        link.file(&deleted),
        link.file(&uuid::Uuid::now_v7().to_string()),
        link.file("not-an-id"),
        format!("/instance/{run}/attachments/{visible}?token=wrong"),
        format!("/instance/{run}/attachments/{visible}"),
        format!(
            "/instance/not-a-run/attachments/{visible}?token={}",
            link.token
        ),
    ] {
        let reply = app.open_page(&path).await;
        reply.assert_status(404);
        assert!(is_html(&reply), "{path}");
        assert!(!reply.text.contains("secret"), "{path}");
    }
    let page = Page::parse(&app.open_page(&link.page()).await);
    assert!(page.all(&format!("#task-{laptop}")).is_empty());
    assert!(page.all(&format!("#attachment-{on_laptop}")).is_empty());
    assert_eq!(
        page.all("li.file").len(),
        1,
        "the visible task's file alone"
    );
    let got = fetch(&app, &link.file(&visible)).await;
    assert_eq!(got.status(), 200);
    assert_eq!(got.bytes().await.unwrap().as_ref(), b"secret");
    // Unshared, the link serves nothing.
    app.delete(&format!("/api/v1/process-runs/{run}/invite"))
        .await
        .data(200);
    assert_eq!(fetch(&app, &link.file(&visible)).await.status(), 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_of_several_mebibytes_streams_through_the_guest_form_whole() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let link = app.share(&run, None).await;
    let hello = app.task_id(&run, "Say hello").await;
    // 6 MiB: hundreds of chunks through the channel, well within the body's 30 s.
    let bytes: Vec<u8> = (0..6 * 1024 * 1024u32).map(|i| (i % 253) as u8).collect();
    app.post_multipart(
        &link.attachments(&hello),
        multipart_file("scan.bin", "application/octet-stream", &bytes),
    )
    .await
    .assert_status(303);
    let files = listed(&app, &run, &hello).await;
    assert_eq!(files.len(), 1);
    assert_eq!(files[0]["size"], 6 * 1024 * 1024);
    let got = fetch(&app, &link.file(files[0]["id"].as_str().unwrap())).await;
    assert_eq!(got.status(), 200);
    assert_eq!(got.bytes().await.unwrap().as_ref(), bytes.as_slice());
    let page = Page::parse(&app.open_page(&link.page()).await);
    assert_eq!(page.files(&hello)[0].1, "6.0 MB");
}
