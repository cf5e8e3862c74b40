//! Process logic on the guest page (API contract 12.2): hidden tasks are not shown nor
//! counted, a blocked task says what it waits for and offers no Complete or Approve, a post
//! that changes visibility shows the new state, and posts on hidden or blocked tasks are 409
//! pages that change nothing.

use procflow_tests::{Page, TestApp, text};
use serde_json::json;

use super::logic::Onboarding;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hidden_tasks_are_not_shown_and_a_blocked_one_says_what_it_waits_for() {
    let app = TestApp::spawn().await;
    let onboarding = Onboarding::start(&app, &[]).await;
    let link = app.share(&onboarding.run, Some("guest@example.org")).await;
    let page = Page::parse(&app.open_page(&link.page()).await);
    let body = page.body_text();
    assert!(!body.contains("Ship a laptop"), "hidden: {body}");
    assert!(!body.contains("Git access"), "hidden: {body}");
    assert_eq!(text(page.one("#progress")), "0 of 4 tasks done");

    let grant = onboarding.id(&app, "grant-access").await;
    let task = text(page.task(&grant));
    assert!(
        task.contains("Waiting for: Security training, Manager approval"),
        "{task}"
    );
    assert!(
        page.buttons(&grant).is_empty(),
        "{:?}",
        page.buttons(&grant)
    );
    let training = onboarding.id(&app, "security-training").await;
    assert_eq!(page.buttons(&training), ["Complete"]);
    assert!(!text(page.task(&training)).contains("Waiting for"));

    // Complete pressed anyway (a stale page): a 409 page saying what it waits for.
    let refused = app
        .post_form(&link.task(&grant), &[("action", "complete")])
        .await;
    refused.assert_status(409);
    assert!(
        refused
            .text
            .contains("This task is waiting for other tasks")
    );
    assert!(
        refused.text.contains(
            "It can be completed once these are done: Security training, Manager approval."
        )
    );
    // A post on a hidden task: a 409 page, nothing changed.
    let laptop = onboarding.id(&app, "ship-laptop").await;
    let refused = app
        .post_form(&link.task(&laptop), &[("action", "complete")])
        .await;
    refused.assert_status(409);
    assert!(
        refused
            .text
            .contains("This task is not part of the run now")
    );
    assert_eq!(
        onboarding.task(&app, "ship-laptop").await["completed"],
        false
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guests_answer_shows_the_tasks_it_reveals_after_the_redirect() {
    let app = TestApp::spawn().await;
    let onboarding = Onboarding::start(&app, &[]).await;
    let link = app.share(&onboarding.run, Some("guest@example.org")).await;
    let profile = onboarding.id(&app, "profile").await;
    let remote = format!(
        "el-{}",
        onboarding.template_tasks[0]["custom_elements"][0]["id"]
            .as_str()
            .unwrap()
    );
    let department = format!(
        "el-{}",
        onboarding.template_tasks[0]["custom_elements"][1]["id"]
            .as_str()
            .unwrap()
    );
    let saved = app
        .post_form(
            &link.task(&profile),
            &[("action", "save"), (&remote, "on"), (&department, "Eng")],
        )
        .await;
    saved.assert_status(303);
    let page = Page::parse(&app.open_page(&link.page()).await);
    let body = page.body_text();
    assert!(body.contains("Ship a laptop"), "{body}");
    assert!(body.contains("Git access"), "{body}");
    assert_eq!(text(page.one("#progress")), "0 of 6 tasks done");
    assert_eq!(
        onboarding.task(&app, "ship-laptop").await["hidden"],
        json!(false)
    );
}
