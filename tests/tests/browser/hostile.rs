//! Hostile titles, values and rich text in a real browser: nothing runs, nothing becomes an
//! element, everything reads as the text it is.

use procflow_tests::{Browser, TestApp};
use serde_json::json;

const SCRIPT: &str = "<script>window.__pwned = true; alert(1)</script>";
const IMG: &str = "<img src=x onerror=\"window.__pwned = true; alert(2)\">";
const SVG: &str = "\"><svg onload=\"window.__pwned = true; alert(3)\">";
const QUOTES: &str = "' onfocus='window.__pwned = true' autofocus x='";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_titles_values_and_rich_text_never_run_and_never_become_elements() {
    let app = TestApp::spawn().await;
    let rich = format!(
        "<p>Hello</p><a href=\"javascript:window.__pwned=true\">click me</a>\
         <a href=\" JaVaScRiPt:window.__pwned=true\">spaced</a>{SCRIPT}{IMG}\
         <iframe src=\"javascript:alert(4)\"></iframe><form action=\"https://evil.example\">\
         <input name=\"x\"></form><style>*{{display:none}}</style>{SVG}"
    );
    let template = app
        .seed_published(&json!({"title": SCRIPT, "sections": [
            {"title": SVG, "description": IMG, "color": "#EC4899", "tasks": [
                {"title": IMG, "custom_elements": [
                    {"type": "shortText", "label": SVG},
                    {"type": "longText", "label": SCRIPT},
                    {"type": "dropdown", "label": QUOTES, "options": [SVG, SCRIPT]},
                    {"type": "text", "label": "Rich", "value": rich},
                    {"type": "file", "label": SCRIPT, "file_url": "https://example.org/f.pdf"}]},
                {"title": "Approve", "type": "approval"}]}]}))
        .await;
    let run = app
        .start_run(&json!({"template_id": template.id, "name": format!("{SCRIPT}{SVG}")}))
        .await;
    let run_id = run["id"].as_str().unwrap().to_owned();
    let task = app.task_id(&run_id, IMG).await;
    let approval = app.task_id(&run_id, "Approve").await;
    app.patch_task(
        &run_id,
        &approval,
        &json!({"decision": "rejected", "comment": format!("{SCRIPT}{IMG}")}),
    )
    .await
    .data(200);
    let link = app.share(&run_id, None).await;
    let browser = Browser::start(1280, 900).await;
    browser
        .open(&format!("{}{}", app.base(), link.page()))
        .await;

    let assert_clean = || async {
        assert!(!browser.dialog_open().await, "an alert was raised");
        let found = browser.dangerous_nodes().await;
        assert_eq!(
            found,
            json!({"scripts": 0, "svg_outside_sections": 0, "frames": 0, "handlers": [],
                   "javascript_urls": [], "pwned": false}),
            "what the page would let run"
        );
        let forms = browser
            .run(
                "return [...document.forms].map(f => new URL(f.getAttribute('action'), document.baseURI).href);",
                Vec::new(),
            )
            .await;
        assert!(
            forms
                .as_array()
                .unwrap()
                .iter()
                .all(|action| action.as_str().unwrap().starts_with(app.base())),
            "every form posts to us: {forms}"
        );
    };
    assert_clean().await;
    // Everything reads as the text it is.
    assert_eq!(browser.text_of("h1").await, format!("{SCRIPT}{SVG}"));
    assert_eq!(browser.text_of("section h2").await, SVG);
    assert_eq!(browser.text_of(&format!("#task-{task} h3")).await, IMG);
    let title = browser.driver().title().await.unwrap();
    assert_eq!(title, format!("{SCRIPT}{SVG}"));
    let rich_text = browser.text_of(".rich").await;
    assert!(rich_text.starts_with("Hello"), "{rich_text}");
    let visible = browser
        .run(
            "return getComputedStyle(document.body).display;",
            Vec::new(),
        )
        .await;
    assert_eq!(
        visible,
        json!("block"),
        "an injected style applies to nothing"
    );

    // A hostile value typed into the form is stored and shown back as text.
    browser
        .control(&task, SVG)
        .await
        .send_keys(SVG)
        .await
        .unwrap();
    browser
        .control(&task, SCRIPT)
        .await
        .send_keys(SCRIPT)
        .await
        .unwrap();
    browser.press(browser.button(&task, "Save").await).await;
    assert_clean().await;
    let shown = browser
        .control(&task, SVG)
        .await
        .prop("value")
        .await
        .unwrap();
    assert_eq!(shown.as_deref(), Some(SVG));
    let shown = browser
        .control(&task, SCRIPT)
        .await
        .prop("value")
        .await
        .unwrap();
    assert_eq!(shown.as_deref(), Some(SCRIPT));
    // The javascript: links lost their href: following them goes nowhere.
    let links = browser
        .run(
            "return [...document.querySelectorAll('.rich a')].map(a => a.hasAttribute('href'));",
            Vec::new(),
        )
        .await;
    assert_eq!(links, json!([false, false]));
    browser.quit().await;
}
