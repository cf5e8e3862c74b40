//! Text inputs at their length limits: the server takes a text of exactly its limit and answers
//! one character more with 400 `validation_error` naming the field, and the document's request
//! schema says the same. The fuzzer cannot check the long ones (it draws at most 8,192
//! characters, docs/reliability.md), so they are checked here.

use procflow_domain::limits::{MAX_COMMENT_CHARS, MAX_TEXT_CHARS, MAX_TITLE_CHARS};
use procflow_tests::{TestApp, committed};
use serde_json::{Value, json};

/// A template document with one of each limited text.
fn document() -> Value {
    json!({
        "title": "Limits",
        "description": "described",
        "sections": [{"title": "Section", "description": "about", "tasks": [
            {"title": "Task", "custom_elements": [
                {"type": "dropdown", "label": "Pick", "options": ["a", "b"]},
                {"type": "text", "label": "Note", "value": "<p>Hi</p>"},
                {"type": "longText", "label": "Notes", "value": "a default"}]}]}]
    })
}

/// `body` with the string at `pointer` replaced by `chars` characters (a multi-byte one, so
/// that a limit counted in bytes would show).
fn with_length(body: &Value, pointer: &str, chars: usize) -> Value {
    let mut body = body.clone();
    *body.pointer_mut(pointer).unwrap() = json!("é".repeat(chars));
    body
}

/// The text at `pointer` of `body`, at `limit` characters and one more: the document admits
/// the first and refuses the second; the server refuses the second with the field's name.
async fn refused_over(
    app: &TestApp,
    (method, path): (&str, &str),
    schema: &str,
    (body, pointer, field): (&Value, &str, &str),
    limit: usize,
) -> Value {
    let document = committed();
    let schema = format!("#/components/schemas/{schema}");
    let at_limit = with_length(body, pointer, limit);
    assert_eq!(
        document.errors(&schema, &at_limit),
        Vec::<String>::new(),
        "{schema} refuses {limit} characters at {pointer}"
    );
    let over = with_length(body, pointer, limit + 1);
    assert!(
        !document.errors(&schema, &over).is_empty(),
        "{schema} admits {} characters at {pointer}",
        limit + 1
    );
    let reply = app
        .call(method.parse().unwrap(), path)
        .json(&over)
        .send()
        .await;
    let message = reply.error(400, "validation_error");
    assert!(
        message.contains(field),
        "{method} {path} over the limit at {pointer}: {message}"
    );
    at_limit
}

#[tokio::test]
async fn template_texts_are_taken_at_their_limit_and_refused_over_it() {
    let app = TestApp::spawn().await;
    let post = ("POST", "/api/v1/process-templates");
    let body = document();
    let element = "sections[0].tasks[0].custom_elements";
    let cases = [
        ("/description", "description".to_owned(), MAX_TEXT_CHARS),
        (
            "/sections/0/description",
            "sections[0].description".to_owned(),
            MAX_TEXT_CHARS,
        ),
        (
            "/sections/0/tasks/0/custom_elements/1/value",
            format!("{element}[1].value"),
            MAX_TEXT_CHARS,
        ),
        (
            "/sections/0/tasks/0/custom_elements/2/value",
            format!("{element}[2].value"),
            MAX_TEXT_CHARS,
        ),
        (
            "/sections/0/tasks/0/custom_elements/0/options/0",
            format!("{element}[0].options[0]"),
            MAX_TITLE_CHARS,
        ),
    ];
    for (pointer, field, limit) in cases {
        let at_limit = refused_over(
            &app,
            post,
            "TemplateDocument",
            (&body, pointer, &field),
            limit,
        )
        .await;
        let created = app.post(post.1, &at_limit).await.data(201);
        let path = format!(
            "/api/v1/process-templates/{}",
            created["id"].as_str().unwrap()
        );
        // A task's texts are read back from the template's task list, the rest from the
        // template.
        let (read, at) = match pointer.strip_prefix("/sections/0/tasks/0") {
            Some(at) => (
                app.get(&format!("{path}/tasks")).await.list().0[0].clone(),
                at,
            ),
            None => (app.get(&path).await.data(200), pointer),
        };
        assert_eq!(
            read.pointer(at)
                .and_then(Value::as_str)
                .map(|t| t.chars().count()),
            Some(limit),
            "{pointer} stored whole"
        );
    }
}

#[tokio::test]
async fn a_blank_or_repeated_option_is_refused_as_the_document_says() {
    let app = TestApp::spawn().await;
    let document = committed();
    let options = "/sections/0/tasks/0/custom_elements/0/options";
    for (choices, message) in [
        (json!(["a", " \t"]), "cannot be empty"),
        (json!(["a", "a"]), "duplicate option"),
    ] {
        let mut body = self::document();
        *body.pointer_mut(options).unwrap() = choices;
        assert!(
            !document
                .errors("#/components/schemas/TemplateDocument", &body)
                .is_empty(),
            "the document admits options {}",
            body.pointer(options).unwrap()
        );
        let reply = app.post("/api/v1/process-templates", &body).await;
        let got = reply.error(400, "validation_error");
        assert!(got.contains(message), "{got}");
    }
}

#[tokio::test]
async fn a_decision_comment_is_taken_at_its_limit_and_refused_over_it() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let tasks = app.run_tasks(&run_id).await;
    let approval = tasks
        .iter()
        .find(|t| t["title"] == "Manager approval")
        .unwrap();
    let path = format!(
        "/api/v1/process-runs/{run_id}/tasks/{}",
        approval["id"].as_str().unwrap()
    );
    let decide = json!({"decision": "approved", "comment": "fine"});
    let at_limit = refused_over(
        &app,
        ("PATCH", &path),
        "UpdateTask",
        (&decide, "/comment", "comment"),
        MAX_COMMENT_CHARS,
    )
    .await;
    let batch =
        json!({"tasks": [{"id": approval["id"], "decision": "approved", "comment": "fine"}]});
    refused_over(
        &app,
        ("PATCH", &format!("/api/v1/process-runs/{run_id}/tasks")),
        "UpdateTasks",
        (&batch, "/tasks/0/comment", "comment"),
        MAX_COMMENT_CHARS,
    )
    .await;
    let decided = app.patch(&path, &at_limit).await.data(200);
    assert_eq!(decided["completed"], true);
    assert_eq!(
        decided["comment"].as_str().map(|c| c.chars().count()),
        Some(MAX_COMMENT_CHARS),
        "the comment stored whole"
    );
}
