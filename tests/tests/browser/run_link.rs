//! A run link in a real browser (API contract 13.2): a person opens the start page, types
//! their name and email into the fields their labels name, presses Start, lands on the run's
//! guest page and completes a task there; axe-core finds no serious or critical violation on the start page, at
//! desktop and phone width, nor on the page of a refused post.

use procflow_tests::{Browser, TestApp, Violation};
use serde_json::json;
use thirtyfour::By;

#[track_caller]
fn assert_accessible(violations: &[Violation], what: &str) {
    let grave: Vec<&Violation> = violations
        .iter()
        .filter(|v| matches!(v.impact.as_str(), "serious" | "critical"))
        .collect();
    assert!(grave.is_empty(), "{what}: {grave:#?}");
}

async fn field(browser: &Browser, label: &str) -> thirtyfour::WebElement {
    let label = browser
        .driver()
        .find(By::XPath(format!(
            "//label[starts-with(normalize-space(.), '{label}')]"
        )))
        .await
        .unwrap_or_else(|e| panic!("no label {label:?}: {e}"));
    let target = label.attr("for").await.unwrap().expect("a for");
    browser.driver().find(By::Id(target)).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_opens_a_run_link_starts_a_run_and_completes_a_task_on_its_guest_page() {
    let app = TestApp::spawn().await;
    let link = app
        .post(
            &format!("/api/v1/process-templates/{}/run-link", app.template.id),
            &json!({}),
        )
        .await
        .data(200);
    let url = link["url"].as_str().unwrap().to_owned();
    let title = app.template.template["title"].as_str().unwrap().to_owned();

    let browser = Browser::start(390, 844).await;
    browser.open(&url).await;
    assert_eq!(browser.text_of("h1").await, title);
    assert_accessible(&browser.axe().await, "the start page, phone");

    // A refused post: the page again, accessible, the entry kept.
    field(&browser, "Your name")
        .await
        .send_keys("Ada")
        .await
        .unwrap();
    field(&browser, "Your email")
        .await
        .send_keys("member@a.example")
        .await
        .unwrap();
    let start = browser
        .driver()
        .find(By::XPath("//button[normalize-space(.)='Start']"))
        .await
        .unwrap();
    browser.press(start).await;
    assert_accessible(&browser.axe().await, "the start page with a refusal");
    let email = field(&browser, "Your email").await;
    email.clear().await.unwrap();
    email.send_keys("ada@outside.example").await.unwrap();
    let start = browser
        .driver()
        .find(By::XPath("//button[normalize-space(.)='Start']"))
        .await
        .unwrap();
    browser.press(start).await;

    let landed = browser.url().await;
    assert!(landed.contains("/instance/"), "{landed}");
    assert!(landed.contains("?token="), "{landed}");
    assert_eq!(browser.text_of("h1").await, format!("{title}: Ada"));

    // The person is the run's guest: they complete a task on the page they landed on.
    let run_id = landed
        .split("/instance/")
        .nth(1)
        .and_then(|rest| rest.split('?').next())
        .unwrap()
        .to_owned();
    let task = app.task_id(&run_id, "Say hello").await;
    browser.press(browser.button(&task, "Complete").await).await;
    assert!(
        browser.url().await.contains(&format!("/instance/{run_id}")),
        "back on the guest page"
    );
    let done = browser.text_of("#progress").await;
    assert!(done.starts_with("1 of "), "{done}");
    let stored = app
        .get(&format!("/api/v1/process-runs/{run_id}/tasks/{task}"))
        .await
        .data(200);
    assert_eq!(
        (&stored["completed"], &stored["completed_by"]),
        (&json!(true), &json!("guest"))
    );
    browser.quit().await;

    let desktop = Browser::start(1280, 900).await;
    desktop.open(&url).await;
    assert_accessible(&desktop.axe().await, "the start page, desktop");
    desktop.quit().await;
}
