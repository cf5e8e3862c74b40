//! The guest page (API contract 7.1), as it renders: `GET /instance/:run_id?token=...` shows
//! the run's title, status, progress, sections and tasks, with a form on each task the guest
//! may act on and every element as its type needs; everything escaped; the guest's first
//! opening recorded.

use procflow_domain::ids::{RunId, TeamId};
use procflow_domain::ports::RunStore;
use procflow_tests::{Page, TestApp, every_element_document, text};
use serde_json::json;
use sha2::{Digest, Sha256};

async fn element_id(app: &TestApp, run_id: &str, task: &str, label: &str) -> String {
    let tasks = app.run_tasks(run_id).await;
    let task = tasks.iter().find(|t| t["title"] == task).unwrap();
    task["custom_elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["label"] == label)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_the_runs_title_status_progress_sections_and_tasks() {
    let app = TestApp::spawn().await;
    let run = app
        .start_run(&json!({"template_id": app.template.id, "name": "Onboarding Ada"}))
        .await;
    let run_id = run["id"].as_str().unwrap();
    let hello = app.task_id(run_id, "Say hello").await;
    app.patch_task(run_id, &hello, &json!({"completed": true}))
        .await
        .data(200);
    let lunch = app.task_id(run_id, "Team lunch").await;
    app.patch_task(run_id, &lunch, &json!({"skipped": true}))
        .await
        .data(200);
    let link = app.share(run_id, None).await;
    let reply = app.open_page(&link.page()).await;
    reply.assert_status(200);
    let page = Page::parse(&reply);

    assert_eq!(text(page.one("h1")), "Onboarding Ada");
    assert_eq!(text(page.one("title")), "Onboarding Ada");
    assert_eq!(text(page.one(".summary .badge")), "In progress");
    assert_eq!(text(page.one("#progress")), "2 of 4 tasks done");
    let progress = page.one("progress");
    assert_eq!(
        (progress.value().attr("value"), progress.value().attr("max")),
        (Some("2"), Some("4"))
    );
    let sections: Vec<String> = page.all("section h2").into_iter().map(text).collect();
    assert_eq!(sections, ["Before day one", "Day one"], "in order");
    assert_eq!(
        text(page.one("section > p")),
        "Paperwork",
        "the description"
    );
    assert_eq!(
        page.one("section svg rect").value().attr("fill"),
        Some("#EC4899"),
        "the section's colour"
    );
    let titles: Vec<String> = page.all("li.task h3").into_iter().map(text).collect();
    assert_eq!(
        titles,
        [
            "Collect documents",
            "Manager approval",
            "Say hello",
            "Team lunch"
        ]
    );
    let states: Vec<String> = page
        .all("li.task .task-head .badge")
        .into_iter()
        .map(text)
        .collect();
    assert_eq!(states, ["Open", "Open", "Completed", "Skipped"]);
    let collect = app.task_id(run_id, "Collect documents").await;
    let due = page
        .task(&collect)
        .select(&scraper::Selector::parse("time").unwrap())
        .next();
    let due = due.expect("the due date is shown");
    assert!(text(due).ends_with("UTC"), "{}", text(due));
    assert!(due.value().attr("datetime").unwrap().starts_with("20"));
    assert!(text(page.task(&collect)).contains("Unassigned"));
    assert!(text(page.task(&hello)).contains("Completed on"));
    // Open tasks have forms; the completed one offers Reopen; the skipped one nothing.
    assert_eq!(page.buttons(&collect), ["Save", "Complete"]);
    assert_eq!(page.buttons(&hello), ["Reopen"]);
    assert!(page.buttons(&lunch).is_empty());
    let approval = app.task_id(run_id, "Manager approval").await;
    assert_eq!(page.buttons(&approval), ["Approve", "Reject"]);
    assert!(text(page.control(&approval, "Comment")).is_empty());
    assert!(page.all("script").is_empty(), "no JavaScript is sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_input_type_has_its_labelled_input_with_its_current_value() {
    let app = TestApp::spawn().await;
    let template = app.seed_published(&every_element_document()).await;
    let run_id = app.start_run(&json!({"template_id": template.id})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let task = app.task_id(&run_id, "Fill everything").await;
    let id = |label: &str| template.element_id("Fill everything", label);
    let values = [
        ("shortText", json!("Ada \"The Countess\" Lovelace")),
        ("longText", json!("line one\nline two")),
        ("number", json!(36.5)),
        ("email", json!("ada@example.org")),
        ("website", json!("https://example.org/ada")),
        ("date", json!("1815-12-10")),
        ("checkbox", json!(true)),
        ("dropdown", json!("R&D")),
        ("multichoice", json!(["Eng", "R&D"])),
    ];
    let writes: Vec<_> = values
        .iter()
        .map(|(label, value)| json!({"id": id(label), "value": value}))
        .collect();
    app.patch_task(&run_id, &task, &json!({"custom_elements": writes}))
        .await
        .data(200);
    let link = app.share(&run_id, None).await;
    let page = Page::parse(&app.open_page(&link.page()).await);

    for (label, input_type, value) in [
        ("shortText", "text", "Ada \"The Countess\" Lovelace"),
        ("number", "number", "36.5"),
        ("email", "email", "ada@example.org"),
        ("website", "url", "https://example.org/ada"),
        ("date", "date", "1815-12-10"),
    ] {
        let input = page.control(&task, label);
        assert_eq!(input.value().name(), "input", "{label}");
        assert_eq!(input.value().attr("type"), Some(input_type), "{label}");
        assert_eq!(input.value().attr("value"), Some(value), "{label}");
        assert_eq!(
            input.value().attr("name"),
            Some(format!("el-{}", id(label)).as_str())
        );
    }
    let long = page.control(&task, "longText");
    assert_eq!(long.value().name(), "textarea");
    assert_eq!(long.text().collect::<String>(), "line one\nline two");
    let checkbox = page.control(&task, "checkbox");
    assert_eq!(checkbox.value().attr("type"), Some("checkbox"));
    assert!(checkbox.value().attr("checked").is_some());
    let select = page.control(&task, "dropdown");
    assert_eq!(select.value().name(), "select");
    let options: Vec<(String, bool)> = select
        .select(&scraper::Selector::parse("option").unwrap())
        .map(|o| (text(o), o.value().attr("selected").is_some()))
        .collect();
    assert_eq!(
        options,
        [
            ("Choose…".to_owned(), false),
            ("Eng".to_owned(), false),
            ("Sales".to_owned(), false),
            ("R&D".to_owned(), true)
        ]
    );
    let choices = page.control(&task, "multichoice");
    assert_eq!(choices.value().name(), "fieldset");
    let boxes: Vec<(Option<&str>, bool)> = choices
        .select(&scraper::Selector::parse("input").unwrap())
        .map(|i| (i.value().attr("value"), i.value().attr("checked").is_some()))
        .collect();
    assert_eq!(
        boxes,
        [
            (Some("Eng"), true),
            (Some("Sales"), false),
            (Some("R&D"), true)
        ]
    );
    for (label, _) in &values {
        assert!(
            page.control(&task, label)
                .value()
                .attr("aria-invalid")
                .is_none(),
            "{label}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn display_only_elements_show_their_content_and_required_fields_are_marked() {
    let app = TestApp::spawn().await;
    let template = app
        .seed_published(&json!({"title": "Show", "sections": [{"title": "S", "tasks": [
            {"title": "Read", "custom_elements": [
                {"type": "text", "label": "Intro", "value": "<p>Read <strong>this</strong> <a href=\"https://example.org/x\">first</a></p>"},
                {"type": "image", "label": "Map", "value": "https://example.org/map.png"},
                {"type": "video", "label": "Welcome video", "value": "https://example.org/v.mp4"},
                {"type": "file", "label": "Handbook", "file_url": "https://example.org/h.pdf"},
                {"type": "lineBreak"},
                {"type": "shortText", "label": "Name", "required": true}]}]}]}))
        .await;
    let run_id = app.start_run(&json!({"template_id": template.id})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let task = app.task_id(&run_id, "Read").await;
    let link = app.share(&run_id, None).await;
    let page = Page::parse(&app.open_page(&link.page()).await);
    let rich = page.one(".rich");
    assert_eq!(
        rich.inner_html(),
        "<p>Read <strong>this</strong> <a href=\"https://example.org/x\" rel=\"noopener noreferrer nofollow\">first</a></p>"
    );
    let image = page.one("figure img");
    assert_eq!(
        image.value().attr("src"),
        Some("https://example.org/map.png")
    );
    assert_eq!(image.value().attr("alt"), Some("Map"));
    let links: Vec<(String, Option<&str>)> = page
        .all(&format!("#task-{task} p.field a"))
        .into_iter()
        .map(|a| (text(a), a.value().attr("href")))
        .collect();
    assert_eq!(
        links,
        [
            (
                "Welcome video".to_owned(),
                Some("https://example.org/v.mp4")
            ),
            ("Handbook".to_owned(), Some("https://example.org/h.pdf"))
        ]
    );
    assert_eq!(page.all("hr").len(), 1);
    let name = page.control(&task, "Name");
    assert_eq!(name.value().attr("aria-required"), Some("true"));
    assert!(
        text(page.one(&format!("label[for={}]", name.value().id().unwrap())))
            .contains("(required)")
    );
    assert_eq!(page.buttons(&task), ["Save", "Complete"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_of_others_are_read_only_and_the_guests_own_are_marked() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let collect = app.task_id(&run_id, "Collect documents").await;
    let approval = app.task_id(&run_id, "Manager approval").await;
    let hello = app.task_id(&run_id, "Say hello").await;
    let lunch = app.task_id(&run_id, "Team lunch").await;
    let name = element_id(&app, &run_id, "Collect documents", "Full name").await;
    app.patch_task(
        &run_id,
        &collect,
        &json!({"assignee": "member@a.example", "custom_elements": [{"id": name, "value": "Ada"}]}),
    )
    .await
    .data(200);
    app.patch_task(
        &run_id,
        &approval,
        &json!({"assignee": "Guest@Example.org"}),
    )
    .await
    .data(200);
    app.patch_task(
        &run_id,
        &hello,
        &json!({"assignee": "someone@else.example"}),
    )
    .await
    .data(200);
    let link = app.share(&run_id, Some("guest@example.org")).await;
    let page = Page::parse(&app.open_page(&link.page()).await);

    assert!(
        page.form(&collect).is_none(),
        "a member's task is read-only"
    );
    assert!(text(page.task(&collect)).contains("Assigned to the team"));
    let values: Vec<(String, String)> = page
        .task(&collect)
        .select(&scraper::Selector::parse("dl.values").unwrap())
        .map(|dl| {
            let part = |tag: &str| {
                text(
                    dl.select(&scraper::Selector::parse(tag).unwrap())
                        .next()
                        .unwrap(),
                )
            };
            (part("dt"), part("dd"))
        })
        .collect();
    assert_eq!(
        values,
        [
            ("Full name".to_owned(), "Ada".to_owned()),
            ("Department".to_owned(), "Not filled in".to_owned())
        ],
        "its values are shown as text"
    );
    assert!(page.form(&approval).is_some());
    assert!(text(page.task(&approval)).contains("Assigned to you"));
    assert!(page.form(&hello).is_none());
    assert!(text(page.task(&hello)).contains("Assigned to someone else"));
    assert!(
        !page.body_text().contains("someone@else.example"),
        "no one's address is shown"
    );
    assert!(page.form(&lunch).is_some(), "unassigned");

    // Shared without an email, the guest acts on unassigned tasks only.
    let anonymous_run = app.start_demo_run().await;
    let approval = app.task_id(&anonymous_run, "Manager approval").await;
    app.patch_task(
        &anonymous_run,
        &approval,
        &json!({"assignee": "guest@example.org"}),
    )
    .await
    .data(200);
    let link = app.share(&anonymous_run, None).await;
    let page = Page::parse(&app.open_page(&link.page()).await);
    assert!(page.form(&approval).is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_completed_run_says_so_and_shows_no_forms() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    for task in app.run_tasks(&run_id).await {
        let body = if task["type"] == "approval" {
            json!({"decision": "approved", "comment": "Fine"})
        } else {
            json!({"completed": true})
        };
        app.patch_task(&run_id, task["id"].as_str().unwrap(), &body)
            .await
            .data(200);
    }
    let link = app.share(&run_id, None).await;
    let page = Page::parse(&app.open_page(&link.page()).await);
    assert_eq!(text(page.one(".summary .badge")), "Completed");
    assert!(text(page.one(".notice")).starts_with("This run is completed"));
    assert_eq!(text(page.one("#progress")), "4 of 4 tasks done");
    // No task takes a change; every task still takes a comment (API contract 14.1: the
    // discussion goes on after the work).
    assert!(page.all("form:not(.comment-form)").is_empty());
    assert_eq!(page.all("form.comment-form").len(), 4);
    let buttons: Vec<String> = page.all("button").into_iter().map(text).collect();
    assert_eq!(buttons, ["Comment"; 4]);
    assert!(page.body_text().contains("Approved: Fine"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_from_a_template_or_a_value_is_escaped_and_rich_text_cleaned() {
    let app = TestApp::spawn().await;
    let hostile = "\"><svg onload=alert(1)><script>alert(2)</script>";
    let template = app
        .seed_published(&json!({"title": "T", "sections": [
            {"title": "<b>Section</b>", "description": hostile, "tasks": [
                {"title": "<img src=x onerror=alert(1)>", "custom_elements": [
                    {"type": "shortText", "label": hostile},
                    {"type": "dropdown", "label": "Pick", "options": [hostile, "ok"]},
                    {"type": "text", "label": "Rich", "value": "<p onclick=\"alert(3)\">Hi</p><script>alert(4)</script><a href=\"javascript:alert(5)\">x</a><img src=\"https://e.example/i.png\" onerror=\"alert(6)\">\"><svg onload=alert(7)>"}]}]}]}))
        .await;
    let run = app
        .start_run(&json!({"template_id": template.id, "name": "<script>alert(1)</script>"}))
        .await;
    let run_id = run["id"].as_str().unwrap();
    let task = app.task_id(run_id, "<img src=x onerror=alert(1)>").await;
    let short = template.element_id("<img src=x onerror=alert(1)>", hostile);
    app.patch_task(
        run_id,
        &task,
        &json!({"custom_elements": [{"id": short, "value": hostile}]}),
    )
    .await
    .data(200);
    let link = app.share(run_id, None).await;
    let reply = app.open_page(&link.page()).await;
    reply.assert_status(200);
    let page = Page::parse(&reply);
    assert!(page.all("script").is_empty(), "{}", reply.text);
    assert!(
        page.all("main svg")
            .iter()
            .all(|svg| svg.value().attr("onload").is_none())
    );
    assert_eq!(
        page.all("svg").len(),
        0,
        "no section colour, and no injected svg"
    );
    for element in page.all("*") {
        for (name, value) in element.value().attrs() {
            assert!(
                !name.starts_with("on"),
                "an event handler attribute: {name}"
            );
            assert!(!value.contains("javascript:"), "{name}={value}");
        }
    }
    assert_eq!(text(page.one("h1")), "<script>alert(1)</script>");
    assert_eq!(text(page.one("li.task h3")), "<img src=x onerror=alert(1)>");
    assert_eq!(
        page.control(&task, hostile).value().attr("value"),
        Some(hostile),
        "the value is an attribute's text, whole"
    );
    assert_eq!(
        page.one(".rich").inner_html(),
        "<p>Hi</p><a rel=\"noopener noreferrer nofollow\">x</a><img src=\"https://e.example/i.png\">\"&gt;"
    );
    assert!(!reply.text.contains("<script"), "{}", reply.text);
    assert!(!reply.text.contains("<svg onload"), "{}", reply.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_style_is_the_one_the_policy_allows_by_hash() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let link = app.share(&run_id, None).await;
    let reply = app.open_page(&link.page()).await;
    let page = Page::parse(&reply);
    let style = page.one("head style").text().collect::<String>();
    assert!(style.len() > 1_000, "our own stylesheet is inlined");
    let hash = base64_sha256(&style);
    let csp = reply.header("content-security-policy").unwrap();
    assert!(
        csp.contains(&format!("style-src 'sha256-{hash}'")),
        "{csp} allows the inline stylesheet"
    );
    assert!(
        page.all("[style]").is_empty(),
        "no style attribute (the CSP would block it)"
    );
    assert!(
        page.all("link").is_empty(),
        "nothing is loaded from elsewhere"
    );
    assert!(
        page.one("meta[name=viewport]").value().attr("content")
            == Some("width=device-width, initial-scale=1")
    );
    assert_eq!(page.one("html").value().attr("lang"), Some("en"));
}

fn base64_sha256(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opening_the_page_records_the_guests_engagement_once() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let link = app.share(&run_id, Some("guest@example.org")).await;
    let run: RunId = run_id.parse().unwrap();
    let team: TeamId = app.team.id;
    let engaged = || async {
        app.store
            .get_share(team, run)
            .await
            .unwrap()
            .unwrap()
            .guest
            .unwrap()
            .engaged_at
    };
    assert_eq!(engaged().await, None);
    app.open_page(&link.page()).await.assert_status(200);
    let first = engaged().await.expect("recorded");
    app.open_page(&link.page()).await.assert_status(200);
    assert_eq!(
        engaged().await,
        Some(first),
        "only the first opening counts"
    );
    let wrong = format!("/instance/{run_id}?token=wrong");
    app.open_page(&wrong).await.assert_status(404);
}
