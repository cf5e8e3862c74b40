//! Comments on the guest page (API contract 14.1, 7.1): every visible task shows its thread,
//! oldest first, and takes the guest's comment, theirs or not; the comment goes through the
//! API's use case (the author is the guest, the same event and webhook); a blank or long one
//! is refused beside the form; every wrong link is the 404 page; a hidden task shows nothing.

use std::time::Duration;

use procflow_domain::actor::Actor;
use procflow_domain::event::EventPayload;
use procflow_domain::team::Subscription;
use procflow_testkit::receiver::Receiver;
use procflow_tests::{Options, Page, TestApp, text, verify, worker_settings};
use serde_json::{Value, json};

use super::logic::Onboarding;

/// A refused comment post: the fields sent, the text the form keeps, what the refusal says.
type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a str);

const WAIT: Duration = Duration::from_secs(20);

async fn thread(app: &TestApp, run: &str, task: &str) -> Vec<Value> {
    app.get(&format!("/api/v1/process-runs/{run}/tasks/{task}/comments"))
        .await
        .list()
        .0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guests_comment_shows_as_guest_escaped_with_the_apis_event() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let link = app.share(&run, Some("guest@example.org")).await;
    // Someone else's task: read-only for the guest, but open to a comment.
    let approval = app.task_id(&run, "Manager approval").await;
    app.patch_task(&run, &approval, &json!({"assignee": "other@example.org"}))
        .await
        .data(200);
    app.post(
        &format!("/api/v1/process-runs/{run}/tasks/{approval}/comments"),
        &json!({"text": "From the team", "actor_email": "member@a.example"}),
    )
    .await
    .data(201);
    let page = Page::parse(&app.open_page(&link.page()).await);
    assert!(page.form(&approval).is_none(), "not the guest's task");
    for task in app.run_tasks(&run).await {
        let id = task["id"].as_str().unwrap();
        let form = page.comment_form(id).expect("a comment form on every task");
        assert_eq!(form.value().attr("method"), Some("post"));
        let button: Vec<String> = form
            .select(&scraper::Selector::parse("button").unwrap())
            .map(text)
            .collect();
        assert_eq!(button, ["Comment"]);
    }
    assert_eq!(
        page.comments(&approval),
        [("member@a.example".to_owned(), "From the team".to_owned())]
    );
    app.events().await;

    let hostile = "<script>alert(1)</script>\r\n<b>bold</b> & \"quoted\"";
    let reply = app
        .post_form(&link.comments(&approval), &[("text", hostile)])
        .await;
    reply.assert_status(303);
    let comments = thread(&app, &run, &approval).await;
    assert_eq!(comments.len(), 2);
    let written = &comments[1];
    assert_eq!(
        written["author"],
        json!({"user_id": null, "email": "guest@example.org", "is_guest": true})
    );
    assert_eq!(
        written["text"], "<script>alert(1)</script>\n<b>bold</b> & \"quoted\"",
        "stored as written, the textarea's CRLF as \\n"
    );
    let location = reply.header("location").unwrap();
    assert_eq!(
        location,
        format!(
            "../../../{run}?token={}#comment-{}",
            link.token,
            written["id"].as_str().unwrap()
        ),
        "back to the page, at the comment"
    );
    let events = app.events().await;
    let created: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.payload {
            EventPayload::CommentCreated { comment } => Some(comment),
            _ => None,
        })
        .collect();
    assert_eq!(created.len(), 1, "{events:?}");
    assert_eq!(created[0].author, Actor::Guest);
    assert_eq!(created[0].id.to_string(), written["id"].as_str().unwrap());

    // On the page: oldest first, as "Guest", as text.
    let reply = app.open_page(&link.page()).await;
    reply.assert_status(200);
    assert!(!reply.text.contains("<script>alert"), "{}", reply.text);
    assert!(!reply.text.contains("<b>bold"), "{}", reply.text);
    assert!(
        reply.text.contains("alert(1)"),
        "the text is there, escaped"
    );
    let page = Page::parse(&reply);
    assert!(page.all("script").is_empty() && page.all("main b").is_empty());
    let shown = page.comments(&approval);
    assert_eq!(shown.len(), 2);
    assert_eq!(shown[1].0, "Guest");
    assert_eq!(
        shown[1].1,
        "<script>alert(1)</script> <b>bold</b> & \"quoted\""
    );
    let body = page.one(&format!(
        "#comment-{} .comment-text",
        written["id"].as_str().unwrap()
    ));
    assert_eq!(
        body.text().collect::<String>(),
        "<script>alert(1)</script>\n<b>bold</b> & \"quoted\"",
        "the line break kept as text"
    );
    assert!(
        page.one(&format!(
            "#comment-{} time",
            written["id"].as_str().unwrap()
        ))
        .value()
        .attr("datetime")
        .unwrap()
        .starts_with("20")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authors_are_named_and_deleted_comments_marked_on_a_completed_run_too() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let link = app.share(&run, None).await;
    let hello = app.task_id(&run, "Say hello").await;
    let path = format!("/api/v1/process-runs/{run}/tasks/{hello}/comments");
    let by_api = app
        .post(&path, &json!({"text": "By a script"}))
        .await
        .data(201);
    app.post(
        &path,
        &json!({"text": "By the admin", "actor_email": "admin@a.example"}),
    )
    .await
    .data(201);
    app.call(
        reqwest::Method::DELETE,
        &format!("/api/v1/comments/{}", by_api["id"].as_str().unwrap()),
    )
    .send()
    .await
    .assert_status(204);
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
    // The run is completed: the discussion goes on.
    app.post_form(&link.comments(&hello), &[("text", "Thanks, all done")])
        .await
        .assert_status(303);
    let page = Page::parse(&app.open_page(&link.page()).await);
    assert_eq!(
        page.comments(&hello),
        [
            ("API".to_owned(), "This comment was deleted.".to_owned()),
            ("admin@a.example".to_owned(), "By the admin".to_owned()),
            ("Guest".to_owned(), "Thanks, all done".to_owned()),
        ]
    );
    assert!(
        page.form(&hello).is_none(),
        "a completed run takes no change"
    );
    assert!(page.comment_form(&hello).is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blank_or_long_comment_is_refused_beside_its_form_and_nothing_is_written() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let link = app.share(&run, None).await;
    let hello = app.task_id(&run, "Say hello").await;
    let long = "x".repeat(10_001);
    let cases: [Case<'_>; 5] = [
        (
            &[("text", " \r\n ")],
            " \r\n ",
            "must not be empty or blank",
        ),
        (&[("text", &long)], &long, "at most 10000 are allowed"),
        (&[("text", "a\0b")], "a\0b", "NUL"),
        (&[], "", "Write a comment"),
        (
            &[("text", "hi"), ("action", "save")],
            "hi",
            "a field it does not have",
        ),
    ];
    for (fields, kept, message) in cases {
        let reply = app.post_form(&link.comments(&hello), fields).await;
        reply.assert_status(400);
        assert_eq!(reply.header("cache-control"), Some("no-store"));
        let page = Page::parse(&reply);
        let textarea = page.control(&hello, "Write a comment");
        assert_eq!(textarea.value().attr("aria-invalid"), Some("true"));
        let error = page
            .error_of(textarea)
            .expect("the refusal beside the form");
        assert!(error.contains(message), "{error:?} should say {message:?}");
        let summary = text(page.one(".problem"));
        assert!(summary.contains(message), "{summary}");
        if !kept.contains('\0') {
            assert_eq!(
                textarea.text().collect::<String>(),
                kept.replace("\r\n", "\n"),
                "the text is kept"
            );
        }
        // Its forms still post to the run's pages, from this address.
        let action = page
            .comment_form(&hello)
            .unwrap()
            .value()
            .attr("action")
            .unwrap()
            .to_owned();
        assert!(
            action.starts_with(&format!("../../../{run}/tasks/")),
            "{action}"
        );
    }
    assert!(thread(&app, &run, &hello).await.is_empty());
    // Reloaded, the refused post's address is the page at the task.
    let reply = app.open_page(&link.comments(&hello)).await;
    reply.assert_status(303);
    assert_eq!(
        reply.header("location").unwrap(),
        format!("../../../{run}?token={}#task-{hello}", link.token)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hidden_task_shows_no_thread_and_takes_no_comment() {
    let app = TestApp::spawn().await;
    let onboarding = Onboarding::start(&app, &[]).await;
    let link = app.share(&onboarding.run, None).await;
    let laptop = onboarding.id(&app, "ship-laptop").await;
    app.post(
        &format!(
            "/api/v1/process-runs/{}/tasks/{laptop}/comments",
            onboarding.run
        ),
        &json!({"text": "hidden talk"}),
    )
    .await
    .assert_status(409);
    let reply = app.open_page(&link.page()).await;
    let page = Page::parse(&reply);
    assert!(page.all(&format!("#task-{laptop}")).is_empty());
    assert!(!reply.text.contains(&format!("tasks/{laptop}/comments")));
    let visible = app
        .run_tasks(&onboarding.run)
        .await
        .iter()
        .filter(|t| t["hidden"] == false)
        .count();
    assert_eq!(page.all("form.comment-form").len(), visible);

    let reply = app
        .post_form(&link.comments(&laptop), &[("text", "hello")])
        .await;
    reply.assert_status(409);
    let said = Page::parse(&reply).body_text();
    assert!(said.contains("not part of the run"), "{said}");
    // A refused text on it says the same, not a form it does not show.
    app.post_form(&link.comments(&laptop), &[("text", " ")])
        .await
        .assert_status(409);
    assert!(thread(&app, &onboarding.run, &laptop).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_wrong_link_or_body_writes_nothing() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let other_run = app.start_demo_run().await;
    let link = app.share(&run, None).await;
    let hello = app.task_id(&run, "Say hello").await;
    let elsewhere = app.task_id(&other_run, "Say hello").await;
    let comments =
        |token: &str, task: &str| format!("/instance/{run}/tasks/{task}/comments?token={token}");
    for path in [
        comments("wrong", &hello),
        comments(&format!("{}x", link.token), &hello),
        comments(&link.token, &elsewhere),
        comments(&link.token, "not-a-task"),
        format!("/instance/{run}/tasks/{hello}/comments"),
        format!(
            "/instance/{other_run}/tasks/{elsewhere}/comments?token={}",
            link.token
        ),
    ] {
        for fields in [&[("text", "hello")][..], &[("text", " ")]] {
            let reply = app.post_form(&path, fields).await;
            reply.assert_status(404);
            assert!(
                reply
                    .header("content-type")
                    .unwrap()
                    .starts_with("text/html")
            );
        }
    }
    let reply = app
        .call(reqwest::Method::POST, &link.comments(&hello))
        .no_key()
        .raw("{\"text\":\"hi\"}".to_owned(), Some("application/json"))
        .send()
        .await;
    reply.assert_status(415);
    let reply = app
        .call(reqwest::Method::POST, &link.comments(&hello))
        .no_key()
        .raw(
            "text=%FF".to_owned(),
            Some("application/x-www-form-urlencoded"),
        )
        .send()
        .await;
    reply.assert_status(400);
    // A right link while the team's subscription is inactive: 403, nothing written.
    app.set_subscription(Subscription::Inactive).await;
    app.post_form(&link.comments(&hello), &[("text", "hello")])
        .await
        .assert_status(403);
    app.set_subscription(Subscription::Active).await;
    // Unshared, the link writes nothing.
    app.call(
        reqwest::Method::DELETE,
        &format!("/api/v1/process-runs/{run}/invite"),
    )
    .send()
    .await;
    app.post_form(&link.comments(&hello), &[("text", "still there?")])
        .await
        .assert_status(404);
    assert!(thread(&app, &run, &hello).await.is_empty());
    assert!(thread(&app, &other_run, &elsewhere).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comment_posts_count_against_the_guest_post_limits() {
    let app = TestApp::with(Options {
        guest_posts_per_minute: (2, 100),
        ..Options::default()
    })
    .await;
    let run = app.start_demo_run().await;
    let link = app.share(&run, None).await;
    let hello = app.task_id(&run, "Say hello").await;
    app.post_form(&link.task(&hello), &[("action", "complete")])
        .await
        .assert_status(303);
    app.post_form(&link.comments(&hello), &[("text", "one")])
        .await
        .assert_status(303);
    let reply = app
        .post_form(&link.comments(&hello), &[("text", "two")])
        .await;
    reply.assert_status(429);
    assert!(reply.header("retry-after").is_some());
    assert_eq!(thread(&app, &run, &hello).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_guests_comment_is_a_signed_webhook_naming_the_guest() {
    let app = TestApp::with(Options {
        worker: Some(worker_settings("5s", true)),
        ..Options::default()
    })
    .await;
    let receiver = Receiver::start().await;
    let hook = app
        .create_webhook(&receiver.url(), Some(&["task.comment_created"]))
        .await;
    let run = app.start_demo_run().await;
    let link = app.share(&run, Some("guest@example.org")).await;
    let hello = app.task_id(&run, "Say hello").await;
    app.post_form(
        &link.comments(&hello),
        &[("text", "<i>Hello</i> from outside")],
    )
    .await
    .assert_status(303);
    let received = receiver.wait_for(1, WAIT).await;
    verify(&received[0], hook["secret"].as_str().unwrap());
    let event: Value = serde_json::from_slice(&received[0].body).unwrap();
    let comment = &thread(&app, &run, &hello).await[0];
    assert_eq!(event["event"], "task.comment_created");
    assert_eq!(
        event["data"],
        json!({
            "comment_id": comment["id"],
            "task_id": hello,
            "instance_id": run,
            "author": {"user_id": null, "email": "guest@example.org", "is_guest": true},
            "text_excerpt": "<i>Hello</i> from outside",
        })
    );
}
