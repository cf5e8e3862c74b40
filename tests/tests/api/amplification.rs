//! What a client can multiply (issue "Hard to break, round two", point 3): sections per
//! template, options per element and in all, the size a template takes once built, the body
//! of a list page and the guest page each have a cap (docs/api.md, "Limits").

use procflow_domain::template::limits::{
    MAX_OPTIONS, MAX_OPTIONS_PER_ELEMENT, MAX_SECTIONS, MAX_STORED_BYTES,
};
use procflow_domain::values::MAX_PAGE_BYTES;
use procflow_tests::TestApp;
use serde_json::{Value, json};

fn sections(count: usize) -> Value {
    let mut sections: Vec<Value> = (0..count)
        .map(|s| json!({"title": format!("S{s}")}))
        .collect();
    sections[0]["tasks"] = json!([{"title": "Only task"}]);
    json!({"title": "Many sections", "sections": sections})
}

/// A distinct option of at most 3 characters for each `n` under 62³.
fn short(n: usize) -> String {
    const SYMBOLS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let (mut n, mut text) = (n, String::new());
    loop {
        text.push(char::from(SYMBOLS[n % 62]));
        n /= 62;
        if n == 0 {
            return text;
        }
        n -= 1;
    }
}

fn with_options(per_element: &[usize]) -> Value {
    let tasks: Vec<Value> = per_element
        .iter()
        .enumerate()
        .map(|(t, &count)| {
            let options: Vec<String> = (0..count).map(short).collect();
            json!({"title": format!("Task {t}"), "custom_elements": [
                {"type": "multichoice", "label": "Pick", "options": options}
            ]})
        })
        .collect();
    json!({"title": "Many options", "sections": [{"title": "All", "tasks": tasks}]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_has_at_most_its_cap_of_sections() {
    let app = TestApp::spawn().await;
    app.create_template(&sections(MAX_SECTIONS)).await;
    let message = app
        .post("/api/v1/process-templates", &sections(MAX_SECTIONS + 1))
        .await
        .error(400, "validation_error");
    assert_eq!(
        message,
        format!("sections: a template has at most {MAX_SECTIONS} sections")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_element_has_at_most_its_cap_of_options_and_a_template_its_cap_in_all() {
    let app = TestApp::spawn().await;
    app.create_template(&with_options(&[MAX_OPTIONS_PER_ELEMENT]))
        .await;
    let message = app
        .post(
            "/api/v1/process-templates",
            &with_options(&[MAX_OPTIONS_PER_ELEMENT + 1]),
        )
        .await
        .error(400, "validation_error");
    assert_eq!(
        message,
        format!(
            "sections[0].tasks[0].custom_elements[0].options: an element has at most \
             {MAX_OPTIONS_PER_ELEMENT} options"
        )
    );
    // The old amplification: one element of 160,000 options in a body under 1 MiB, a guest
    // page of 25 MB.
    let old = with_options(&[160_000]);
    assert!(serde_json::to_vec(&old).unwrap().len() < 1024 * 1024);
    app.post("/api/v1/process-templates", &old)
        .await
        .error(400, "validation_error");
    let full = vec![MAX_OPTIONS_PER_ELEMENT; MAX_OPTIONS / MAX_OPTIONS_PER_ELEMENT];
    app.create_template(&with_options(&full)).await;
    let mut over = full;
    over.push(1);
    let message = app
        .post("/api/v1/process-templates", &with_options(&over))
        .await
        .error(400, "validation_error");
    let last = over.len() - 1;
    assert_eq!(
        message,
        format!(
            "sections[0].tasks[{last}].custom_elements[0].options: a template has at most \
             {MAX_OPTIONS} options in all its elements"
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_would_build_a_template_over_its_stored_cap_is_refused() {
    let app = TestApp::spawn().await;
    // 30,000 elements of 21 bytes each: a body of 0.7 MB, each element about 110 bytes once
    // its id and defaults are filled in.
    let tasks: Vec<Value> = (0..300)
        .map(|t| {
            json!({"title": format!("T{t}"), "custom_elements": vec![json!({"type": "lineBreak"}); 100]})
        })
        .collect();
    let document = json!({"title": "Rules", "sections": [{"title": "All", "tasks": tasks}]});
    let body = serde_json::to_vec(&document).unwrap();
    assert!(body.len() < 1024 * 1024, "{}", body.len());
    let message = app
        .post("/api/v1/process-templates", &document)
        .await
        .error(400, "validation_error");
    assert!(
        message.starts_with("body: the template would take ")
            && message.ends_with(&format!("at most {MAX_STORED_BYTES}")),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_page_over_its_byte_cap_is_cut_short_and_the_rest_follows_its_cursor() {
    let app = TestApp::spawn().await;
    // Each about 0.96 MB in the list shape: five of them cannot share one page.
    let description = "d".repeat(96_000);
    let document = json!({"title": "Big", "sections": (0..10)
        .map(|s| json!({"title": format!("S{s}"), "description": description}))
        .collect::<Vec<_>>()});
    let mut created = vec![app.template.id.clone()];
    for _ in 0..5 {
        let template = app.create_template(&document).await;
        created.push(template["id"].as_str().unwrap().to_owned());
    }
    let reply = app.get("/api/v1/process-templates?limit=100").await;
    assert!(
        reply.text.len() <= MAX_PAGE_BYTES,
        "a page of {} bytes",
        reply.text.len()
    );
    let (first, cursor, has_more) = reply.list();
    assert!(has_more);
    assert!(first.len() < created.len(), "{} items", first.len());
    assert_eq!(
        cursor.as_deref(),
        first.last().unwrap()["id"].as_str(),
        "the cursor is the last item shown"
    );
    let everything: Vec<String> = app
        .all("/api/v1/process-templates")
        .await
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(everything, created, "every template once, in order");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guest_page_of_a_template_at_its_option_caps_stays_small() {
    let app = TestApp::spawn().await;
    let full = vec![MAX_OPTIONS_PER_ELEMENT; MAX_OPTIONS / MAX_OPTIONS_PER_ELEMENT];
    let seeded = app.seed_published(&with_options(&full)).await;
    let run = app.start_run(&json!({"template_id": seeded.id})).await;
    let link = app.share(run["id"].as_str().unwrap(), None).await;
    let page = app.open_page(&link.page()).await;
    page.assert_status(200);
    // 160,000 options made a page of 25 MB; the most a template may have makes about 1.6 MB.
    assert!(
        page.text.len() < 3 * 1024 * 1024,
        "a guest page of {} bytes",
        page.text.len()
    );
}
