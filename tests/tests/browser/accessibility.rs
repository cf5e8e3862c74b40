//! The page's accessibility, checked by axe-core in the browser (no serious or critical
//! violation) on each state a guest meets, and its screenshots at desktop and phone width,
//! written to `target/guest-page/` for people to look at.

use std::path::PathBuf;

use procflow_tests::{Browser, GuestLink, TestApp, Violation};
use serde_json::json;

/// Where the screenshots go: `target/guest-page/`.
fn shots() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .map_or_else(|| PathBuf::from("target"), PathBuf::from)
        .join("guest-page")
}

#[track_caller]
fn assert_accessible(violations: &[Violation], what: &str) {
    let grave: Vec<&Violation> = violations
        .iter()
        .filter(|v| matches!(v.impact.as_str(), "serious" | "critical"))
        .collect();
    assert!(grave.is_empty(), "{what}: {grave:#?}");
}

/// The run the README shows: an onboarding shared with its new hire, a task done, one
/// assigned to the hire, one to the team.
async fn onboarding(app: &TestApp) -> (GuestLink, String) {
    let template = app
        .seed_published(&json!({
            "title": "Employee onboarding",
            "sections": [
                {"title": "Before day one", "description": "A few details, and we are ready for you.",
                 "color": "#EC4899", "tasks": [
                    {"title": "Sign the contract"},
                    {"title": "Tell us about yourself", "is_essential": true,
                     "due_date": {"type": "relative", "from": "run_start", "offset": "P3D"},
                     "custom_elements": [
                        {"type": "text", "label": "Welcome", "value": "<p>Welcome aboard! This takes <strong>two minutes</strong>.</p>"},
                        {"type": "shortText", "label": "Full name", "required": true},
                        {"type": "email", "label": "Personal email", "required": true},
                        {"type": "date", "label": "First day"},
                        {"type": "dropdown", "label": "Laptop", "options": ["MacBook Pro", "ThinkPad X1"]},
                        {"type": "multichoice", "label": "Accessories", "options": ["Monitor", "Headset"]},
                        {"type": "checkbox", "label": "I have read the handbook"},
                        {"type": "file", "label": "Employee handbook", "file_url": "https://example.org/handbook.pdf"}]}]},
                {"title": "First week", "color": "#3B82F6", "tasks": [
                    {"title": "Order equipment", "assignee": "admin@a.example"},
                    {"title": "Manager sign-off", "type": "approval",
                     "custom_elements": [{"type": "longText", "label": "Notes for HR"}]}]}]}))
        .await;
    let run_id = app
        .start_run(&json!({"template_id": template.id, "name": "Onboarding: Ada Lovelace"}))
        .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let sign = app.task_id(&run_id, "Sign the contract").await;
    let link = app.share(&run_id, Some("ada@example.org")).await;
    app.post_form(&link.task(&sign), &[("action", "complete")])
        .await
        .assert_status(303);
    let about = app.task_id(&run_id, "Tell us about yourself").await;
    (link, about)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_passes_axe_in_every_state_and_is_photographed_at_two_widths() {
    let app = TestApp::spawn().await;
    let (link, about) = onboarding(&app).await;
    let dir = shots();
    let browser = Browser::start(1280, 900).await;
    let page = format!("{}{}", app.base(), link.page());

    browser.open(&page).await;
    assert_accessible(&browser.axe().await, "the run's page, desktop");
    browser.screenshot(1280, &dir.join("desktop.png")).await;
    browser.screenshot(390, &dir.join("phone.png")).await;
    assert_accessible(&browser.axe().await, "the run's page, phone");
    let overflow = browser
        .run(
            "return document.documentElement.scrollWidth > window.innerWidth;",
            Vec::new(),
        )
        .await;
    assert_eq!(overflow, json!(false), "nothing is wider than a phone");

    // A refused value: as a browser without validation would send it.
    browser
        .run(
            "for (const f of document.forms) f.noValidate = true;",
            Vec::new(),
        )
        .await;
    browser
        .control(&about, "Personal email")
        .await
        .send_keys("ada at example")
        .await
        .unwrap();
    browser
        .control(&about, "Full name")
        .await
        .send_keys("Ada Lovelace")
        .await
        .unwrap();
    browser.press(browser.button(&about, "Save").await).await;
    let summary = browser.text_of(".problem").await;
    assert!(
        summary.contains("Personal email: Expected an email address."),
        "{summary}"
    );
    assert_accessible(&browser.axe().await, "the page with a refused value");
    browser
        .screenshot(390, &dir.join("phone-refused.png"))
        .await;
    browser
        .screenshot(1280, &dir.join("desktop-refused.png"))
        .await;

    // The 404 page.
    browser
        .open(&format!(
            "{}/instance/{}?token=wrong",
            app.base(),
            link.run_id
        ))
        .await;
    assert_eq!(browser.text_of("h1").await, "This link does not work");
    assert_accessible(&browser.axe().await, "the 404 page");
    browser
        .screenshot(390, &dir.join("phone-not-found.png"))
        .await;

    // A completed run.
    for task in app.run_tasks(&link.run_id).await {
        let body = if task["type"] == "approval" {
            json!({"decision": "approved"})
        } else {
            json!({"completed": true})
        };
        app.patch_task(&link.run_id, task["id"].as_str().unwrap(), &body)
            .await
            .data(200);
    }
    browser.open(&page).await;
    assert_accessible(&browser.axe().await, "a completed run");
    browser
        .screenshot(1280, &dir.join("desktop-completed.png"))
        .await;
    browser.quit().await;
}
