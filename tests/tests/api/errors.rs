//! The error table of API contract 1 (and spec 7): each row's status and code in the envelope,
//! with `Content-Type: application/json` and `X-Request-Id`, the framework's own errors
//! included. The 409 rows are also exercised where their rule lives (runs, tasks, templates,
//! sharing); `Reply::error` checks the envelope and headers of every one of them.

use procflow_tests::{TestApp, unknown_id};
use reqwest::Method;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_resource_is_404_naming_the_resource() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    for (path, resource) in [
        (
            format!("/api/v1/process-templates/{}", unknown_id()),
            "process template",
        ),
        (
            format!("/api/v1/process-templates/{}/tasks", unknown_id()),
            "process template",
        ),
        (
            format!("/api/v1/process-runs/{}", unknown_id()),
            "process run",
        ),
        (
            format!("/api/v1/process-runs/{}/tasks", unknown_id()),
            "process run",
        ),
        (
            format!("/api/v1/process-runs/{run_id}/tasks/{}", unknown_id()),
            "task",
        ),
    ] {
        let message = app.get(&path).await.error(404, "not_found");
        assert!(message.contains(resource), "{path}: {message}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_id_in_the_path_is_404() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let upper = run_id.to_uppercase();
    for path in [
        "/api/v1/process-templates/nope".to_owned(),
        "/api/v1/process-templates/123/tasks".to_owned(),
        "/api/v1/process-runs/%20".to_owned(),
        format!("/api/v1/process-runs/{}", run_id.replace('-', "")),
        format!("/api/v1/process-runs/{run_id}/tasks/1"),
        format!("/api/v1/process-runs/{upper}x"),
    ] {
        app.get(&path).await.error(404, "not_found");
    }
    app.patch(
        &format!("/api/v1/process-runs/{run_id}/tasks/zzz"),
        &json!({"completed": true}),
    )
    .await
    .error(404, "not_found");
    app.post(
        "/api/v1/process-templates/nope/publish",
        &json!({"published": true}),
    )
    .await
    .error(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_route_is_404_in_the_envelope() {
    let app = TestApp::spawn().await;
    for path in [
        "/api/v1/nope",
        "/api/v2/process-runs",
        "/api/v1/process-runs/a/b/c/d",
        // Below a task (its paths are one scope in the route table): nothing there but its
        // own, and a trailing slash is another path.
        "/api/v1/process-runs/a/tasks/b/c",
        "/api/v1/process-runs/a/tasks/b/",
        "/api/v1/process-runs/a/tasks/b/comments/c",
        "/api/v1/process-runs/a/tasks/b/commentsx",
        "/",
        "/favicon.ico",
    ] {
        app.get(path).await.error(404, "not_found");
        app.call(Method::GET, path)
            .no_key()
            .send()
            .await
            .error(404, "not_found");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_method_on_a_known_route_is_405_in_the_envelope() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let task = app.task_id(&run_id, "Say hello").await;
    let template = &app.template.id;
    for (method, path) in [
        (Method::DELETE, "/api/v1/process-runs".to_owned()),
        (Method::PUT, "/api/v1/process-runs".to_owned()),
        (Method::PATCH, "/api/v1/process-templates".to_owned()),
        (Method::DELETE, format!("/api/v1/process-runs/{run_id}")),
        (Method::PUT, format!("/api/v1/process-runs/{run_id}/invite")),
        (Method::GET, format!("/api/v1/process-runs/{run_id}/invite")),
        (Method::POST, format!("/api/v1/process-runs/{run_id}/tasks")),
        (
            Method::DELETE,
            format!("/api/v1/process-runs/{run_id}/tasks/{task}"),
        ),
        (
            Method::PUT,
            format!("/api/v1/process-runs/{run_id}/tasks/{task}/comments"),
        ),
        (
            Method::PATCH,
            format!("/api/v1/process-runs/{run_id}/tasks/{task}/attachments"),
        ),
        (
            Method::GET,
            format!("/api/v1/process-templates/{template}/publish"),
        ),
        (
            Method::POST,
            format!("/api/v1/process-templates/{template}"),
        ),
        (Method::POST, "/healthz".to_owned()),
    ] {
        app.call(method, &path)
            .send()
            .await
            .error(405, "method_not_allowed");
    }
    assert_eq!(
        app.run(&run_id).await["id"],
        run_id.as_str(),
        "DELETE changed nothing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_is_a_validation_error() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let task = app.task_id(&run_id, "Say hello").await;
    for (method, path) in [
        (Method::POST, "/api/v1/process-runs".to_owned()),
        (Method::POST, "/api/v1/process-templates".to_owned()),
        (
            Method::PATCH,
            format!("/api/v1/process-runs/{run_id}/tasks/{task}"),
        ),
        (
            Method::POST,
            format!("/api/v1/process-runs/{run_id}/invite"),
        ),
    ] {
        for body in ["{", "{\"completed\": tru}", "", "[1,", "{} {}"] {
            app.call(method.clone(), &path)
                .raw(body, Some("application/json"))
                .send()
                .await
                .error(400, "validation_error");
        }
    }
    assert_eq!(app.run_tasks(&run_id).await[2]["completed"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_field_of_the_wrong_type_is_a_validation_error_naming_it() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let task = app.task_id(&run_id, "Say hello").await;
    let task_path = format!("/api/v1/process-runs/{run_id}/tasks/{task}");
    for (path, body, field) in [
        (
            "/api/v1/process-runs".to_owned(),
            json!({"template_id": 5}),
            "template_id",
        ),
        (
            "/api/v1/process-runs".to_owned(),
            json!({"template_id": app.template.id, "custom_elements": {}}),
            "custom_elements",
        ),
        (task_path.clone(), json!({"completed": "yes"}), "completed"),
        (task_path.clone(), json!({"skipped": 1}), "skipped"),
        (
            task_path.clone(),
            json!({"custom_elements": "x"}),
            "custom_elements",
        ),
        (
            task_path.clone(),
            json!({"actor_email": false}),
            "actor_email",
        ),
        (
            format!("/api/v1/process-templates/{}/publish", app.template.id),
            json!({"published": "true"}),
            "published",
        ),
    ] {
        let message = app
            .call(
                if path.contains("/tasks/") {
                    Method::PATCH
                } else {
                    Method::POST
                },
                &path,
            )
            .json(&body)
            .send()
            .await
            .error(400, "validation_error");
        assert!(message.contains(field), "{body}: {message}");
    }
    app.post(
        &format!("/api/v1/process-templates/{}/publish", app.template.id),
        &json!({}),
    )
    .await
    .error(400, "validation_error");
    app.post("/api/v1/process-runs", &json!([app.template.id]))
        .await
        .error(400, "validation_error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_field_is_a_validation_error_naming_it() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let task = app.task_id(&run_id, "Say hello").await;
    for (method, path, body) in [
        (
            Method::POST,
            "/api/v1/process-runs".to_owned(),
            json!({"template_id": app.template.id, "colour": "red"}),
        ),
        (
            Method::PATCH,
            format!("/api/v1/process-runs/{run_id}/tasks/{task}"),
            json!({"colour": "red", "completed": true}),
        ),
        (
            Method::POST,
            format!("/api/v1/process-runs/{run_id}/invite"),
            json!({"colour": "red"}),
        ),
        (
            Method::POST,
            format!("/api/v1/process-templates/{}/publish", app.template.id),
            json!({"published": true, "colour": "red"}),
        ),
        (
            Method::POST,
            "/api/v1/process-templates".to_owned(),
            json!({"title": "T", "colour": "red"}),
        ),
    ] {
        let message = app
            .call(method, &path)
            .json(&body)
            .send()
            .await
            .error(400, "validation_error");
        assert!(message.contains("colour"), "{path}: {message}");
    }
    let runs = app.all("/api/v1/process-runs").await;
    assert_eq!(runs.len(), 1, "no run was created");
    assert_eq!(runs[0]["is_shared"], false);
    assert_eq!(app.run_tasks(&run_id).await[2]["completed"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_query_value_is_a_validation_error() {
    let app = TestApp::spawn().await;
    for path in [
        "/api/v1/process-runs?status=paused",
        "/api/v1/process-runs?status=",
        "/api/v1/process-runs?template_id=nope",
        "/api/v1/process-runs?colour=red",
        "/api/v1/process-templates?colour=red",
        "/api/v1/process-runs?limit=10&limit=20",
    ] {
        let message = app.get(path).await.error(400, "validation_error");
        assert!(!message.is_empty(), "{path}");
    }
    let message = app
        .get("/api/v1/process-runs?status=paused")
        .await
        .error(400, "validation_error");
    assert!(message.contains("status"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_one_mebibyte_is_413() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let task = app.task_id(&run_id, "Collect documents").await;
    let name = app.template.element_id("Collect documents", "Full name");
    let big = "x".repeat(1024 * 1024 + 1);
    let body = json!({"custom_elements": [{"id": name, "value": big}]});
    app.patch_task(&run_id, &task, &body)
        .await
        .error(413, "payload_too_large");
    let template = json!({"title": big});
    app.post("/api/v1/process-templates", &template)
        .await
        .error(413, "payload_too_large");
    assert_eq!(
        app.run_tasks(&run_id).await[0]["custom_elements"][0]["value"],
        serde_json::Value::Null
    );
    // Just under the limit is read (and refused by the 100,000-character rule instead).
    let under = json!({"custom_elements": [{"id": name, "value": "y".repeat(1024 * 1000)}]});
    app.patch_task(&run_id, &task, &under)
        .await
        .error(400, "validation_error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_is_not_json_is_415() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let task = app.task_id(&run_id, "Say hello").await;
    let body = json!({"template_id": app.template.id}).to_string();
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("application/xml"),
        None,
    ] {
        app.call(Method::POST, "/api/v1/process-runs")
            .raw(body.clone(), content_type)
            .send()
            .await
            .error(415, "unsupported_media_type");
        app.call(
            Method::PATCH,
            &format!("/api/v1/process-runs/{run_id}/tasks/{task}"),
        )
        .raw("{\"completed\": true}", content_type)
        .send()
        .await
        .error(415, "unsupported_media_type");
    }
    assert_eq!(app.all("/api/v1/process-runs").await.len(), 1);
    assert_eq!(app.run_tasks(&run_id).await[2]["completed"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_with_a_charset_is_accepted() {
    let app = TestApp::spawn().await;
    let body = json!({"template_id": app.template.id}).to_string();
    app.call(Method::POST, "/api/v1/process-runs")
        .raw(body, Some("application/json; charset=utf-8"))
        .send()
        .await
        .data(201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_response_has_its_own_request_id() {
    let app = TestApp::spawn().await;
    let mut ids = std::collections::HashSet::new();
    let replies = [
        app.get("/api/v1/process-templates").await,
        app.get("/api/v1/process-templates").await,
        app.get("/api/v1/nope").await,
        app.call(Method::GET, "/api/v1/process-runs")
            .no_key()
            .send()
            .await,
        app.call(Method::GET, "/healthz").no_key().send().await,
    ];
    for reply in &replies {
        reply.assert_request_id();
        reply.assert_json_content_type();
        ids.insert(reply.header("x-request-id").unwrap().to_owned());
    }
    assert_eq!(ids.len(), replies.len(), "request ids are unique: {ids:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_database_is_503_unavailable() {
    let app = TestApp::spawn().await;
    // A loopback port nothing listens on: connections are refused at once.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let down = app.spawn_instance_on(&format!("postgres://postgres@127.0.0.1:{port}/gone"));
    let ready = app
        .call(Method::GET, "/readyz")
        .at(down.base())
        .no_key()
        .send()
        .await;
    let message = ready.error(503, "unavailable");
    assert!(
        !message.contains(&port.to_string()),
        "no internal detail: {message}"
    );
    let api = app
        .call(Method::GET, "/api/v1/process-runs")
        .at(down.base())
        .send()
        .await;
    let message = api.error(503, "unavailable");
    assert!(
        !message.contains("127.0.0.1"),
        "no internal detail: {message}"
    );
    app.call(Method::GET, "/healthz")
        .at(down.base())
        .no_key()
        .send()
        .await
        .assert_status(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nested_object_sent_as_an_array_is_a_validation_error_naming_it() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let task = app.task_id(&run_id, "Say hello").await;
    let element = app.template.element_id("Say hello", "Done");
    let task_path = format!("/api/v1/process-runs/{run_id}/tasks/{task}");
    let tasks_before = app.run_tasks(&run_id).await;
    for (method, path, body, field) in [
        (
            Method::POST,
            "/api/v1/process-runs".to_owned(),
            json!({"template_id": app.template.id,
                   "custom_elements": [[app.template.id, element, true]]}),
            "custom_elements[0]",
        ),
        (
            Method::PATCH,
            task_path.clone(),
            json!({"custom_elements": [[element, true]]}),
            "custom_elements[0]",
        ),
        (
            Method::PATCH,
            format!("/api/v1/process-runs/{run_id}/tasks"),
            json!({"tasks": [[task, true]]}),
            "tasks[0]",
        ),
        (
            Method::POST,
            "/api/v1/process-templates".to_owned(),
            json!({"title": "T", "sections": [["S", null, null, []]]}),
            "sections[0]",
        ),
    ] {
        let message = app
            .call(method.clone(), &path)
            .json(&body)
            .send()
            .await
            .error(400, "validation_error");
        assert!(
            message.starts_with(&format!("{field}: invalid type: sequence")),
            "{method} {path}: {message}"
        );
    }
    assert_eq!(
        app.run_tasks(&run_id).await,
        tasks_before,
        "nothing was written"
    );
    assert_eq!(app.all("/api/v1/process-runs").await.len(), 1);
    assert_eq!(app.all("/api/v1/process-templates").await.len(), 1);
}
