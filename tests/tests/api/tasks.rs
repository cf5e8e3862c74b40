//! Run tasks: the list and single shapes (spec 2.6), and the completion state machine through
//! PATCH (spec 3, 4.11; API contract 6; decisions "Runs and tasks").

use procflow_tests::{
    RUN_TASK_FIELDS, RUN_TASK_LIST_FIELDS, TestApp, assert_keys, element_fields, sized_document,
    timestamp, unknown_id,
};
use serde_json::{Value, json};

/// The demo run's tasks by title.
struct DemoRun {
    id: String,
    collect: String,
    approval: String,
    hello: String,
    lunch: String,
}

async fn demo_run(app: &TestApp) -> DemoRun {
    let id = app.start_demo_run().await;
    let tasks = app.run_tasks(&id).await;
    let by_title = |title: &str| {
        tasks
            .iter()
            .find(|t| t["title"] == title)
            .and_then(|t| t["id"].as_str())
            .unwrap()
            .to_owned()
    };
    DemoRun {
        collect: by_title("Collect documents"),
        approval: by_title("Manager approval"),
        hello: by_title("Say hello"),
        lunch: by_title("Team lunch"),
        id,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_tasks_are_listed_in_order_without_due_date_and_webhook_enabled() {
    let app = TestApp::spawn().await;
    let run = app
        .start_run(&json!({"template_id": app.template.id}))
        .await;
    let run_id = run["id"].as_str().unwrap();
    let (tasks, _, has_more) = app
        .get(&format!("/api/v1/process-runs/{run_id}/tasks"))
        .await
        .list();
    assert!(!has_more);
    assert_eq!(tasks.len(), 4);
    let full_run = app.run(run_id).await;
    for (i, task) in tasks.iter().enumerate() {
        assert_keys(task, RUN_TASK_LIST_FIELDS);
        assert_eq!(task["order"], i);
        assert_eq!(task["instance_id"], run_id);
        let template_task = &app.template.tasks[i];
        assert_eq!(task["template_task_id"], template_task["id"]);
        assert_ne!(
            task["id"], template_task["id"],
            "a run's tasks get ids of their own"
        );
        assert_eq!(task["title"], template_task["title"]);
        assert_eq!(task["is_essential"], template_task["is_essential"]);
        assert_eq!(task["type"], template_task["type"]);
        assert_eq!(task["completed"], false);
        assert_eq!(task["completed_at"], Value::Null);
        assert_eq!(task["completed_by"], Value::Null);
        assert_eq!(task["skipped"], false);
        assert_eq!(task["decision"], Value::Null);
        assert_eq!(task["comment"], Value::Null);
        timestamp(&task["created_at"]);
        let section = if i < 2 { 0 } else { 1 };
        assert_eq!(task["section_id"], full_run["sections"][section]["id"]);
        let elements = task["custom_elements"].as_array().unwrap();
        let template_elements = template_task["custom_elements"].as_array().unwrap();
        assert_eq!(elements.len(), template_elements.len());
        for (element, of_template) in elements.iter().zip(template_elements) {
            assert_keys(element, &element_fields(element["type"].as_str().unwrap()));
            assert_eq!(
                element, of_template,
                "elements are copied with their ids and values"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_task_also_has_its_due_date_and_webhook_flag() {
    let app = TestApp::spawn().await;
    let run = app
        .start_run(&json!({"template_id": app.template.id}))
        .await;
    let run_id = run["id"].as_str().unwrap();
    let listed = app.run_tasks(run_id).await;
    let collect = app
        .get(&format!(
            "/api/v1/process-runs/{run_id}/tasks/{}",
            listed[0]["id"].as_str().unwrap()
        ))
        .await
        .data(200);
    assert_keys(&collect, RUN_TASK_FIELDS);
    assert_eq!(collect["webhook_enabled"], true);
    assert_eq!(
        timestamp(&collect["due_date"]),
        timestamp(&run["created_at"]) + time::Duration::days(3),
        "a relative due date resolves from the run's start"
    );
    for field in RUN_TASK_LIST_FIELDS {
        assert_eq!(collect[field], listed[0][field], "{field}");
    }
    let lunch = app
        .get(&format!(
            "/api/v1/process-runs/{run_id}/tasks/{}",
            listed[3]["id"].as_str().unwrap()
        ))
        .await
        .data(200);
    assert_keys(&lunch, RUN_TASK_FIELDS);
    assert_eq!(lunch["webhook_enabled"], false);
    assert_eq!(lunch["due_date"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completing_a_task_records_when_and_api_as_the_completer() {
    let app = TestApp::spawn().await;
    let run = demo_run(&app).await;
    let before = time::OffsetDateTime::now_utc() - time::Duration::seconds(5);
    let task = app
        .patch_task(&run.id, &run.hello, &json!({"completed": true}))
        .await
        .data(200);
    assert_keys(&task, RUN_TASK_FIELDS);
    assert_eq!(task["completed"], true);
    assert_eq!(task["completed_by"], "api");
    assert!(timestamp(&task["completed_at"]) >= before);
    let read = app
        .get(&format!(
            "/api/v1/process-runs/{}/tasks/{}",
            run.id, run.hello
        ))
        .await
        .data(200);
    assert_eq!(read, task);
    let header = app.run(&run.id).await;
    assert_eq!(header["status"], "active");
    assert!(header["updated_at"].is_string(), "a change updates the run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completing_as_a_member_records_the_members_user_id() {
    let app = TestApp::spawn().await;
    let run = demo_run(&app).await;
    let task = app
        .patch_task(
            &run.id,
            &run.hello,
            &json!({"completed": true, "actor_email": "member@a.example"}),
        )
        .await
        .data(200);
    assert_eq!(task["completed_by"], app.member.id.to_string());
    for actor_email in [
        "former@a.example",
        "stranger@example.org",
        "admin@b.example",
    ] {
        let task = app
            .patch_task(
                &run.id,
                &run.lunch,
                &json!({"completed": true, "actor_email": actor_email}),
            )
            .await
            .data(200);
        assert_eq!(task["completed_by"], "api", "actor_email {actor_email}");
        app.patch_task(&run.id, &run.lunch, &json!({"completed": false}))
            .await
            .data(200);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completing_a_completed_task_keeps_its_first_completion() {
    let app = TestApp::spawn().await;
    let run = demo_run(&app).await;
    let first = app
        .patch_task(
            &run.id,
            &run.hello,
            &json!({"completed": true, "actor_email": "member@a.example"}),
        )
        .await
        .data(200);
    let second = app
        .patch_task(&run.id, &run.hello, &json!({"completed": true}))
        .await
        .data(200);
    assert_eq!(second["completed_at"], first["completed_at"]);
    assert_eq!(second["completed_by"], first["completed_by"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reopening_a_task_clears_its_completion() {
    let app = TestApp::spawn().await;
    let run = demo_run(&app).await;
    app.patch_task(&run.id, &run.hello, &json!({"completed": true}))
        .await
        .data(200);
    let reopened = app
        .patch_task(&run.id, &run.hello, &json!({"completed": false}))
        .await
        .data(200);
    assert_eq!(reopened["completed"], false);
    assert_eq!(reopened["completed_at"], Value::Null);
    assert_eq!(reopened["completed_by"], Value::Null);
    assert_eq!(reopened["skipped"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_non_essential_task_can_be_skipped_and_unskipped() {
    let app = TestApp::spawn().await;
    let run = demo_run(&app).await;
    let skipped = app
        .patch_task(&run.id, &run.lunch, &json!({"skipped": true}))
        .await
        .data(200);
    assert_keys(&skipped, RUN_TASK_FIELDS);
    assert_eq!(skipped["skipped"], true);
    assert_eq!(skipped["completed"], false);
    let listed = app.run_tasks(&run.id).await;
    assert_eq!(listed[3]["skipped"], true);

    let completed = app
        .patch_task(&run.id, &run.lunch, &json!({"completed": true}))
        .await
        .data(200);
    assert_eq!(completed["completed"], true);
    assert_eq!(
        completed["skipped"], false,
        "completing a skipped task clears skipped"
    );

    let skipped_again = app
        .patch_task(&run.id, &run.lunch, &json!({"skipped": true}))
        .await
        .data(200);
    assert_eq!(skipped_again["skipped"], true);
    assert_eq!(
        skipped_again["completed"], false,
        "skipping clears completed"
    );

    let unskipped = app
        .patch_task(&run.id, &run.lunch, &json!({"skipped": false}))
        .await
        .data(200);
    assert_eq!(unskipped["skipped"], false);
    assert_eq!(unskipped["completed"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skipping_an_essential_task_is_refused() {
    let app = TestApp::spawn().await;
    let run = demo_run(&app).await;
    let message = app
        .patch_task(&run.id, &run.collect, &json!({"skipped": true}))
        .await
        .error(400, "validation_error");
    assert!(message.contains("essential"), "{message}");
    let task = app
        .get(&format!(
            "/api/v1/process-runs/{}/tasks/{}",
            run.id, run.collect
        ))
        .await
        .data(200);
    assert_eq!(task["skipped"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completing_and_skipping_in_one_request_is_refused() {
    let app = TestApp::spawn().await;
    let run = demo_run(&app).await;
    app.patch_task(
        &run.id,
        &run.lunch,
        &json!({"completed": true, "skipped": true}),
    )
    .await
    .error(400, "validation_error");
    let task = &app.run_tasks(&run.id).await[3];
    assert_eq!(task["completed"], false);
    assert_eq!(task["skipped"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approving_an_approval_task_completes_it_with_the_decision() {
    let app = TestApp::spawn().await;
    let run = demo_run(&app).await;
    let approved = app
        .patch_task(
            &run.id,
            &run.approval,
            &json!({"decision": "approved", "comment": "Looks good", "actor_email": "admin@a.example"}),
        )
        .await
        .data(200);
    assert_eq!(approved["completed"], true);
    assert_eq!(approved["decision"], "approved");
    assert_eq!(approved["comment"], "Looks good");
    assert_eq!(approved["completed_by"], app.admin.id.to_string());
    timestamp(&approved["completed_at"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rejecting_an_approval_task_leaves_it_open_with_the_decision() {
    let app = TestApp::spawn().await;
    let run = demo_run(&app).await;
    let rejected = app
        .patch_task(
            &run.id,
            &run.approval,
            &json!({"decision": "rejected", "comment": "Missing papers"}),
        )
        .await
        .data(200);
    assert_eq!(rejected["completed"], false);
    assert_eq!(rejected["decision"], "rejected");
    assert_eq!(rejected["comment"], "Missing papers");

    let approved = app
        .patch_task(&run.id, &run.approval, &json!({"completed": true}))
        .await
        .data(200);
    assert_eq!(approved["completed"], true);
    assert_eq!(
        approved["decision"], "approved",
        "completed: true on an approval approves"
    );

    let rejected_again = app
        .patch_task(&run.id, &run.approval, &json!({"decision": "rejected"}))
        .await
        .data(200);
    assert_eq!(rejected_again["completed"], false, "rejecting reopens");
    assert_eq!(rejected_again["decision"], "rejected");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decisions_are_refused_on_plain_tasks_and_when_contradictory() {
    let app = TestApp::spawn().await;
    let run = demo_run(&app).await;
    for (task, body) in [
        (&run.hello, json!({"decision": "approved"})),
        (&run.approval, json!({"comment": "no decision"})),
        (
            &run.approval,
            json!({"decision": "rejected", "completed": true}),
        ),
        (&run.approval, json!({"decision": "maybe"})),
    ] {
        app.patch_task(&run.id, task, &body)
            .await
            .error(400, "validation_error");
    }
    let tasks = app.run_tasks(&run.id).await;
    assert!(
        tasks
            .iter()
            .all(|t| t["completed"] == false && t["decision"].is_null())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_the_last_open_task_completes_the_run() {
    let app = TestApp::spawn().await;
    let run = demo_run(&app).await;
    app.patch_task(&run.id, &run.collect, &json!({"completed": true}))
        .await
        .data(200);
    app.patch_task(&run.id, &run.approval, &json!({"decision": "approved"}))
        .await
        .data(200);
    app.patch_task(&run.id, &run.lunch, &json!({"skipped": true}))
        .await
        .data(200);
    assert_eq!(app.run(&run.id).await["status"], "active");
    assert_eq!(app.run(&run.id).await["completed_at"], Value::Null);

    let last = app
        .patch_task(&run.id, &run.hello, &json!({"completed": true}))
        .await
        .data(200);
    let header = app.run(&run.id).await;
    assert_eq!(header["status"], "completed");
    assert_eq!(
        timestamp(&header["completed_at"]),
        timestamp(&last["completed_at"]),
        "the run completes in the change that closed its last task"
    );
    let completed = app.all("/api/v1/process-runs?status=completed").await;
    assert_eq!(completed.len(), 1);
    assert_eq!(completed[0]["id"], run.id.as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_completed_runs_tasks_cannot_be_updated() {
    let app = TestApp::spawn().await;
    let template = app.seed_published(&sized_document("Two", 2)).await;
    let run = app.start_run(&json!({"template_id": template.id})).await;
    let run_id = run["id"].as_str().unwrap();
    let tasks = app.run_tasks(run_id).await;
    let (first, second) = (
        tasks[0]["id"].as_str().unwrap(),
        tasks[1]["id"].as_str().unwrap(),
    );
    app.patch_task(run_id, first, &json!({"completed": true}))
        .await
        .data(200);
    app.patch_task(run_id, second, &json!({"skipped": true}))
        .await
        .data(200);
    assert_eq!(app.run(run_id).await["status"], "completed");

    for (task, body) in [
        (first, json!({"completed": false})),
        (first, json!({"completed": true})),
        (second, json!({"skipped": false})),
        (second, json!({"completed": true})),
        (first, json!({"assignee": "member@a.example"})),
        (first, json!({})),
    ] {
        let message = app
            .patch_task(run_id, task, &body)
            .await
            .error(409, "run_completed");
        assert!(message.contains("completed"), "{message}");
    }
    let after = app.run_tasks(run_id).await;
    assert_eq!(after[0]["completed"], true);
    assert_eq!(after[0]["assignee"], Value::Null);
    assert_eq!(after[1]["skipped"], true);
    assert_eq!(app.run(run_id).await["status"], "completed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_and_values_can_be_set_in_one_request() {
    let app = TestApp::spawn().await;
    let run = demo_run(&app).await;
    let name = app.template.element_id("Collect documents", "Full name");
    let department = app.template.element_id("Collect documents", "Department");
    let task = app
        .patch_task(
            &run.id,
            &run.collect,
            &json!({"completed": true, "custom_elements": [
                {"id": name, "value": "Ada Lovelace"},
                {"id": department, "value": "Eng"}]}),
        )
        .await
        .data(200);
    assert_eq!(task["completed"], true);
    let elements = task["custom_elements"].as_array().unwrap();
    assert_eq!(elements[0]["value"], "Ada Lovelace");
    assert_eq!(elements[1]["value"], "Eng");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_patch_changes_nothing() {
    let app = TestApp::spawn().await;
    let run = demo_run(&app).await;
    let name = app.template.element_id("Collect documents", "Full name");
    let department = app.template.element_id("Collect documents", "Department");
    app.patch_task(
        &run.id,
        &run.collect,
        &json!({"completed": true, "custom_elements": [
            {"id": name, "value": "Ada Lovelace"},
            {"id": department, "value": "HR"}]}),
    )
    .await
    .error(400, "validation_error");
    let task = &app.run_tasks(&run.id).await[0];
    assert_eq!(task["completed"], false);
    assert_eq!(task["custom_elements"][0]["value"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_are_assigned_by_member_id_member_email_or_external_email() {
    let app = TestApp::spawn().await;
    let run = demo_run(&app).await;
    let member = app.member.id.to_string();
    let by_email = app
        .patch_task(
            &run.id,
            &run.hello,
            &json!({"assignee": "Member@A.example"}),
        )
        .await
        .data(200);
    assert_eq!(
        by_email["assignee"],
        member.as_str(),
        "a member's email is stored as their id"
    );

    let by_id = app
        .patch_task(&run.id, &run.lunch, &json!({"assignee": member}))
        .await
        .data(200);
    assert_eq!(by_id["assignee"], member.as_str());

    let external = app
        .patch_task(
            &run.id,
            &run.hello,
            &json!({"assignee": "guest@example.org"}),
        )
        .await
        .data(200);
    assert_eq!(external["assignee"], "guest@example.org");

    let unassigned = app
        .patch_task(&run.id, &run.hello, &json!({"assignee": null}))
        .await
        .data(200);
    assert_eq!(unassigned["assignee"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assigning_an_inactive_member_or_a_stranger_id_is_refused() {
    let app = TestApp::spawn().await;
    let run = demo_run(&app).await;
    for assignee in [
        json!("former@a.example"),
        json!(app.former.id.to_string()),
        json!(unknown_id()),
        json!("not an email"),
        json!(42),
    ] {
        app.patch_task(&run.id, &run.hello, &json!({"assignee": assignee}))
            .await
            .error(400, "validation_error");
    }
    assert_eq!(app.run_tasks(&run.id).await[2]["assignee"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_of_another_run_or_an_unknown_task_is_not_found() {
    let app = TestApp::spawn().await;
    let run = demo_run(&app).await;
    let other_run = demo_run(&app).await;
    for (run_id, task_id, resource) in [
        (&run.id, &other_run.hello, "task"),
        (&run.id, &unknown_id(), "task"),
        (&unknown_id(), &run.hello, "process run"),
    ] {
        let path = format!("/api/v1/process-runs/{run_id}/tasks/{task_id}");
        let message = app.get(&path).await.error(404, "not_found");
        assert!(message.contains(resource), "{message}");
        app.patch(&path, &json!({"completed": true}))
            .await
            .error(404, "not_found");
    }
    assert_eq!(app.run_tasks(&other_run.id).await[2]["completed"], false);
}
