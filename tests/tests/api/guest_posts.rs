//! A guest acting on the shared run (API contract 7.1): one form per task, posted to
//! `/instance/:run_id/tasks/:task_id?token=...`, applied through the API's use cases as the
//! guest; 303 back to the page on success, the page again with status 400 and every refusal
//! beside its field otherwise, nothing stored.

use procflow_domain::actor::Actor;
use procflow_domain::event::EventPayload;
use procflow_tests::{GuestLink, Page, Reply, TestApp, every_element_document, text};
use serde_json::{Value, json};

/// Asserts a post was applied: 303 to the run's page at the task, relative to the post's
/// address.
#[track_caller]
fn assert_applied(reply: &Reply, link: &GuestLink, task: &str) {
    reply.assert_status(303);
    assert_eq!(
        reply.header("location"),
        Some(format!("../../{}?token={}#task-{task}", link.run_id, link.token).as_str())
    );
    assert!(reply.text.is_empty());
    assert_eq!(reply.header("cache-control"), Some("no-store"));
}

async fn task_json(app: &TestApp, run_id: &str, task: &str) -> Value {
    app.get(&format!("/api/v1/process-runs/{run_id}/tasks/{task}"))
        .await
        .data(200)
}

fn value_of(task: &Value, label: &str) -> Value {
    task["custom_elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["label"] == label)
        .unwrap()["value"]
        .clone()
}

/// A run of the every-element template, shared, with its one task's id.
async fn every_element_run(app: &TestApp) -> (GuestLink, String, procflow_tests::Seeded) {
    let template = app.seed_published(&every_element_document()).await;
    let run_id = app.start_run(&json!({"template_id": template.id})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let task = app.task_id(&run_id, "Fill everything").await;
    (app.share(&run_id, None).await, task, template)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn save_stores_every_input_types_value_as_the_api_would() {
    let app = TestApp::spawn().await;
    let (link, task, template) = every_element_run(&app).await;
    let name = |label: &str| format!("el-{}", template.element_id("Fill everything", label));
    let fields = [
        (name("shortText"), "Ada"),
        (name("longText"), "line one\r\nline two"),
        (name("number"), "36.5"),
        (name("email"), "ada@example.org"),
        (name("website"), "https://example.org/ada"),
        (name("date"), "1815-12-10"),
        (name("checkbox"), "true"),
        (name("dropdown"), "R&D"),
        (name("multichoice"), "Eng"),
        (name("multichoice"), "R&D"),
        ("action".to_owned(), "save"),
    ];
    let pairs: Vec<(&str, &str)> = fields.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    let reply = app.post_form(&link.task(&task), &pairs).await;
    assert_applied(&reply, &link, &task);

    let stored = task_json(&app, &link.run_id, &task).await;
    assert_eq!(stored["completed"], false, "Save does not complete");
    for (label, value) in [
        ("shortText", json!("Ada")),
        ("longText", json!("line one\nline two")),
        ("number", json!(36.5)),
        ("email", json!("ada@example.org")),
        ("website", json!("https://example.org/ada")),
        ("date", json!("1815-12-10")),
        ("checkbox", json!(true)),
        ("dropdown", json!("R&D")),
        ("multichoice", json!(["Eng", "R&D"])),
    ] {
        assert_eq!(value_of(&stored, label), value, "{label}");
    }

    // An empty field is null; an unchecked checkbox false; no choice is null.
    let reply = app
        .post_form(
            &link.task(&task),
            &[(name("shortText").as_str(), ""), ("action", "save")],
        )
        .await;
    assert_applied(&reply, &link, &task);
    let stored = task_json(&app, &link.run_id, &task).await;
    for label in [
        "shortText",
        "longText",
        "number",
        "email",
        "website",
        "date",
        "dropdown",
        "multichoice",
    ] {
        assert_eq!(value_of(&stored, label), Value::Null, "{label}");
    }
    assert_eq!(value_of(&stored, "checkbox"), json!(false));
    assert_eq!(
        value_of(&stored, "text"),
        json!("<p>Read me</p>"),
        "display-only kept"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn complete_completes_the_task_as_guest_and_raises_the_apis_event() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let link = app.share(&run_id, Some("guest@example.org")).await;
    let collect = app.task_id(&run_id, "Collect documents").await;
    let name = format!(
        "el-{}",
        app.template.element_id("Collect documents", "Full name")
    );
    app.events().await;
    let reply = app
        .post_form(
            &link.task(&collect),
            &[(name.as_str(), "Ada Lovelace"), ("action", "complete")],
        )
        .await;
    assert_applied(&reply, &link, &collect);
    let stored = task_json(&app, &run_id, &collect).await;
    assert_eq!(stored["completed"], true);
    assert_eq!(stored["completed_by"], "guest");
    assert_eq!(value_of(&stored, "Full name"), "Ada Lovelace");
    let events = app.events().await;
    let completed: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.payload {
            EventPayload::TaskCompleted { task } => Some(task),
            _ => None,
        })
        .collect();
    assert_eq!(completed.len(), 1, "{events:?}");
    assert_eq!(completed[0].completed_by, Some(Actor::Guest));
    assert_eq!(completed[0].id.to_string(), collect);

    // The page shows it done, by the guest, with Reopen.
    let page = Page::parse(&app.open_page(&link.page()).await);
    assert!(text(page.task(&collect)).contains("Completed by you on"));
    assert_eq!(page.buttons(&collect), ["Reopen"]);
    assert_eq!(text(page.one("#progress")), "1 of 4 tasks done");

    let reply = app
        .post_form(&link.task(&collect), &[("action", "reopen")])
        .await;
    assert_applied(&reply, &link, &collect);
    let stored = task_json(&app, &run_id, &collect).await;
    assert_eq!(stored["completed"], false);
    assert_eq!(stored["completed_by"], Value::Null);
    assert_eq!(
        value_of(&stored, "Full name"),
        "Ada Lovelace",
        "Reopen keeps the values"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approve_and_reject_record_the_decision_and_the_comment() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let link = app.share(&run_id, None).await;
    let approval = app.task_id(&run_id, "Manager approval").await;
    let reply = app
        .post_form(
            &link.task(&approval),
            &[("comment", "Missing the signature"), ("action", "reject")],
        )
        .await;
    assert_applied(&reply, &link, &approval);
    let stored = task_json(&app, &run_id, &approval).await;
    assert_eq!(
        (
            &stored["decision"],
            &stored["comment"],
            &stored["completed"]
        ),
        (
            &json!("rejected"),
            &json!("Missing the signature"),
            &json!(false)
        )
    );
    let page = Page::parse(&app.open_page(&link.page()).await);
    assert!(text(page.task(&approval)).contains("Rejected: Missing the signature"));

    let reply = app
        .post_form(
            &link.task(&approval),
            &[("comment", "Signed now"), ("action", "approve")],
        )
        .await;
    assert_applied(&reply, &link, &approval);
    let stored = task_json(&app, &run_id, &approval).await;
    assert_eq!(
        (
            &stored["decision"],
            &stored["comment"],
            &stored["completed"],
            &stored["completed_by"]
        ),
        (
            &json!("approved"),
            &json!("Signed now"),
            &json!(true),
            &json!("guest")
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finishing_the_last_task_from_the_page_completes_the_run_once() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let link = app.share(&run_id, None).await;
    app.events().await;
    for task in app.run_tasks(&run_id).await {
        let id = task["id"].as_str().unwrap();
        let action = if task["type"] == "approval" {
            "approve"
        } else {
            "complete"
        };
        let reply = app.post_form(&link.task(id), &[("action", action)]).await;
        assert_applied(&reply, &link, id);
    }
    let run = app.run(&run_id).await;
    assert_eq!(run["status"], "completed");
    assert!(run["completed_at"].is_string());
    let completions = app
        .events()
        .await
        .into_iter()
        .filter(|e| e.payload.name() == "process_run.completed")
        .count();
    assert_eq!(completions, 1);
    let page = Page::parse(&app.open_page(&link.page()).await);
    assert!(page.all("form").is_empty());

    // A completed run's tasks refuse any post, with a page saying why.
    let first = app.task_id(&run_id, "Say hello").await;
    let reply = app
        .post_form(&link.task(&first), &[("action", "reopen")])
        .await;
    reply.assert_status(409);
    assert!(
        Page::parse(&reply)
            .body_text()
            .contains("This run is completed")
    );
    assert_eq!(task_json(&app, &run_id, &first).await["completed"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_value_answers_400_with_its_message_beside_its_field_and_stores_nothing() {
    let app = TestApp::spawn().await;
    let (link, task, template) = every_element_run(&app).await;
    let name = |label: &str| format!("el-{}", template.element_id("Fill everything", label));
    app.post_form(
        &link.task(&task),
        &[(name("shortText").as_str(), "Before"), ("action", "save")],
    )
    .await
    .assert_status(303);
    let before = task_json(&app, &link.run_id, &task).await;
    for (label, sent, message) in [
        ("number", "twelve", "Expected a number."),
        ("email", "not an email", "Expected an email address."),
        (
            "website",
            "javascript:alert(1)",
            "Expected an absolute http or https URL.",
        ),
        (
            "date",
            "21/11/2026",
            "Expected an ISO 8601 date (YYYY-MM-DD).",
        ),
        (
            "dropdown",
            "HR",
            "\u{201c}HR\u{201d} is not one of the options: Eng, Sales, R&D.",
        ),
        (
            "multichoice",
            "Ops",
            "\u{201c}Ops\u{201d} is not one of the options: Eng, Sales, R&D.",
        ),
        ("checkbox", "maybe", "Expected a checkbox, checked or not."),
        (
            "shortText",
            "nul \0 byte",
            "Expected a string without NUL characters.",
        ),
        (
            "longText",
            "\0",
            "Expected a string without NUL characters.",
        ),
    ] {
        let element = name(label);
        let mut fields = vec![(element.as_str(), sent), ("action", "complete")];
        let (short, date) = (name("shortText"), name("date"));
        if label != "shortText" {
            fields.push((short.as_str(), "Kept"));
        }
        if label != "date" {
            fields.push((date.as_str(), "2026-01-02"));
        }
        let reply = app.post_form(&link.task(&task), &fields).await;
        reply.assert_status(400);
        assert_eq!(reply.header("cache-control"), Some("no-store"));
        let page = Page::parse(&reply);
        let control = page.control(&task, label);
        assert_eq!(
            page.error_of(control).as_deref(),
            Some(message),
            "{label}: the message beside the field"
        );
        if control.value().name() != "fieldset" {
            assert_eq!(
                control.value().attr("aria-invalid"),
                Some("true"),
                "{label}"
            );
        }
        let summary = text(page.one(".problem"));
        assert!(summary.contains(message), "{label}: {summary}");
        assert!(text(page.one("title")).starts_with("Not saved: "));
        // The other entries are kept as sent (unless the refused one is that field).
        if label != "shortText" {
            assert_eq!(
                page.control(&task, "shortText").value().attr("value"),
                Some("Kept")
            );
        }
        if label != "date" {
            assert_eq!(
                page.control(&task, "date").value().attr("value"),
                Some("2026-01-02")
            );
        }
        assert_eq!(
            task_json(&app, &link.run_id, &task).await,
            before,
            "{label}: nothing stored"
        );
    }
    // Several refusals at once: each beside its field.
    let reply = app
        .post_form(
            &link.task(&task),
            &[
                (name("number").as_str(), "x"),
                (name("email").as_str(), "y"),
                ("action", "save"),
            ],
        )
        .await;
    reply.assert_status(400);
    let page = Page::parse(&reply);
    assert_eq!(page.all(".problem li").len(), 2);
    assert!(page.error_of(page.control(&task, "number")).is_some());
    assert!(page.error_of(page.control(&task, "email")).is_some());
    // The page answered at the post's address links back with relative references.
    assert_eq!(
        page.form(&task).unwrap().value().attr("action"),
        Some(format!("../../{}/tasks/{task}?token={}", link.run_id, link.token).as_str())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_comment_too_long_and_a_form_of_no_page_of_ours_are_refused() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let link = app.share(&run_id, None).await;
    let approval = app.task_id(&run_id, "Manager approval").await;
    let long = "x".repeat(10_001);
    let reply = app
        .post_form(
            &link.task(&approval),
            &[("comment", &long), ("action", "reject")],
        )
        .await;
    reply.assert_status(400);
    let page = Page::parse(&reply);
    assert_eq!(
        page.error_of(page.control(&approval, "Comment")).as_deref(),
        Some("The comment must be at most 10000 characters.")
    );
    assert_eq!(
        text(page.control(&approval, "Comment")),
        long,
        "kept as sent"
    );

    for fields in [
        vec![("action", "delete")],
        vec![("name", "x"), ("action", "save")],
        vec![("comment", "no button")],
    ] {
        let reply = app.post_form(&link.task(&approval), &fields).await;
        reply.assert_status(400);
        assert!(
            Page::parse(&reply).one(".problem").text().count() > 0,
            "{fields:?}"
        );
    }
    // A decision on a task that takes none.
    let hello = app.task_id(&run_id, "Say hello").await;
    let reply = app
        .post_form(&link.task(&hello), &[("action", "approve")])
        .await;
    reply.assert_status(400);
    assert!(
        Page::parse(&reply)
            .body_text()
            .contains("This change cannot be made")
    );
    let stored = task_json(&app, &run_id, &approval).await;
    assert_eq!(
        (&stored["decision"], &stored["completed"]),
        (&Value::Null, &json!(false))
    );
    assert_eq!(task_json(&app, &run_id, &hello).await["completed"], false);
}
