//! What a guest does on the page, in the browser: fill fields by their labels, complete, see
//! the result; finish a whole run; the same with the keyboard alone.

use procflow_tests::{Browser, GuestLink, TestApp, every_element_document};
use serde_json::{Value, json};
use thirtyfour::Key;
use thirtyfour::components::SelectElement;

fn value_of(task: &Value, label: &str) -> Value {
    task["custom_elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["label"] == label)
        .unwrap()["value"]
        .clone()
}

async fn task_json(app: &TestApp, run_id: &str, task: &str) -> Value {
    app.get(&format!("/api/v1/process-runs/{run_id}/tasks/{task}"))
        .await
        .data(200)
}

fn url(app: &TestApp, link: &GuestLink) -> String {
    format!("{}{}", app.base(), link.page())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_fills_in_every_field_by_its_label_presses_complete_and_sees_it_done() {
    let app = TestApp::spawn().await;
    let template = app.seed_published(&every_element_document()).await;
    let run_id = app.start_run(&json!({"template_id": template.id})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let task = app.task_id(&run_id, "Fill everything").await;
    let link = app.share(&run_id, Some("guest@example.org")).await;
    let browser = Browser::start(1280, 900).await;
    browser.open(&url(&app, &link)).await;

    for (label, typed) in [
        ("shortText", "Ada Lovelace"),
        ("number", "36.5"),
        ("email", "ada@example.org"),
        ("website", "https://example.org/ada"),
    ] {
        browser
            .control(&task, label)
            .await
            .send_keys(typed)
            .await
            .unwrap();
    }
    let long = browser.control(&task, "longText").await;
    long.send_keys("line one").await.unwrap();
    long.send_keys(Key::Enter).await.unwrap();
    long.send_keys("line two").await.unwrap();
    // A date input takes its parts as typed in the browser's locale (en-US: mm dd yyyy).
    browser
        .control(&task, "date")
        .await
        .send_keys("12101815")
        .await
        .unwrap();
    browser
        .control(&task, "checkbox")
        .await
        .click()
        .await
        .unwrap();
    let select = SelectElement::new(&browser.control(&task, "dropdown").await)
        .await
        .unwrap();
    select.select_by_exact_text("R&D").await.unwrap();
    let choices = browser.control(&task, "multichoice").await;
    for option in ["Eng", "R&D"] {
        choices
            .find(thirtyfour::By::XPath(format!(
                ".//label[normalize-space(.)='{option}']"
            )))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
    }
    browser.press(browser.button(&task, "Complete").await).await;

    assert!(browser.url().await.ends_with(&format!("#task-{task}")));
    let task_text = browser.task(&task).await.text().await.unwrap();
    assert!(task_text.contains("Completed"), "{task_text}");
    assert!(task_text.contains("Completed by you on"), "{task_text}");
    assert!(
        task_text.contains("Ada Lovelace"),
        "values shown read-only: {task_text}"
    );
    let buttons = browser
        .run(
            "return [...document.querySelectorAll('button')].map(b => b.textContent);",
            Vec::new(),
        )
        .await;
    // Comments go on (API contract 14.1); nothing else does.
    assert_eq!(
        buttons,
        json!(["Comment"]),
        "a completed run takes no more changes"
    );
    assert_eq!(browser.text_of("#progress").await, "1 of 1 tasks done");
    assert!(
        browser
            .text_of(".notice")
            .await
            .starts_with("This run is completed"),
        "its only task done, the run is completed"
    );

    let stored = task_json(&app, &run_id, &task).await;
    assert_eq!(stored["completed_by"], "guest");
    for (label, value) in [
        ("shortText", json!("Ada Lovelace")),
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
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_finishes_a_whole_run_from_the_page() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let link = app.share(&run_id, None).await;
    let browser = Browser::start(1280, 900).await;
    browser.open(&url(&app, &link)).await;
    let tasks = app.run_tasks(&run_id).await;
    for task in &tasks {
        let id = task["id"].as_str().unwrap();
        if task["type"] == "approval" {
            browser
                .control(id, "Comment")
                .await
                .send_keys("All in order")
                .await
                .unwrap();
            browser.press(browser.button(id, "Approve").await).await;
        } else {
            if task["title"] == "Collect documents" {
                browser
                    .control(id, "Full name")
                    .await
                    .send_keys("Ada")
                    .await
                    .unwrap();
            }
            browser.press(browser.button(id, "Complete").await).await;
        }
    }
    assert!(
        browser
            .text_of(".notice")
            .await
            .starts_with("This run is completed")
    );
    assert_eq!(browser.text_of(".summary .badge").await, "Completed");
    assert_eq!(browser.text_of("#progress").await, "4 of 4 tasks done");
    let forms = browser
        .run(
            "return [...document.forms].filter(f => !f.classList.contains('comment-form')).length;",
            Vec::new(),
        )
        .await;
    assert_eq!(forms, json!(0), "only the comment forms stay");
    let run = app.run(&run_id).await;
    assert_eq!(run["status"], "completed");
    let approval = tasks.iter().find(|t| t["type"] == "approval").unwrap();
    let stored = task_json(&app, &run_id, approval["id"].as_str().unwrap()).await;
    assert_eq!(
        (
            &stored["decision"],
            &stored["comment"],
            &stored["completed_by"]
        ),
        (&json!("approved"), &json!("All in order"), &json!("guest"))
    );
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_keyboard_alone_reaches_the_fields_and_saves_them() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let link = app.share(&run_id, None).await;
    let collect = app.task_id(&run_id, "Collect documents").await;
    let browser = Browser::start(390, 844).await;
    browser.open(&url(&app, &link)).await;
    let driver = browser.driver();
    let tab = || async {
        let active = driver.active_element().await.unwrap();
        active.send_keys(Key::Tab).await.unwrap();
        driver.active_element().await.unwrap()
    };
    // The first stop is the skip link; then the first task's first field.
    let first = tab().await;
    assert_eq!(first.text().await.unwrap(), "Skip to the tasks");
    let focused = tab().await;
    let name = browser.control(&collect, "Full name").await;
    assert_eq!(
        focused.attr("id").await.unwrap(),
        name.attr("id").await.unwrap(),
        "Tab reaches the first field"
    );
    let outline = browser
        .run(
            "const s = getComputedStyle(document.activeElement);
             return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2;",
            Vec::new(),
        )
        .await;
    assert_eq!(outline, json!(true), "the focus is visible");
    focused.send_keys("Grace Hopper").await.unwrap();
    // Enter in a field submits its form with its first button: Save.
    let before = browser
        .run("return performance.timeOrigin;", Vec::new())
        .await;
    focused.send_keys(Key::Enter).await.unwrap();
    browser
        .wait_until(&format!("performance.timeOrigin !== {before}"))
        .await;
    browser.wait_loaded().await;
    let stored = task_json(&app, &run_id, &collect).await;
    assert_eq!(value_of(&stored, "Full name"), "Grace Hopper");
    assert_eq!(stored["completed"], false, "Save, not Complete");
    browser.quit().await;
}
