//! Custom elements (spec 2.7, 4.6 rule 3, 4.11 rules 2 to 4): the shape of each of the 14
//! types, and every type accepted and refused, through PATCH and through pre-fill on create.

use procflow_tests::{
    OPTIONS, Seeded, TestApp, assert_keys, element_fields, every_element_document, unknown_id,
};
use serde_json::{Value, json};

const DISPLAY_ONLY: [&str; 5] = ["text", "image", "video", "file", "lineBreak"];

/// Values each input type accepts (`null`, which clears, is tested apart).
fn accepted() -> Vec<(&'static str, Vec<Value>)> {
    vec![
        (
            "shortText",
            vec![json!("Ada"), json!(""), json!("ünïcødé ✓")],
        ),
        ("longText", vec![json!("line one\nline two")]),
        ("number", vec![json!(42), json!(-1.5), json!(0)]),
        ("email", vec![json!("ada@example.com")]),
        (
            "website",
            vec![
                json!("https://example.com/path?q=1"),
                json!("http://example.org"),
            ],
        ),
        ("date", vec![json!("2026-03-01")]),
        ("checkbox", vec![json!(true), json!(false)]),
        ("dropdown", vec![json!("R&D"), json!("Eng")]),
        ("multichoice", vec![json!(["Eng", "R&D"]), json!([])]),
    ]
}

/// Values each input type refuses (spec 2.7's accepted value on write; decisions "Form
/// values").
fn refused() -> Vec<(&'static str, Vec<Value>)> {
    vec![
        (
            "shortText",
            vec![
                json!(1),
                json!(true),
                json!(["a"]),
                json!({"a": 1}),
                json!("a\u{0}b"),
            ],
        ),
        ("longText", vec![json!(1), json!(false), json!(["a"])]),
        (
            "number",
            vec![json!("1"), json!(true), json!([1]), json!({})],
        ),
        (
            "email",
            vec![
                json!("ada"),
                json!("ada@"),
                json!(" ada@example.com"),
                json!(1),
            ],
        ),
        (
            "website",
            vec![
                json!("example.com"),
                json!("ftp://example.com"),
                json!("/relative"),
                json!(1),
            ],
        ),
        (
            "date",
            vec![
                json!("01/03/2026"),
                json!("2026-02-30"),
                json!("2026-03-01T10:00:00Z"),
                json!(20260301),
            ],
        ),
        ("checkbox", vec![json!("true"), json!(1), json!([true])]),
        (
            "dropdown",
            vec![json!("HR"), json!("eng"), json!(["Eng"]), json!(1)],
        ),
        (
            "multichoice",
            vec![
                json!("Eng"),
                json!(["Eng", "HR"]),
                json!(["Eng", "Eng"]),
                json!([1]),
            ],
        ),
    ]
}

struct Form {
    template: Seeded,
    run: String,
    task: String,
}

async fn form(app: &TestApp) -> Form {
    let template = app.seed_published(&every_element_document()).await;
    let run = app.start_run(&json!({"template_id": template.id})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let task = app.task_id(&run, "Fill everything").await;
    Form {
        template,
        run,
        task,
    }
}

impl Form {
    fn element(&self, label: &str) -> String {
        self.template.element_id("Fill everything", label)
    }

    fn path(&self) -> String {
        format!("/api/v1/process-runs/{}/tasks/{}", self.run, self.task)
    }
}

fn value_of<'v>(task: &'v Value, label: &str) -> &'v Value {
    &task["custom_elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["label"] == label)
        .unwrap_or_else(|| panic!("no element {label}"))["value"]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_element_type_has_the_fields_of_spec_2_7() {
    let app = TestApp::spawn().await;
    let form = form(&app).await;
    let task = app.get(&form.path()).await.data(200);
    let elements = task["custom_elements"].as_array().unwrap();
    assert_eq!(elements.len(), 14);
    for element in elements {
        let element_type = element["type"].as_str().unwrap();
        assert_keys(element, &element_fields(element_type));
        assert_eq!(element["label"], element_type);
        assert_eq!(element["required"], false);
        assert_eq!(
            element["display_only"],
            DISPLAY_ONLY.contains(&element_type),
            "display_only of {element_type}"
        );
        if ["dropdown", "multichoice"].contains(&element_type) {
            assert_eq!(element["options"], json!(OPTIONS));
        }
    }
    let file = elements.iter().find(|e| e["type"] == "file").unwrap();
    assert_eq!(file["file_url"], "https://example.com/f.pdf");
    let text = elements.iter().find(|e| e["type"] == "text").unwrap();
    assert_eq!(text["value"], "<p>Read me</p>");
    let image = elements.iter().find(|e| e["type"] == "image").unwrap();
    assert_eq!(image["value"], "https://example.com/i.png");
    let short = elements.iter().find(|e| e["type"] == "shortText").unwrap();
    assert_eq!(short["value"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_input_type_accepts_values_of_its_type_through_patch() {
    let app = TestApp::spawn().await;
    let form = form(&app).await;
    for (label, values) in accepted() {
        for value in values {
            let task = app
                .patch(
                    &form.path(),
                    &json!({"custom_elements": [{"id": form.element(label), "value": value}]}),
                )
                .await
                .data(200);
            assert_eq!(value_of(&task, label), &value, "{label} keeps {value}");
        }
    }
    let read = app.get(&form.path()).await.data(200);
    assert_eq!(value_of(&read, "multichoice"), &json!([]));
    assert_eq!(value_of(&read, "checkbox"), &json!(false));
    assert_eq!(value_of(&read, "number"), &json!(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_input_type_refuses_values_of_another_type_through_patch() {
    let app = TestApp::spawn().await;
    let form = form(&app).await;
    for (label, values) in refused() {
        for value in values {
            let message = app
                .patch(
                    &form.path(),
                    &json!({"custom_elements": [{"id": form.element(label), "value": value}]}),
                )
                .await
                .error(400, "validation_error");
            assert!(
                message.contains(label),
                "the message names the element {label}: {message:?} (value {value})"
            );
        }
    }
    let read = app.get(&form.path()).await.data(200);
    for (label, _) in refused() {
        assert_eq!(
            value_of(&read, label),
            &Value::Null,
            "{label} was not written"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn null_clears_an_input_element() {
    let app = TestApp::spawn().await;
    let form = form(&app).await;
    let id = form.element("shortText");
    app.patch(
        &form.path(),
        &json!({"custom_elements": [{"id": id, "value": "Ada"}]}),
    )
    .await
    .data(200);
    let cleared = app
        .patch(
            &form.path(),
            &json!({"custom_elements": [{"id": id, "value": null}]}),
        )
        .await
        .data(200);
    assert_eq!(value_of(&cleared, "shortText"), &Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_display_only_element_refuses_writes() {
    let app = TestApp::spawn().await;
    let form = form(&app).await;
    for label in DISPLAY_ONLY {
        for value in [json!("<p>changed</p>"), json!(null)] {
            let message = app
                .patch(
                    &form.path(),
                    &json!({"custom_elements": [{"id": form.element(label), "value": value}]}),
                )
                .await
                .error(400, "validation_error");
            assert!(message.contains(label), "{message}");
            assert!(message.contains("display-only"), "{message}");
        }
    }
    let read = app.get(&form.path()).await.data(200);
    assert_eq!(value_of(&read, "text"), "<p>Read me</p>");
    assert_eq!(value_of(&read, "image"), "https://example.com/i.png");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_option_outside_the_options_is_refused_naming_the_element_and_listing_the_options() {
    let app = TestApp::spawn().await;
    let form = form(&app).await;
    for (label, value) in [
        ("dropdown", json!("HR")),
        ("multichoice", json!(["Eng", "HR"])),
    ] {
        let message = app
            .patch(
                &form.path(),
                &json!({"custom_elements": [{"id": form.element(label), "value": value}]}),
            )
            .await
            .error(400, "validation_error");
        assert!(message.contains(label), "names the element: {message}");
        assert!(message.contains("HR"), "names the refused value: {message}");
        for option in OPTIONS {
            assert!(message.contains(option), "lists {option}: {message}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_or_repeated_element_ids_are_refused() {
    let app = TestApp::spawn().await;
    let form = form(&app).await;
    let short = form.element("shortText");
    let demo_element = app.template.element_id("Say hello", "Done");
    for writes in [
        json!([{"id": unknown_id(), "value": "x"}]),
        json!([{"id": "not-an-id", "value": "x"}]),
        json!([{"id": demo_element, "value": true}]),
        json!([{"id": short, "value": "a"}, {"id": short, "value": "b"}]),
        json!([{"id": short}]),
    ] {
        app.patch(&form.path(), &json!({"custom_elements": writes}))
            .await
            .error(400, "validation_error");
    }
    let read = app.get(&form.path()).await.data(200);
    assert_eq!(value_of(&read, "shortText"), &Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prefill_on_create_accepts_a_value_of_every_input_type() {
    let app = TestApp::spawn().await;
    let template = app.seed_published(&every_element_document()).await;
    let task_id = template.task_id("Fill everything");
    let prefill: Vec<Value> = accepted()
        .into_iter()
        .map(|(label, values)| {
            json!({"task_id": task_id, "element_id": template.element_id("Fill everything", label),
                   "value": values[0]})
        })
        .collect();
    let run = app
        .start_run(&json!({"template_id": template.id, "custom_elements": prefill}))
        .await;
    let tasks = app.run_tasks(run["id"].as_str().unwrap()).await;
    for (label, values) in accepted() {
        assert_eq!(value_of(&tasks[0], label), &values[0], "{label}");
    }
    let template_tasks = app
        .all(&format!("/api/v1/process-templates/{}/tasks", template.id))
        .await;
    assert_eq!(
        value_of(&template_tasks[0], "shortText"),
        &Value::Null,
        "pre-filling a run leaves the template alone"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prefill_on_create_refuses_wrong_types_display_only_and_unknown_elements() {
    let app = TestApp::spawn().await;
    let template = app.seed_published(&every_element_document()).await;
    let task_id = template.task_id("Fill everything");
    let element = |label: &str| template.element_id("Fill everything", label);
    let mut cases: Vec<(Value, Option<String>)> = Vec::new();
    for (label, values) in refused() {
        for value in values {
            cases.push((
                json!({"task_id": task_id, "element_id": element(label), "value": value}),
                Some(label.to_owned()),
            ));
        }
    }
    for label in DISPLAY_ONLY {
        cases.push((
            json!({"task_id": task_id, "element_id": element(label), "value": "x"}),
            Some(label.to_owned()),
        ));
    }
    cases.push((
        json!({"task_id": task_id, "element_id": unknown_id(), "value": "x"}),
        None,
    ));
    cases.push((
        json!({"task_id": unknown_id(), "element_id": element("shortText"), "value": "x"}),
        None,
    ));
    cases.push((
        json!({"task_id": app.template.task_id("Say hello"),
               "element_id": app.template.element_id("Say hello", "Done"), "value": true}),
        None,
    ));
    cases.push((
        json!({"task_id": "x", "element_id": element("shortText"), "value": "x"}),
        None,
    ));
    for (prefill, label) in cases {
        let message = app
            .post(
                "/api/v1/process-runs",
                &json!({"template_id": template.id, "custom_elements": [prefill]}),
            )
            .await
            .error(400, "validation_error");
        if let Some(label) = label {
            assert!(
                message.contains(&label),
                "names {label}: {message} ({prefill})"
            );
        }
    }
    let (runs, _, _) = app.get("/api/v1/process-runs").await.list();
    assert!(runs.is_empty(), "no run was created: {runs:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prefill_with_an_option_outside_the_options_lists_the_options() {
    let app = TestApp::spawn().await;
    let template = app.seed_published(&every_element_document()).await;
    let message = app
        .post(
            "/api/v1/process-runs",
            &json!({"template_id": template.id, "custom_elements": [
                {"task_id": template.task_id("Fill everything"),
                 "element_id": template.element_id("Fill everything", "dropdown"),
                 "value": "HR"}]}),
        )
        .await
        .error(400, "validation_error");
    assert!(message.contains("dropdown"), "{message}");
    for option in OPTIONS {
        assert!(message.contains(option), "lists {option}: {message}");
    }
}
