//! A guest's comment in a real browser (issue 22): written in the task's comment form and
//! pressed **Comment**, a comment carrying script and markup comes back as the text it is:
//! no alert, no element made of it; a blank one is refused beside its form; the page stays
//! accessible (axe-core: no serious or critical violation) in each state. A screenshot of the
//! thread is written to `target/guest-page/desktop-comments.png`.

use procflow_tests::{Browser, TestApp, Violation};
use serde_json::json;

const HOSTILE: &str = "<script>alert(1)</script><img src=x onerror=alert(2)>";

#[track_caller]
fn assert_accessible(violations: &[Violation], what: &str) {
    let grave: Vec<&Violation> = violations
        .iter()
        .filter(|v| matches!(v.impact.as_str(), "serious" | "critical"))
        .collect();
    assert!(grave.is_empty(), "{what}: {grave:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_comment_stays_inert_text_and_the_page_stays_accessible() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let link = app.share(&run, Some("guest@example.org")).await;
    // Someone else's task: the guest talks about it all the same.
    let approval = app.task_id(&run, "Manager approval").await;
    app.patch_task(&run, &approval, &json!({"assignee": "other@example.org"}))
        .await
        .data(200);
    app.post(
        &format!("/api/v1/process-runs/{run}/tasks/{approval}/comments"),
        &json!({"text": "Waiting on legal.\nBack on Monday.", "actor_email": "member@a.example"}),
    )
    .await
    .data(201);
    let browser = Browser::start(1280, 900).await;
    browser
        .open(&format!("{}{}", app.base(), link.page()))
        .await;
    assert_accessible(&browser.axe().await, "the page with a thread");

    browser
        .control(&approval, "Write a comment")
        .await
        .send_keys(HOSTILE)
        .await
        .unwrap();
    browser
        .press(browser.button(&approval, "Comment").await)
        .await;
    assert!(!browser.dialog_open().await, "an alert was raised");
    assert_eq!(
        browser.dangerous_nodes().await,
        json!({"scripts": 0, "svg_outside_sections": 0, "frames": 0, "handlers": [],
               "javascript_urls": [], "pwned": false}),
        "what the page would let run"
    );
    let thread = browser
        .run(
            "const items = [...document.querySelectorAll(arguments[0] + ' li.comment')];
             return items.map(li => ({
               author: li.querySelector('.author').textContent,
               text: li.querySelector('.comment-text').textContent,
               elements: li.querySelector('.comment-text').children.length,
             }));",
            vec![json!(format!("#task-{approval}"))],
        )
        .await;
    assert_eq!(
        thread,
        json!([
            {"author": "member@a.example", "text": "Waiting on legal.\nBack on Monday.", "elements": 0},
            {"author": "Guest", "text": HOSTILE, "elements": 0},
        ]),
        "oldest first, as text"
    );
    assert_eq!(
        browser
            .run(
                "return document.querySelectorAll('main img').length;",
                Vec::new()
            )
            .await,
        json!(0),
        "no image made of the comment"
    );
    let url = browser.url().await;
    assert!(url.contains("#comment-"), "back at the comment: {url}");
    assert_accessible(&browser.axe().await, "the page after a comment");
    let shot = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .map_or_else(|| "target".into(), std::path::PathBuf::from)
        .join("guest-page");
    browser
        .screenshot(1280, &shot.join("desktop-comments.png"))
        .await;

    // A blank comment, as a browser without validation would send it.
    browser
        .run(
            "for (const f of document.forms) f.noValidate = true;",
            Vec::new(),
        )
        .await;
    browser
        .control(&approval, "Write a comment")
        .await
        .send_keys("   ")
        .await
        .unwrap();
    browser
        .press(browser.button(&approval, "Comment").await)
        .await;
    let summary = browser.text_of(".problem").await;
    assert!(summary.contains("must not be empty or blank"), "{summary}");
    assert!(!browser.dialog_open().await);
    assert_accessible(&browser.axe().await, "the page with a refused comment");
    browser.quit().await;
}
