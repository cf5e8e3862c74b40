//! Tenant isolation (spec 5 rule 4, API contract 1): another team's resources answer 404
//! exactly like missing ones, on every route, and nothing changes.

use procflow_tests::{TestApp, sized_document};
use reqwest::Method;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_resource_of_another_team_is_not_found_and_left_unchanged() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let task_id = app.task_id(&run_id, "Say hello").await;
    app.post(&format!("/api/v1/process-runs/{run_id}/invite"), &json!({}))
        .await
        .data(200);
    let template = app.template.id.clone();
    let before_template = app
        .get(&format!("/api/v1/process-templates/{template}"))
        .await
        .data(200);
    let before_run = app.run(&run_id).await;
    let before_tasks = app.run_tasks(&run_id).await;

    let requests: Vec<(Method, String, Option<Value>, &str)> = vec![
        (
            Method::GET,
            format!("/api/v1/process-templates/{template}"),
            None,
            "process template",
        ),
        (
            Method::GET,
            format!("/api/v1/process-templates/{template}/tasks"),
            None,
            "process template",
        ),
        (
            Method::POST,
            format!("/api/v1/process-templates/{template}/publish"),
            Some(json!({"published": false})),
            "process template",
        ),
        (
            Method::PUT,
            format!("/api/v1/process-templates/{template}"),
            Some(sized_document("Hijacked", 1)),
            "process template",
        ),
        (
            Method::DELETE,
            format!("/api/v1/process-templates/{template}"),
            None,
            "process template",
        ),
        (
            Method::POST,
            "/api/v1/process-runs".to_owned(),
            Some(json!({"template_id": template})),
            "process template",
        ),
        (
            Method::GET,
            format!("/api/v1/process-runs/{run_id}"),
            None,
            "process run",
        ),
        (
            Method::GET,
            format!("/api/v1/process-runs/{run_id}/tasks"),
            None,
            "process run",
        ),
        (
            Method::GET,
            format!("/api/v1/process-runs/{run_id}/tasks/{task_id}"),
            None,
            "process run",
        ),
        (
            Method::PATCH,
            format!("/api/v1/process-runs/{run_id}/tasks/{task_id}"),
            Some(json!({"completed": true, "assignee": "admin@b.example"})),
            "process run",
        ),
        (
            Method::POST,
            format!("/api/v1/process-runs/{run_id}/invite"),
            Some(json!({"email": "guest@example.org"})),
            "process run",
        ),
        (
            Method::DELETE,
            format!("/api/v1/process-runs/{run_id}/invite"),
            None,
            "process run",
        ),
    ];
    for (method, path, body, resource) in requests {
        let mut call = app.call(method.clone(), &path).key(&app.other_key);
        if let Some(body) = &body {
            call = call.json(body);
        }
        let message = call.send().await.error(404, "not_found");
        assert!(message.contains(resource), "{method} {path}: {message}");
    }

    let after_template = app
        .get(&format!("/api/v1/process-templates/{template}"))
        .await
        .data(200);
    assert_eq!(after_template, before_template);
    assert_eq!(app.run(&run_id).await, before_run);
    assert_eq!(app.run_tasks(&run_id).await, before_tasks);
    let (other_runs, _, _) = app
        .call(Method::GET, "/api/v1/process-runs")
        .key(&app.other_key)
        .send()
        .await
        .list();
    assert!(
        other_runs.is_empty(),
        "no run was started for the other team"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_teams_answer_is_the_same_as_for_a_missing_resource() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let theirs = app
        .call(Method::GET, &format!("/api/v1/process-runs/{run_id}"))
        .key(&app.other_key)
        .send()
        .await;
    let missing = app
        .call(
            Method::GET,
            &format!("/api/v1/process-runs/{}", procflow_tests::unknown_id()),
        )
        .key(&app.other_key)
        .send()
        .await;
    theirs.error(404, "not_found");
    assert_eq!(
        theirs.json()["error"]["message"],
        missing.json()["error"]["message"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_show_only_the_callers_team() {
    let app = TestApp::spawn().await;
    app.start_demo_run().await;
    let other_template = app
        .call(Method::POST, "/api/v1/process-templates")
        .key(&app.other_key)
        .json(&sized_document("Theirs", 1))
        .send()
        .await
        .data(201);
    let other_id = other_template["id"].as_str().unwrap();
    app.call(
        Method::POST,
        &format!("/api/v1/process-templates/{other_id}/publish"),
    )
    .key(&app.other_key)
    .json(&json!({"published": true}))
    .send()
    .await
    .data(200);
    let other_run = app
        .call(Method::POST, "/api/v1/process-runs")
        .key(&app.other_key)
        .json(&json!({"template_id": other_id}))
        .send()
        .await
        .data(201);
    assert_eq!(other_run["team_id"], app.other.id.to_string());
    assert_eq!(other_run["timezone"], "UTC");

    let templates = app.all("/api/v1/process-templates").await;
    assert_eq!(templates.len(), 1);
    assert_eq!(templates[0]["id"], app.template.id.as_str());
    let runs = app.all("/api/v1/process-runs").await;
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["team_id"], app.team.id.to_string());
    let filtered = app
        .all(&format!("/api/v1/process-runs?template_id={other_id}"))
        .await;
    assert!(
        filtered.is_empty(),
        "filtering by another team's template finds nothing"
    );
    // A cursor naming another team's run names no item of this list.
    app.get(&format!(
        "/api/v1/process-runs?cursor={}",
        other_run["id"].as_str().unwrap()
    ))
    .await
    .error(400, "validation_error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_share_token_opens_only_its_own_run() {
    let app = TestApp::spawn().await;
    let shared = app.start_demo_run().await;
    let other = app.start_demo_run().await;
    let url = app
        .post(&format!("/api/v1/process-runs/{shared}/invite"), &json!({}))
        .await
        .data(200)["share_url"]
        .as_str()
        .unwrap()
        .to_owned();
    let token = url.split("token=").nth(1).unwrap();
    app.call(Method::GET, &format!("/instance/{other}?token={token}"))
        .no_key()
        .send()
        .await
        .assert_status(404);
}
