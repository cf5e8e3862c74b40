//! Process logic in the browser (API contract 12.2): a guest's answer reveals a task, which
//! the page then shows with its form; a blocked task says what it waits for and has no
//! Complete button until its prerequisites are done; the page stays accessible.

use procflow_tests::{Browser, TestApp, Violation, logic_document};
use serde_json::{Value, json};
use thirtyfour::By;

fn grave(violations: &[Violation]) -> Vec<&Violation> {
    violations
        .iter()
        .filter(|v| matches!(v.impact.as_str(), "serious" | "critical"))
        .collect()
}

async fn task_titles(browser: &Browser) -> Value {
    browser
        .run(
            "return [...document.querySelectorAll('li.task h3')].map(h => h.textContent.trim());",
            Vec::new(),
        )
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guests_answer_reveals_a_task_and_a_blocked_task_waits_for_its_prerequisites() {
    let app = TestApp::spawn().await;
    let template = app.seed_published(&logic_document()).await;
    let run = app.start_run(&json!({"template_id": template.id})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let profile = app.task_id(&run, "Profile").await;
    let link = app.share(&run, Some("guest@example.org")).await;
    let browser = Browser::start(1280, 900).await;
    browser
        .open(&format!("{}{}", app.base(), link.page()))
        .await;
    assert_eq!(
        task_titles(&browser).await,
        json!([
            "Profile",
            "Security training",
            "Manager approval",
            "Grant production access"
        ]),
        "the laptop and git access are hidden"
    );
    assert_eq!(browser.text_of("#progress").await, "0 of 4 tasks done");
    let grant = app.task_id(&run, "Grant production access").await;
    let waiting = browser
        .task(&grant)
        .await
        .find(By::Css(".waiting"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(waiting, "Waiting for: Security training, Manager approval");
    assert!(
        browser
            .task(&grant)
            .await
            .find_all(By::Css("form:not(.comment-form):not(.upload-form) button"))
            .await
            .unwrap()
            .is_empty(),
        "no Complete while it waits"
    );
    assert!(
        grave(&browser.axe().await).is_empty(),
        "{:#?}",
        browser.axe().await
    );

    // The guest answers "Remote?": the laptop appears, with its form.
    browser
        .control(&profile, "Remote?")
        .await
        .click()
        .await
        .unwrap();
    browser.press(browser.button(&profile, "Save").await).await;
    assert!(browser.url().await.ends_with(&format!("#task-{profile}")));
    assert_eq!(
        task_titles(&browser).await,
        json!([
            "Profile",
            "Ship a laptop",
            "Security training",
            "Manager approval",
            "Grant production access"
        ])
    );
    assert_eq!(browser.text_of("#progress").await, "0 of 5 tasks done");
    let laptop = app.task_id(&run, "Ship a laptop").await;
    browser
        .press(browser.button(&laptop, "Complete").await)
        .await;
    assert!(
        browser
            .task(&laptop)
            .await
            .text()
            .await
            .unwrap()
            .contains("Completed by you on")
    );

    // The prerequisites done, the dependent offers Complete.
    let training = app.task_id(&run, "Security training").await;
    browser
        .press(browser.button(&training, "Complete").await)
        .await;
    let approval = app.task_id(&run, "Manager approval").await;
    browser
        .press(browser.button(&approval, "Approve").await)
        .await;
    assert!(
        browser
            .task(&grant)
            .await
            .find_all(By::Css(".waiting"))
            .await
            .unwrap()
            .is_empty()
    );
    browser
        .press(browser.button(&grant, "Complete").await)
        .await;
    assert_eq!(browser.text_of("#progress").await, "4 of 5 tasks done");
    browser.quit().await;
}
