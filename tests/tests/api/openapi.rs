//! The OpenAPI document (`GET /api/v1/openapi.json`, generated from the code) against the
//! running app: it is served without a key and equals the committed `docs/openapi.json`;
//! every operation it lists is routed; and the answers of every operation, successes and
//! errors, match the schemas, content types and headers it documents.

use procflow_domain::team::Subscription;
use procflow_tests::{
    ApiDescription, Options, TestApp, committed_document, concrete_path, every_element_document,
    operation_method, sized_document, unknown_id,
};
use reqwest::Method;
use serde_json::{Value, json};

async fn served(app: &TestApp) -> ApiDescription {
    let reply = app
        .call(Method::GET, "/api/v1/openapi.json")
        .no_key()
        .send()
        .await;
    reply.assert_status(200);
    reply.assert_json_content_type();
    let description = ApiDescription::new(reply.json());
    description.check("get", "/api/v1/openapi.json", &reply);
    description
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_document_is_served_without_a_key_and_is_the_committed_one() {
    let app = TestApp::spawn().await;
    let description = served(&app).await;
    assert!(
        description.document() == &committed_document(),
        "docs/openapi.json is stale: run `make openapi` and commit it"
    );
    // With a key that is no key, too: the document needs none.
    let reply = app
        .call(Method::GET, "/api/v1/openapi.json")
        .key("pf_live_nonsense")
        .send()
        .await;
    reply.assert_status(200);
}

#[test]
fn the_schemas_refuse_what_the_api_never_answers() {
    let api = ApiDescription::new(committed_document());
    let run = json!({
        "id": unknown_id(), "template_id": unknown_id(), "title": "T", "status": "active",
        "started_by": "api", "team_id": unknown_id(), "timezone": "UTC", "due_date": null,
        "is_shared": false, "sections": [], "rules": [], "created_at": "2026-01-01T00:00:00Z",
        "updated_at": null, "completed_at": null,
    });
    assert_eq!(
        api.errors("#/components/schemas/Run", &run),
        Vec::<String>::new()
    );
    for (field, bad) in [
        ("id", json!("not-a-uuid")),
        ("status", json!("paused")),
        ("started_by", json!("robot")),
        ("created_at", json!("yesterday")),
        ("due_date", json!(3)),
    ] {
        let mut broken = run.clone();
        broken[field] = bad;
        assert!(
            !api.errors("#/components/schemas/Run", &broken).is_empty(),
            "{field}: {broken}"
        );
    }
    let mut missing = run.clone();
    missing.as_object_mut().unwrap().remove("completed_at");
    assert!(!api.errors("#/components/schemas/Run", &missing).is_empty());
    assert!(
        !api.errors(
            "#/components/schemas/CreateRun",
            &json!({"template_id": unknown_id(), "colour": 1})
        )
        .is_empty(),
        "unknown fields are refused"
    );
    assert!(
        !api.errors(
            "#/components/schemas/ErrorResponse",
            &json!({"error": {"code": "x"}})
        )
        .is_empty()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_documented_operation_is_routed_and_other_methods_are_405() {
    let app = TestApp::spawn().await;
    let description = served(&app).await;
    let operations = description.operations();
    assert_eq!(operations.len(), 54, "{operations:?}");
    for (name, path) in &operations {
        let url = concrete_path(path);
        let mut call = app.call(operation_method(name), &url);
        if description.operation(name, path)["requestBody"].is_object() {
            call = call.json(&json!({}));
        }
        let reply = call.send().await;
        assert_ne!(reply.status, 405, "{name} {path}: 405 {}", reply.text);
        if reply.status == 404 && reply.header("content-type") == Some("application/json") {
            let message = reply.error(404, "not_found");
            assert!(
                !message.starts_with("no route"),
                "{name} {path}: not routed: {message}"
            );
        }
        // Whatever the answer, it is one the operation documents.
        description.check(name, path, &reply);
    }
    for path in operations
        .iter()
        .map(|(_, p)| p)
        .collect::<std::collections::BTreeSet<_>>()
    {
        for other in ["get", "post", "put", "patch", "delete"] {
            if operations.contains(&(other.to_owned(), path.clone())) {
                continue;
            }
            app.call(operation_method(other), &concrete_path(path))
                .send()
                .await
                .error(405, "method_not_allowed");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_answers_as_documented() {
    let app = TestApp::spawn().await;
    let api = served(&app).await;
    let templates = "/api/v1/process-templates";
    let template = "/api/v1/process-templates/{id}";
    let runs = "/api/v1/process-runs";
    let run = "/api/v1/process-runs/{id}";
    let invite = "/api/v1/process-runs/{id}/invite";
    let task = "/api/v1/process-runs/{id}/tasks/{task_id}";

    for path in ["/healthz", "/readyz"] {
        let reply = app.call(Method::GET, path).no_key().send().await;
        api.check("get", path, &reply);
    }

    // Templates: create, list, get, replace, tasks, publish, archive.
    let reply = app.post(templates, &every_element_document()).await;
    api.check("post", templates, &reply);
    let draft = reply.data(201)["id"].as_str().unwrap().to_owned();
    let reply = app.get(&format!("{templates}?limit=100")).await;
    api.check("get", templates, &reply);
    assert!(reply.list().0.len() >= 2);
    let reply = app.get(&format!("{templates}/{draft}")).await;
    api.check("get", template, &reply);
    let reply = app
        .put(&format!("{templates}/{draft}"), &every_element_document())
        .await;
    api.check("put", template, &reply);
    reply.data(200);
    let reply = app.get(&format!("{templates}/{draft}/tasks")).await;
    api.check("get", "/api/v1/process-templates/{id}/tasks", &reply);
    assert_eq!(reply.list().0.len(), 1);
    // A draft cannot start a run: 409 template_not_published.
    let reply = app.post(runs, &json!({"template_id": draft})).await;
    api.check("post", runs, &reply);
    reply.error(409, "template_not_published");
    let reply = app
        .post(
            &format!("{templates}/{draft}/publish"),
            &json!({"published": true}),
        )
        .await;
    api.check("post", "/api/v1/process-templates/{id}/publish", &reply);
    reply.data(200);
    // A published template cannot be edited: 409 template_published.
    let reply = app
        .put(&format!("{templates}/{draft}"), &every_element_document())
        .await;
    api.check("put", template, &reply);
    reply.error(409, "template_published");

    // Runs: create (with every element type pre-fillable), list, get.
    let reply = app
        .post(
            runs,
            &json!({"template_id": draft, "name": "Documented", "due_date": "2030-01-01",
                    "actor_email": "admin@a.example"}),
        )
        .await;
    api.check("post", runs, &reply);
    let every = reply.data(201)["id"].as_str().unwrap().to_owned();
    let reply = app
        .post(runs, &json!({"template_id": app.template.id}))
        .await;
    api.check("post", runs, &reply);
    let demo = reply.data(201)["id"].as_str().unwrap().to_owned();
    let reply = app
        .get(&format!(
            "{runs}?status=active&template_id={}&limit=5",
            app.template.id
        ))
        .await;
    api.check("get", runs, &reply);
    let reply = app.get(&format!("{runs}/{demo}")).await;
    api.check("get", run, &reply);
    reply.data(200);

    // Tasks: list, get, update (values of every writable type, completion, a decision).
    let reply = app.get(&format!("{runs}/{every}/tasks")).await;
    api.check("get", "/api/v1/process-runs/{id}/tasks", &reply);
    let (tasks, _, _) = reply.list();
    let form = &tasks[0];
    let form_id = form["id"].as_str().unwrap();
    let id_of = |label: &str| -> String {
        form["custom_elements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["label"] == label)
            .and_then(|e| e["id"].as_str())
            .unwrap()
            .to_owned()
    };
    let values = json!([
        {"id": id_of("shortText"), "value": "Ada"},
        {"id": id_of("longText"), "value": "Many\nlines"},
        {"id": id_of("number"), "value": 42.5},
        {"id": id_of("email"), "value": "ada@example.org"},
        {"id": id_of("website"), "value": "https://example.org"},
        {"id": id_of("date"), "value": "2030-01-02"},
        {"id": id_of("checkbox"), "value": true},
        {"id": id_of("dropdown"), "value": "Eng"},
        {"id": id_of("multichoice"), "value": ["Eng", "R&D"]},
    ]);
    let reply = app
        .patch_task(&every, form_id, &json!({"custom_elements": values}))
        .await;
    api.check("patch", task, &reply);
    reply.data(200);
    let reply = app
        .patch_task(
            &every,
            form_id,
            &json!({"custom_elements": [{"id": id_of("text"), "value": "x"}]}),
        )
        .await;
    api.check("patch", task, &reply);
    reply.error(400, "validation_error");
    let reply = app
        .patch_task(
            &every,
            form_id,
            &json!({"completed": true, "actor_email": "member@a.example"}),
        )
        .await;
    api.check("patch", task, &reply);
    assert_eq!(reply.data(200)["completed"], true);
    // That was its only task: the run is completed, its tasks frozen (409 run_completed).
    let reply = app
        .patch_task(&every, form_id, &json!({"completed": false}))
        .await;
    api.check("patch", task, &reply);
    reply.error(409, "run_completed");
    let reply = app.get(&format!("{runs}/{every}/tasks/{form_id}")).await;
    api.check("get", task, &reply);
    let reply = app.get(&format!("{runs}/{every}")).await;
    api.check("get", run, &reply);
    assert_eq!(reply.data(200)["status"], "completed");

    let approval = app.task_id(&demo, "Manager approval").await;
    let reply = app
        .patch_task(
            &demo,
            &approval,
            &json!({"decision": "rejected", "comment": "Not yet", "assignee": "outside@example.org"}),
        )
        .await;
    api.check("patch", task, &reply);
    let reply = app
        .patch_task(
            &demo,
            &app.task_id(&demo, "Team lunch").await,
            &json!({"skipped": true, "assignee": null}),
        )
        .await;
    api.check("patch", task, &reply);
    let reply = app.get(&format!("{runs}/{demo}/tasks/{approval}")).await;
    api.check("get", task, &reply);
    let etag = reply.header("etag").unwrap().to_owned();
    assert_eq!(reply.data(200)["decision"], "rejected");

    // Conditional requests: 304 on a single GET, 412 on a write, 400 for a malformed tag.
    for (path, template) in [
        (format!("{runs}/{demo}/tasks/{approval}"), task),
        (format!("{runs}/{demo}"), run),
        (format!("{templates}/{draft}"), template),
    ] {
        let current = app.get(&path).await;
        let tag = current.header("etag").unwrap().to_owned();
        let reply = app
            .call(Method::GET, &path)
            .header("If-None-Match", &tag)
            .send()
            .await;
        api.check("get", template, &reply);
        reply.assert_status(304);
        let reply = app
            .call(Method::GET, &path)
            .header("If-None-Match", "nope")
            .send()
            .await;
        api.check("get", template, &reply);
        reply.error(400, "validation_error");
    }
    let reply = app
        .call(Method::PATCH, &format!("{runs}/{demo}/tasks/{approval}"))
        .header("If-Match", "\"stale\"")
        .json(&json!({"comment": "x", "decision": "rejected"}))
        .send()
        .await;
    api.check("patch", task, &reply);
    reply.error(412, "precondition_failed");
    let reply = app
        .call(Method::PATCH, &format!("{runs}/{demo}/tasks/{approval}"))
        .header("If-Match", &etag)
        .json(&json!({"decision": "approved"}))
        .send()
        .await;
    api.check("patch", task, &reply);
    assert_ne!(reply.header("etag"), Some(etag.as_str()));
    reply.data(200);
    let reply = app
        .call(Method::PUT, &format!("{templates}/{draft}"))
        .header("If-Match", "W/\"weak\"")
        .json(&every_element_document())
        .send()
        .await;
    api.check("put", template, &reply);
    reply.error(412, "precondition_failed");

    // Several tasks at once: their list, in the order given; an item refused by index.
    let batch = "/api/v1/process-runs/{id}/tasks";
    let open: Vec<Value> = app
        .run_tasks(&demo)
        .await
        .into_iter()
        .filter(|t| t["completed"] == false && t["skipped"] == false && t["type"] == "task")
        .collect();
    // One task stays open: the guest's forms below need an active run.
    assert!(open.len() > 1, "the demo run needs two open tasks here");
    let items: Vec<Value> = open
        .iter()
        .take((open.len() - 1).min(2))
        .map(|t| json!({"id": t["id"], "completed": true}))
        .collect();
    let reply = app
        .patch(
            &format!("{runs}/{demo}/tasks"),
            &json!({"tasks": [{"id": open[0]["id"], "skipped": true, "completed": true}]}),
        )
        .await;
    api.check("patch", batch, &reply);
    reply.error(400, "validation_error");
    let reply = app
        .patch(&format!("{runs}/{demo}/tasks"), &json!({"tasks": items}))
        .await;
    api.check("patch", batch, &reply);
    assert_eq!(reply.items().len(), (open.len() - 1).min(2));

    // Sharing: invite without and with an email, the guest page, a refused invite, stop.
    let reply = app.post(&format!("{runs}/{demo}/invite"), &json!({})).await;
    api.check("post", invite, &reply);
    let reply = app
        .post(
            &format!("{runs}/{demo}/invite"),
            &json!({"email": "guest@example.org", "enable_reminders": true, "reminder_days": 3}),
        )
        .await;
    api.check("post", invite, &reply);
    let share_url = reply.data(200)["share_url"].as_str().unwrap().to_owned();
    let page_path = share_url.strip_prefix(app.base()).unwrap().to_owned();
    let reply = app.call(Method::GET, &page_path).no_key().send().await;
    api.check("get", "/instance/{run_id}", &reply);
    reply.assert_status(200);
    // The guest's forms: applied (303), refused (400), and a task's address opened (303).
    let guest_task = "/instance/{run_id}/tasks/{task_id}";
    let (page_run, page_query) = page_path.split_once('?').unwrap();
    let lunch = app.task_id(&demo, "Team lunch").await;
    let task_path = format!("{page_run}/tasks/{lunch}?{page_query}");
    let reply = app.post_form(&task_path, &[("action", "save")]).await;
    api.check("post", guest_task, &reply);
    reply.assert_status(303);
    let reply = app.post_form(&task_path, &[("action", "fly")]).await;
    api.check("post", guest_task, &reply);
    reply.assert_status(400);
    let reply = app.call(Method::GET, &task_path).no_key().send().await;
    api.check("get", guest_task, &reply);
    reply.assert_status(303);
    // A task's comment form: written (303), refused (400), its address opened (303).
    let guest_comments = "/instance/{run_id}/tasks/{task_id}/comments";
    let comments_path = format!("{page_run}/tasks/{lunch}/comments?{page_query}");
    let reply = app
        .post_form(&comments_path, &[("text", "See you there")])
        .await;
    api.check("post", guest_comments, &reply);
    reply.assert_status(303);
    let reply = app.post_form(&comments_path, &[("text", " ")]).await;
    api.check("post", guest_comments, &reply);
    reply.assert_status(400);
    let reply = app.call(Method::GET, &comments_path).no_key().send().await;
    api.check("get", guest_comments, &reply);
    reply.assert_status(303);
    // A task's upload form: attached (303), refused (400, no file), its address opened (303),
    // and the file served.
    let guest_upload = "/instance/{run_id}/tasks/{task_id}/attachments";
    let upload_path = format!("{page_run}/tasks/{lunch}/attachments?{page_query}");
    let reply = app
        .post_multipart(
            &upload_path,
            procflow_tests::multipart_file("menu.pdf", "application/pdf", b"%PDF"),
        )
        .await;
    api.check("post", guest_upload, &reply);
    reply.assert_status(303);
    let reply = app
        .post_multipart(
            &upload_path,
            procflow_tests::multipart_file("", "application/octet-stream", b""),
        )
        .await;
    api.check("post", guest_upload, &reply);
    reply.assert_status(400);
    let reply = app.call(Method::GET, &upload_path).no_key().send().await;
    api.check("get", guest_upload, &reply);
    reply.assert_status(303);
    let menu = app
        .get(&format!("{runs}/{demo}/tasks/{lunch}/attachments"))
        .await
        .list()
        .0[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let guest_file = "/instance/{run_id}/attachments/{attachment_id}";
    let reply = app
        .call(
            Method::GET,
            &format!("{page_run}/attachments/{menu}?{page_query}"),
        )
        .no_key()
        .send()
        .await;
    api.check("get", guest_file, &reply);
    reply.assert_status(200);
    let reply = app
        .call(
            Method::GET,
            &format!("{page_run}/attachments/not-an-id?{page_query}"),
        )
        .no_key()
        .send()
        .await;
    api.check("get", guest_file, &reply);
    reply.assert_status(404);
    let reply = app
        .post(
            &format!("{runs}/{demo}/invite"),
            &json!({"email": "member@a.example"}),
        )
        .await;
    api.check("post", invite, &reply);
    reply.error(409, "guest_is_team_member");
    let reply = app
        .post(
            &format!("{runs}/{demo}/invite"),
            &json!({"email": "another@example.org"}),
        )
        .await;
    api.check("post", invite, &reply);
    reply.error(409, "guest_already_invited");
    let reply = app.delete(&format!("{runs}/{demo}/invite")).await;
    api.check("delete", invite, &reply);
    assert_eq!(reply.data(200)["is_shared"], false);
    let reply = app.call(Method::GET, &page_path).no_key().send().await;
    api.check("get", "/instance/{run_id}", &reply);
    reply.assert_status(404);

    // Comments: write, list, edit, delete.
    let comments = "/api/v1/process-runs/{id}/tasks/{task_id}/comments";
    let comment = "/api/v1/comments/{id}";
    let first_task = app.run_tasks(&demo).await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let thread = format!("{runs}/{demo}/tasks/{first_task}/comments");
    let reply = app.post(&thread, &json!({"text": "See clause 4"})).await;
    api.check("post", comments, &reply);
    let comment_id = reply.data(201)["id"].as_str().unwrap().to_owned();
    let reply = app.get(&thread).await;
    api.check("get", comments, &reply);
    let reply = app
        .patch(
            &format!("/api/v1/comments/{comment_id}"),
            &json!({"text": "See clause 5"}),
        )
        .await;
    api.check("patch", comment, &reply);
    reply.data(200);
    let reply = app.delete(&format!("/api/v1/comments/{comment_id}")).await;
    api.check("delete", comment, &reply);
    reply.assert_status(204);

    // Attachments: upload, list, download, delete.
    let attachments = "/api/v1/process-runs/{id}/tasks/{task_id}/attachments";
    let files = format!("{runs}/{demo}/tasks/{first_task}/attachments");
    let body = b"--b0\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\nContent-Type: application/pdf\r\n\r\n%PDF\r\n--b0--\r\n";
    let reply = app
        .call(Method::POST, &files)
        .raw(body.to_vec(), Some("multipart/form-data; boundary=b0"))
        .send()
        .await;
    api.check("post", attachments, &reply);
    let attachment_id = reply.data(201)["id"].as_str().unwrap().to_owned();
    let reply = app.get(&files).await;
    api.check("get", attachments, &reply);
    let reply = app
        .get(&format!("/api/v1/attachments/{attachment_id}/content"))
        .await;
    api.check("get", "/api/v1/attachments/{id}/content", &reply);
    reply.assert_status(200);
    let reply = app
        .delete(&format!("/api/v1/attachments/{attachment_id}"))
        .await;
    api.check("delete", "/api/v1/attachments/{id}", &reply);
    reply.assert_status(204);

    // Webhooks: register, list, read, change, sample, log, redeliver, rotate, the feed, delete.
    let hooks = "/api/v1/webhooks";
    let hook = "/api/v1/webhooks/{id}";
    let reply = app
        .post(hooks, &json!({"url": "https://hooks.example.com/in", "events": ["process_run.created"], "description": "docs"}))
        .await;
    api.check("post", hooks, &reply);
    let hook_id = reply.data(201)["id"].as_str().unwrap().to_owned();
    let reply = app.post(hooks, &json!({"url": "http://127.1/"})).await;
    api.check("post", hooks, &reply);
    reply.error(400, "validation_error");
    let reply = app.get(hooks).await;
    api.check("get", hooks, &reply);
    let reply = app.get(&format!("{hooks}/{hook_id}")).await;
    api.check("get", hook, &reply);
    let reply = app
        .patch(
            &format!("{hooks}/{hook_id}"),
            &json!({"description": null, "enabled": false}),
        )
        .await;
    api.check("patch", hook, &reply);
    let reply = app
        .post(
            &format!("{hooks}/{hook_id}/test"),
            &json!({"event": "process_run.completed"}),
        )
        .await;
    api.check("post", "/api/v1/webhooks/{id}/test", &reply);
    let delivery = reply.data(202)["id"].as_str().unwrap().to_owned();
    let reply = app
        .get(&format!("{hooks}/{hook_id}/deliveries?status=pending"))
        .await;
    api.check("get", "/api/v1/webhooks/{id}/deliveries", &reply);
    let reply = app
        .post(
            &format!("/api/v1/webhook-deliveries/{delivery}/redeliver"),
            &json!({}),
        )
        .await;
    api.check("post", "/api/v1/webhook-deliveries/{id}/redeliver", &reply);
    reply.data(202);
    let reply = app
        .post(&format!("{hooks}/{hook_id}/rotate-secret"), &json!({}))
        .await;
    api.check("post", "/api/v1/webhooks/{id}/rotate-secret", &reply);
    let reply = app
        .get("/api/v1/events?event=process_run.created&limit=2")
        .await;
    api.check("get", "/api/v1/events", &reply);
    assert!(!reply.list().0.is_empty());
    let reply = app.get("/api/v1/tasks?overdue=false&limit=3").await;
    api.check("get", "/api/v1/tasks", &reply);
    assert!(!reply.list().0.is_empty());
    let reply = app.delete(&format!("{hooks}/{hook_id}")).await;
    api.check("delete", hook, &reply);
    reply.assert_status(204);
    let reply = app.get(&format!("{hooks}/{hook_id}")).await;
    api.check("get", hook, &reply);
    reply.error(404, "not_found");

    // Schedules: create, list, get, change, delete.
    let schedules = "/api/v1/schedules";
    let schedule = "/api/v1/schedules/{id}";
    let reply = app
        .post(
            schedules,
            &json!({"template_id": app.template.id, "recurrence": "DTSTART:20300107T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO", "run": {"due_in": "P1D"}}),
        )
        .await;
    api.check("post", schedules, &reply);
    let schedule_id = reply.data(201)["id"].as_str().unwrap().to_owned();
    let reply = app.get(&format!("{schedules}?enabled=true")).await;
    api.check("get", schedules, &reply);
    let reply = app.get(&format!("{schedules}/{schedule_id}")).await;
    api.check("get", schedule, &reply);
    let reply = app
        .patch(
            &format!("{schedules}/{schedule_id}"),
            &json!({"enabled": false}),
        )
        .await;
    api.check("patch", schedule, &reply);
    let reply = app
        .post(
            schedules,
            &json!({"template_id": app.template.id, "recurrence": "DTSTART:20300107T090000\nRRULE:FREQ=HOURLY"}),
        )
        .await;
    api.check("post", schedules, &reply);
    reply.error(400, "validation_error");
    let reply = app.delete(&format!("{schedules}/{schedule_id}")).await;
    api.check("delete", schedule, &reply);
    reply.assert_status(204);
    let reply = app.get(&format!("{schedules}/{schedule_id}")).await;
    api.check("get", schedule, &reply);
    reply.error(404, "not_found");

    // A template's run link: on, read, off, and an unknown template.
    let link = "/api/v1/process-templates/{id}/run-link";
    let link_path = format!("{templates}/{}/run-link", app.template.id);
    let reply = app.post(&link_path, &json!({})).await;
    api.check("post", link, &reply);
    assert_eq!(reply.data(200)["enabled"], true);
    let reply = app.get(&link_path).await;
    api.check("get", link, &reply);
    let reply = app.delete(&link_path).await;
    api.check("delete", link, &reply);
    reply.assert_status(204);
    let reply = app.get(&link_path).await;
    api.check("get", link, &reply);
    assert_eq!(reply.data(200)["url"], json!(null));
    let reply = app
        .get(&format!("{templates}/{}/run-link", unknown_id()))
        .await;
    api.check("get", link, &reply);
    reply.error(404, "not_found");

    // Archive a template: 204, no body.
    let spare = app.create_template(&sized_document("Spare", 1)).await;
    let reply = app
        .delete(&format!("{templates}/{}", spare["id"].as_str().unwrap()))
        .await;
    api.check("delete", template, &reply);
    reply.assert_status(204);

    // The errors every operation shares.
    let reply = app.call(Method::GET, templates).no_key().send().await;
    api.check("get", templates, &reply);
    reply.error(401, "unauthorized");
    let reply = app.get(&format!("{templates}?limit=0")).await;
    api.check("get", templates, &reply);
    reply.error(400, "validation_error");
    let reply = app.get(&format!("{runs}/{}", unknown_id())).await;
    api.check("get", run, &reply);
    reply.error(404, "not_found");
    let reply = app
        .call(Method::POST, runs)
        .raw("template_id=1", Some("text/plain"))
        .send()
        .await;
    api.check("post", runs, &reply);
    reply.error(415, "unsupported_media_type");
    let big = format!("{{\"name\": \"{}\"}}", "x".repeat(1024 * 1024 + 10));
    let reply = app
        .call(Method::POST, runs)
        .raw(big, Some("application/json"))
        .send()
        .await;
    api.check("post", runs, &reply);
    reply.error(413, "payload_too_large");
    let reply = app
        .post(runs, &json!({"template_id": app.template.id, "colour": 1}))
        .await;
    api.check("post", runs, &reply);
    reply.error(400, "validation_error");
    // Idempotency-Key: a replay, another body with the same key, a key that is no key.
    let body = json!({"template_id": app.template.id, "name": "Once"});
    let first = app
        .call(Method::POST, runs)
        .header("Idempotency-Key", "openapi-1")
        .json(&body)
        .send()
        .await;
    api.check("post", runs, &first);
    let again = app
        .call(Method::POST, runs)
        .header("Idempotency-Key", "openapi-1")
        .json(&body)
        .send()
        .await;
    api.check("post", runs, &again);
    assert_eq!(again.header("idempotency-replayed"), Some("true"));
    assert_eq!(again.json(), first.json());
    let reply = app
        .call(Method::POST, runs)
        .header("Idempotency-Key", "openapi-1")
        .json(&json!({"template_id": app.template.id, "name": "Twice"}))
        .send()
        .await;
    api.check("post", runs, &reply);
    reply.error(422, "idempotency_key_reused");
    let reply = app
        .call(Method::POST, runs)
        .header("Idempotency-Key", &"k".repeat(256))
        .json(&body)
        .send()
        .await;
    api.check("post", runs, &reply);
    reply.error(400, "validation_error");

    app.set_subscription(Subscription::Inactive).await;
    let reply = app.get(runs).await;
    api.check("get", runs, &reply);
    reply.error(403, "forbidden");

    let unchecked = api.unchecked_successes();
    assert!(
        unchecked.is_empty(),
        "operations whose success answer no test checked: {unchecked:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limited_and_unavailable_answers_are_documented() {
    let app = TestApp::with(Options {
        rate_limit_per_minute: 100,
        ..Options::default()
    })
    .await;
    let api = served(&app).await;
    // The other team's key, unused so far: its 101st request in a minute is refused.
    let mut reply = None;
    for _ in 0..=100 {
        let answer = app
            .call(Method::GET, "/api/v1/process-runs")
            .key(&app.other_key)
            .send()
            .await;
        api.check("get", "/api/v1/process-runs", &answer);
        if answer.status == 429 {
            reply = Some(answer);
            break;
        }
    }
    let reply = reply.expect("a 429 within 101 requests");
    reply.error(429, "rate_limited");
    assert!(reply.header("retry-after").is_some());

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let down = app.spawn_instance_on(&format!("postgres://postgres@127.0.0.1:{port}/gone"));
    let reply = app
        .call(Method::GET, "/readyz")
        .at(down.base())
        .no_key()
        .send()
        .await;
    api.check("get", "/readyz", &reply);
    reply.error(503, "unavailable");
    let value: Value = reply.json();
    api.validate("#/components/schemas/ErrorResponse", &value, "503");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_reply_of_the_harness_is_checked_against_the_document() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    app.get(&format!("/api/v1/process-runs/{run_id}/tasks?limit=3"))
        .await
        .list();
    let checked = procflow_tests::committed().checked();
    for (method, path, status) in [
        ("post", "/api/v1/process-runs", "201"),
        ("get", "/api/v1/process-runs/{id}/tasks", "200"),
    ] {
        assert!(
            checked.contains(&(method.to_owned(), path.to_owned(), status.to_owned())),
            "{method} {path} {status} was not checked; checked: {checked:?}"
        );
    }
    assert_eq!(
        procflow_tests::committed().template_of("get", "/api/v1/nope/x"),
        None
    );
}
