//! A guest's file in a real browser (issue 22): picked in the task's upload form (the file
//! input given the file's absolute path, as WebDriver does) and sent with **Attach**, a file
//! whose name carries markup and script lands back on the page listed as the text it is: no
//! alert, no element made of it; its link serves the bytes that were picked; the page stays
//! accessible (axe-core: no serious or critical violation). A screenshot of the list is
//! written to `target/guest-page/desktop-files.png`.

use procflow_tests::{Browser, TestApp, Violation};
use serde_json::json;

const HOSTILE_NAME: &str = "<img src=x onerror=alert(1)>.html";
const CONTENT: &[u8] = b"<script>alert(2)</script><p>not a page</p>";

#[track_caller]
fn assert_accessible(violations: &[Violation], what: &str) {
    let grave: Vec<&Violation> = violations
        .iter()
        .filter(|v| matches!(v.impact.as_str(), "serious" | "critical"))
        .collect();
    assert!(grave.is_empty(), "{what}: {grave:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_with_a_hostile_name_is_attached_listed_as_text_and_downloaded() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let link = app.share(&run, Some("guest@example.org")).await;
    let hello = app.task_id(&run, "Say hello").await;
    let dir = tempfile::tempdir().unwrap();
    let picked = dir.path().join(HOSTILE_NAME);
    std::fs::write(&picked, CONTENT).unwrap();

    let browser = Browser::start(1280, 900).await;
    browser
        .open(&format!("{}{}", app.base(), link.page()))
        .await;
    assert_accessible(&browser.axe().await, "the page with upload forms");
    browser
        .control(&hello, "Attach a file")
        .await
        .send_keys(picked.to_str().unwrap())
        .await
        .unwrap();
    browser.press(browser.button(&hello, "Attach").await).await;

    assert!(!browser.dialog_open().await, "an alert was raised");
    assert_eq!(
        browser.dangerous_nodes().await,
        json!({"scripts": 0, "svg_outside_sections": 0, "frames": 0, "handlers": [],
               "javascript_urls": [], "pwned": false}),
        "what the page would let run"
    );
    let url = browser.url().await;
    assert!(
        url.ends_with(&format!("#task-{hello}")),
        "back at the task: {url}"
    );
    let files = browser
        .run(
            "const items = [...document.querySelectorAll(arguments[0] + ' li.file')];
             return items.map(li => ({
               name: li.querySelector('a.file-name').textContent,
               elements: li.querySelector('a.file-name').children.length,
               uploader: li.querySelector('.uploader').textContent,
               href: li.querySelector('a.file-name').href,
             }));",
            vec![json!(format!("#task-{hello}"))],
        )
        .await;
    let files = files.as_array().unwrap();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0]["name"], HOSTILE_NAME, "the name as text");
    assert_eq!(files[0]["elements"], 0, "no element made of the name");
    assert_eq!(files[0]["uploader"], "Guest");
    assert_eq!(
        browser
            .run(
                "return document.querySelectorAll('main img').length;",
                Vec::new()
            )
            .await,
        json!(0),
        "no image made of the name"
    );
    assert_accessible(&browser.axe().await, "the page with a file");
    let shot = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .map_or_else(|| "target".into(), std::path::PathBuf::from)
        .join("guest-page");
    browser
        .screenshot(1280, &shot.join("desktop-files.png"))
        .await;
    browser.screenshot(390, &shot.join("phone-files.png")).await;
    assert_accessible(&browser.axe().await, "the page with a file, phone");

    // Its link, as the browser resolved it, serves the picked bytes as a download.
    let href = files[0]["href"].as_str().unwrap();
    assert!(href.starts_with(app.base()), "{href}");
    let got = app.client.get(href).send().await.unwrap();
    assert_eq!(got.status(), 200);
    assert_eq!(got.headers()["content-type"], "application/octet-stream");
    assert!(
        got.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("attachment; filename*=UTF-8''")
    );
    assert_eq!(got.bytes().await.unwrap().as_ref(), CONTENT);
    // And the API saw the guest's upload.
    let stored = app
        .get(&format!(
            "/api/v1/process-runs/{run}/tasks/{hello}/attachments"
        ))
        .await
        .list()
        .0;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0]["filename"], HOSTILE_NAME);
    assert_eq!(stored[0]["uploaded_by"]["is_guest"], true);
    browser.quit().await;
}
