//! Runs: create (201, the reduced shape), get and list (the full shape, spec 2.5), attribution
//! (spec 4.6 rules 4 to 6), titles, due dates, filters and the frozen snapshot.

use procflow_tests::{
    CREATED_RUN_FIELDS, RUN_FIELDS, RUN_SECTION_FIELDS, TestApp, assert_keys, sized_document,
    timestamp, unknown_id,
};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creating_a_run_answers_201_with_the_reduced_shape() {
    let app = TestApp::spawn().await;
    let before = time::OffsetDateTime::now_utc();
    let run = app
        .post(
            "/api/v1/process-runs",
            &json!({"template_id": app.template.id}),
        )
        .await
        .data(201);
    assert_keys(&run, CREATED_RUN_FIELDS);
    procflow_tests::uuid(&run["id"]);
    assert_eq!(run["template_id"], app.template.id.as_str());
    assert_eq!(
        run["title"], "Employee onboarding",
        "defaults to the template title"
    );
    assert_eq!(run["status"], "active");
    assert_eq!(run["started_by"], "api");
    assert_eq!(run["team_id"], app.team.id.to_string());
    assert_eq!(run["timezone"], "Europe/Paris", "the team's time zone");
    assert_eq!(run["completed_at"], Value::Null);
    let created_at = timestamp(&run["created_at"]);
    assert!(
        created_at >= before - time::Duration::seconds(5),
        "{created_at}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_reads_back_in_the_full_shape_with_the_templates_sections() {
    let app = TestApp::spawn().await;
    let created = app
        .start_run(&json!({"template_id": app.template.id}))
        .await;
    let id = created["id"].as_str().unwrap();
    let run = app.run(id).await;
    assert_keys(&run, RUN_FIELDS);
    for field in CREATED_RUN_FIELDS {
        assert_eq!(
            run[field], created[field],
            "{field} differs between create and get"
        );
    }
    assert_eq!(run["due_date"], Value::Null);
    assert_eq!(run["is_shared"], false);
    let template = app
        .get(&format!("/api/v1/process-templates/{}", app.template.id))
        .await
        .data(200);
    let sections = run["sections"].as_array().unwrap();
    assert_eq!(sections.len(), 2);
    for (section, of_template) in sections
        .iter()
        .zip(template["sections"].as_array().unwrap())
    {
        assert_keys(section, RUN_SECTION_FIELDS);
        for field in ["id", "title", "order", "color"] {
            assert_eq!(section[field], of_template[field], "section {field}");
        }
    }
    assert!(run["updated_at"].is_null() || run["updated_at"].is_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listing_runs_shows_the_full_shape_newest_first() {
    let app = TestApp::spawn().await;
    let first = app.start_demo_run().await;
    let second = app.start_demo_run().await;
    let third = app.start_demo_run().await;
    let (runs, next_cursor, has_more) = app.get("/api/v1/process-runs").await.list();
    let ids: Vec<_> = runs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [third.as_str(), second.as_str(), first.as_str()]);
    assert!(!has_more);
    assert_eq!(next_cursor.as_deref(), Some(first.as_str()));
    for run in &runs {
        assert_keys(run, RUN_FIELDS);
        for section in run["sections"].as_array().unwrap() {
            assert_keys(section, RUN_SECTION_FIELDS);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_is_titled_by_name_or_by_its_alias_title() {
    let app = TestApp::spawn().await;
    let named = app
        .start_run(&json!({"template_id": app.template.id, "name": "Onboarding Ada"}))
        .await;
    assert_eq!(named["title"], "Onboarding Ada");
    let titled = app
        .start_run(&json!({"template_id": app.template.id, "title": "Onboarding Grace"}))
        .await;
    assert_eq!(titled["title"], "Onboarding Grace");
    let read = app.run(titled["id"].as_str().unwrap()).await;
    assert_eq!(read["title"], "Onboarding Grace");
    let both = app
        .post(
            "/api/v1/process-runs",
            &json!({"template_id": app.template.id, "name": "A", "title": "B"}),
        )
        .await
        .error(400, "validation_error");
    assert!(both.contains("title"), "{both}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blank_run_title_is_refused() {
    let app = TestApp::spawn().await;
    app.post(
        "/api/v1/process-runs",
        &json!({"template_id": app.template.id, "name": "   "}),
    )
    .await
    .error(400, "validation_error");
    let (runs, _, _) = app.get("/api/v1/process-runs").await.list();
    assert!(runs.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_started_with_a_members_email_is_attributed_to_that_member() {
    let app = TestApp::spawn().await;
    let run = app
        .start_run(&json!({"template_id": app.template.id, "actor_email": "MEMBER@a.example"}))
        .await;
    let member = app.member.id.to_string();
    assert_eq!(run["started_by"], member.as_str());
    let run_id = run["id"].as_str().unwrap();
    assert_eq!(app.run(run_id).await["started_by"], member.as_str());
    let tasks = app.run_tasks(run_id).await;
    assert_eq!(
        tasks[0]["assignee"],
        member.as_str(),
        "a task assigned to the runner is assigned to the attributed member"
    );
    assert_eq!(tasks[1]["assignee"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_without_a_matching_active_member_is_started_by_api() {
    let app = TestApp::spawn().await;
    for actor_email in [
        json!(null),
        json!("stranger@example.org"),
        json!("former@a.example"),
        json!("admin@b.example"),
        json!("not an email"),
        json!(""),
    ] {
        let mut body = json!({"template_id": app.template.id});
        if !actor_email.is_null() {
            body["actor_email"] = actor_email.clone();
        }
        let run = app.start_run(&body).await;
        assert_eq!(run["started_by"], "api", "actor_email {actor_email}");
        let tasks = app.run_tasks(run["id"].as_str().unwrap()).await;
        assert_eq!(
            tasks[0]["assignee"],
            Value::Null,
            "runner tasks start unassigned without an attributed member ({actor_email})"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_keeps_the_due_date_it_was_given() {
    let app = TestApp::spawn().await;
    let run = app
        .start_run(&json!({"template_id": app.template.id, "due_date": "2030-05-01T12:00:00Z"}))
        .await;
    let read = app.run(run["id"].as_str().unwrap()).await;
    assert_eq!(
        timestamp(&read["due_date"]),
        time::macros::datetime!(2030-05-01 12:00 UTC)
    );
    app.post(
        "/api/v1/process-runs",
        &json!({"template_id": app.template.id, "due_date": "next tuesday"}),
    )
    .await
    .error(400, "validation_error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_cannot_start_from_an_unpublished_template() {
    let app = TestApp::spawn().await;
    let draft = app.create_template(&sized_document("Draft", 1)).await;
    let message = app
        .post("/api/v1/process-runs", &json!({"template_id": draft["id"]}))
        .await
        .error(409, "template_not_published");
    assert!(message.contains("published"), "{message}");
    app.post(
        &format!("/api/v1/process-templates/{}/publish", app.template.id),
        &json!({"published": false}),
    )
    .await
    .data(200);
    app.post(
        "/api/v1/process-runs",
        &json!({"template_id": app.template.id}),
    )
    .await
    .error(409, "template_not_published");
    let (runs, _, _) = app.get("/api/v1/process-runs").await.list();
    assert!(runs.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_cannot_start_from_an_unknown_template() {
    let app = TestApp::spawn().await;
    let message = app
        .post(
            "/api/v1/process-runs",
            &json!({"template_id": unknown_id()}),
        )
        .await
        .error(404, "not_found");
    assert!(message.contains("process template"), "{message}");
    app.post("/api/v1/process-runs", &json!({"template_id": "nope"}))
        .await
        .error(404, "not_found");
    app.post("/api/v1/process-runs", &json!({}))
        .await
        .error(400, "validation_error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_is_a_frozen_snapshot_of_its_template() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let before = app.run_tasks(&run_id).await;
    let path = format!("/api/v1/process-templates/{}", app.template.id);
    app.post(&format!("{path}/publish"), &json!({"published": false}))
        .await
        .data(200);
    app.put(&path, &sized_document("Rewritten", 1))
        .await
        .data(200);
    app.post(&format!("{path}/publish"), &json!({"published": true}))
        .await
        .data(200);

    let run = app.run(&run_id).await;
    assert_eq!(run["title"], "Employee onboarding");
    assert_eq!(run["sections"].as_array().unwrap().len(), 2);
    assert_eq!(app.run_tasks(&run_id).await, before);

    let newer = app.start_demo_run().await;
    let tasks = app.run_tasks(&newer).await;
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0]["title"], "Task 0");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_filter_by_template_and_by_status() {
    let app = TestApp::spawn().await;
    let small = app.seed_published(&sized_document("Small", 1)).await;
    let demo_run = app.start_demo_run().await;
    let small_run = app.start_run(&json!({"template_id": small.id})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let task = app.task_id(&small_run, "Task 0").await;
    app.patch_task(&small_run, &task, &json!({"completed": true}))
        .await
        .data(200);

    let ids = |runs: Vec<Value>| -> Vec<String> {
        runs.iter()
            .map(|r| r["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let by_template = app
        .all(&format!("/api/v1/process-runs?template_id={}", small.id))
        .await;
    assert_eq!(ids(by_template), vec![small_run.clone()]);
    let completed = app.all("/api/v1/process-runs?status=completed").await;
    assert_eq!(ids(completed), vec![small_run.clone()]);
    let active = app.all("/api/v1/process-runs?status=active").await;
    assert_eq!(ids(active), vec![demo_run.clone()]);
    let both = app
        .all(&format!(
            "/api/v1/process-runs?template_id={}&status=active",
            app.template.id
        ))
        .await;
    assert_eq!(ids(both), vec![demo_run]);
    let none = app
        .all(&format!(
            "/api/v1/process-runs?template_id={}",
            unknown_id()
        ))
        .await;
    assert!(none.is_empty());
}
