//! Every text input of the JSON API refuses NUL (PostgreSQL cannot store it): each string of a
//! valid body of each write, walked one at a time, is sent with a NUL in it and answers 400
//! `validation_error` in the envelope, nothing changed; the document's request schema refuses
//! the same body (its text fields carry the no-NUL pattern), and admits the valid one.

use procflow_tests::{TestApp, committed};
use serde_json::{Value, json};

/// Every string of `body` with its JSON Pointer, but those `skip` names.
fn strings(body: &Value, at: &str, skip: &[&str], found: &mut Vec<String>) {
    match body {
        Value::String(_) if !skip.contains(&at) => found.push(at.to_owned()),
        Value::Object(fields) => {
            for (name, value) in fields {
                strings(value, &format!("{at}/{name}"), skip, found);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                strings(item, &format!("{at}/{i}"), skip, found);
            }
        }
        _ => {}
    }
}

/// `body` with a NUL in the string at `pointer`.
fn with_nul(body: &Value, pointer: &str) -> Value {
    let mut body = body.clone();
    let text = body.pointer_mut(pointer).unwrap();
    *text = json!(format!("{}\u{0}x", text.as_str().unwrap()));
    body
}

/// Sends `body` once per string of it, each with a NUL: 400 each time, and refused by the
/// document's schema of the body. `skip`: pointers whose refusal is not 400 by contract.
async fn each_string_refuses_nul(
    app: &TestApp,
    method: &str,
    path: &str,
    schema: &str,
    body: &Value,
    skip: &[&str],
) {
    let pointer = format!("#/components/schemas/{schema}");
    let document = committed();
    assert_eq!(
        document.errors(&pointer, body),
        Vec::<String>::new(),
        "{schema}: the valid body"
    );
    let mut found = Vec::new();
    strings(body, "", skip, &mut found);
    assert!(!found.is_empty(), "{method} {path}: no string to walk");
    for at in found {
        let sent = with_nul(body, &at);
        assert!(
            !document.errors(&pointer, &sent).is_empty(),
            "{schema} admits a NUL at {at}"
        );
        let reply = app
            .call(method.parse().unwrap(), path)
            .json(&sent)
            .send()
            .await;
        assert_eq!(
            reply.status, 400,
            "{method} {path} with NUL at {at}: {}",
            reply.text
        );
        reply.error(400, "validation_error");
    }
}

/// A template document with every text field set.
fn full_document() -> Value {
    json!({
        "title": "Every text",
        "description": "described",
        "cover_image": "https://example.com/cover.png",
        "icon": "🚀",
        "icon_type": "emoji",
        "sections": [{"title": "Section", "description": "about", "color": "#EC4899", "tasks": [
            {"title": "Task", "assignee": "runner",
             "due_date": {"type": "relative", "from": "run_start", "offset": "P3D"},
             "custom_elements": [
                {"type": "shortText", "label": "Name"},
                {"type": "dropdown", "label": "Pick", "options": ["a", "b"]},
                {"type": "text", "label": "Note", "value": "<p>Hi</p>"},
                {"type": "file", "label": "File", "file_url": "https://example.com/f.pdf"}]},
            {"title": "Fixed", "due_date": {"type": "fixed", "at": "2030-01-01T00:00:00Z"}}]}]
    })
}

#[tokio::test]
async fn every_text_of_a_template_document_refuses_nul() {
    let app = TestApp::spawn().await;
    let document = full_document();
    app.post("/api/v1/process-templates", &document)
        .await
        .data(201);
    each_string_refuses_nul(
        &app,
        "POST",
        "/api/v1/process-templates",
        "TemplateDocument",
        &document,
        &[],
    )
    .await;
    let draft = app.create_template(&document).await;
    let path = format!(
        "/api/v1/process-templates/{}",
        draft["id"].as_str().unwrap()
    );
    app.put(&path, &document).await.data(200);
    each_string_refuses_nul(&app, "PUT", &path, "TemplateDocument", &document, &[]).await;
}

#[tokio::test]
async fn every_text_of_a_run_and_its_tasks_refuses_nul() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let tasks = app.run_tasks(&run_id).await;
    let task = &tasks[0];
    let element = task["custom_elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["label"] == "Full name")
        .unwrap();
    let template_task = app.template.tasks[0]["id"].as_str().unwrap();
    let create = json!({
        "template_id": app.template.id,
        "name": "A run",
        "due_date": "2030-01-01",
        "actor_email": "nobody@example.com",
        "custom_elements": [{"task_id": template_task, "element_id": element["id"], "value": "Ada"}],
    });
    app.start_run(&create).await;
    // A `template_id` that is no id answers 404 (API contract: Create a run).
    each_string_refuses_nul(
        &app,
        "POST",
        "/api/v1/process-runs",
        "CreateRun",
        &create,
        &["/template_id"],
    )
    .await;
    let update = json!({
        "assignee": "someone@example.com",
        "actor_email": "nobody@example.com",
        "custom_elements": [{"id": element["id"], "value": "Ada"}],
    });
    let task_path = format!(
        "/api/v1/process-runs/{run_id}/tasks/{}",
        task["id"].as_str().unwrap()
    );
    app.patch(&task_path, &update).await.data(200);
    each_string_refuses_nul(&app, "PATCH", &task_path, "UpdateTask", &update, &[]).await;
    let batch = json!({"actor_email": "nobody@example.com", "tasks": [{
        "id": task["id"],
        "custom_elements": [{"id": element["id"], "value": "Ada"}],
    }]});
    let batch_path = format!("/api/v1/process-runs/{run_id}/tasks");
    app.patch(&batch_path, &batch).await.assert_status(200);
    each_string_refuses_nul(&app, "PATCH", &batch_path, "UpdateTasks", &batch, &[]).await;
    // A comment goes with a decision, which settles the approval: the refusals first.
    let approval = tasks
        .iter()
        .find(|t| t["title"] == "Manager approval")
        .unwrap();
    let decide = json!({"decision": "approved", "comment": "fine"});
    let approval_path = format!(
        "/api/v1/process-runs/{run_id}/tasks/{}",
        approval["id"].as_str().unwrap()
    );
    each_string_refuses_nul(&app, "PATCH", &approval_path, "UpdateTask", &decide, &[]).await;
    app.patch(&approval_path, &decide).await.data(200);
    let invite = json!({"email": "guest@example.com"});
    let invite_path = format!("/api/v1/process-runs/{run_id}/invite");
    each_string_refuses_nul(&app, "POST", &invite_path, "Invite", &invite, &[]).await;
    app.post(&invite_path, &invite).await.data(200);
}

#[tokio::test]
async fn every_text_of_a_webhook_refuses_nul() {
    let app = TestApp::spawn().await;
    let create = json!({
        "url": "https://hooks.example.com/procflow",
        "description": "ours",
        "events": ["process_run.created"],
    });
    let webhook = app.post("/api/v1/webhooks", &create).await.data(201);
    each_string_refuses_nul(
        &app,
        "POST",
        "/api/v1/webhooks",
        "CreateWebhook",
        &create,
        &[],
    )
    .await;
    let path = format!("/api/v1/webhooks/{}", webhook["id"].as_str().unwrap());
    app.patch(&path, &create).await.data(200);
    each_string_refuses_nul(&app, "PATCH", &path, "UpdateWebhook", &create, &[]).await;
    let test = json!({"event": "process_run.created"});
    each_string_refuses_nul(
        &app,
        "POST",
        &format!("{path}/test"),
        "TestWebhook",
        &test,
        &[],
    )
    .await;
}
