//! Batch updates of a run's tasks (API contract 11): all or nothing, each task's events, one
//! run completion, refusals by index, idempotent, one request for the rate limit.

use procflow_domain::event::EventPayload;
use procflow_tests::{Options, TestApp, sized_document, unknown_id};
use reqwest::Method;
use serde_json::{Value, json};

const RUNS: &str = "/api/v1/process-runs";

async fn sized_run(app: &TestApp, tasks: usize) -> (String, Vec<Value>) {
    let template = app.seed_published(&sized_document("Sized", tasks)).await;
    let run = app.start_run(&json!({"template_id": template.id})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let tasks = app.run_tasks(&run).await;
    (run, tasks)
}

fn completing(tasks: &[Value]) -> Value {
    let items: Vec<Value> = tasks
        .iter()
        .map(|t| json!({"id": t["id"], "completed": true}))
        .collect();
    json!({"tasks": items})
}

async fn batch(app: &TestApp, run: &str, body: &Value) -> procflow_tests::Reply {
    app.patch(&format!("{RUNS}/{run}/tasks"), body).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_that_completes_the_run_emits_one_completion_and_each_tasks_events() {
    let app = TestApp::spawn().await;
    let (run, tasks) = sized_run(&app, 5).await;
    let _ = app.events().await;
    let mut body = completing(&tasks);
    body["tasks"][2]["assignee"] = json!("member@a.example");
    body["actor_email"] = json!("member@a.example");
    let mut reversed = body["tasks"].as_array().unwrap().clone();
    reversed.reverse();
    body["tasks"] = Value::Array(reversed);

    let answered = batch(&app, &run, &body).await.items();
    let ids: Vec<&Value> = answered.iter().map(|t| &t["id"]).collect();
    let asked: Vec<&Value> = body["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["id"])
        .collect();
    assert_eq!(ids, asked, "answered in the order given");
    assert!(answered.iter().all(|t| t["completed"] == true));
    assert!(
        answered
            .iter()
            .all(|t| t["completed_by"] == json!(app.member.id))
    );
    let header = app.run(&run).await;
    assert_eq!(header["status"], "completed");

    let events = app.events().await;
    let count = |name: &str| events.iter().filter(|e| e.payload.name() == name).count();
    assert_eq!(count("process_step.completed"), 5);
    assert_eq!(count("process_step.assigned"), 1);
    assert_eq!(count("process_run.completed"), 1);
    let completed = events.iter().find_map(|e| match &e.payload {
        EventPayload::RunCompleted { run } => Some(run.clone()),
        _ => None,
    });
    assert_eq!(completed.unwrap().id.to_string(), run);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_with_one_bad_value_changes_nothing_and_names_the_item() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let before = (app.run(&run).await, app.run_tasks(&run).await);
    let _ = app.events().await;
    let collect = app.task_id(&run, "Collect documents").await;
    let hello = app.task_id(&run, "Say hello").await;
    let department = app.template.element_id("Collect documents", "Department");
    let body = json!({"tasks": [
        {"id": hello, "completed": true},
        {"id": collect, "completed": true,
         "custom_elements": [{"id": department, "value": "HR"}]},
    ]});
    let message = batch(&app, &run, &body)
        .await
        .error(400, "validation_error");
    assert!(
        message.starts_with(&format!(
            "tasks[1] (task {collect}): element \"Department\""
        )),
        "{message}"
    );
    assert!(message.contains("\"Eng\", \"Sales\""), "{message}");
    assert_eq!((app.run(&run).await, app.run_tasks(&run).await), before);
    assert!(app.events().await.is_empty(), "nothing was raised");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_batches_say_which_item_and_why() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let hello = app.task_id(&run, "Say hello").await;
    let collect = app.task_id(&run, "Collect documents").await;
    let stranger = unknown_id();
    let hundred_and_one: Vec<Value> = (0..101).map(|_| json!({"id": unknown_id()})).collect();
    for (body, expected) in [
        (
            json!({"tasks": []}),
            "tasks: must hold 1 to 100 tasks, not 0".to_owned(),
        ),
        (
            json!({"tasks": hundred_and_one}),
            "tasks: must hold 1 to 100 tasks, not 101".to_owned(),
        ),
        (
            json!({"tasks": [{"id": hello}, {"id": hello, "completed": true}]}),
            format!("tasks[1] (task {hello}): id: the task is named twice in the batch"),
        ),
        (
            json!({"tasks": [{"id": hello}, {"id": stranger}]}),
            format!("tasks[1] (task {stranger}): id: the process run has no such task"),
        ),
        (
            json!({"tasks": [{"id": "nope"}]}),
            "tasks[0].id: \"nope\" is not a task id".to_owned(),
        ),
        (
            json!({"tasks": [{"id": collect, "skipped": true}]}),
            format!("tasks[0] (task {collect}): task \"Collect documents\""),
        ),
        (
            json!({"tasks": [{"id": hello, "completed": "yes"}]}),
            "tasks[0].completed: invalid type".to_owned(),
        ),
        (
            json!({"tasks": [{"id": hello, "if_match": "x"}]}),
            "tasks[0]".to_owned(),
        ),
    ] {
        let message = batch(&app, &run, &body)
            .await
            .error(400, "validation_error");
        assert!(message.starts_with(&expected), "{body}: {message}");
    }
    batch(&app, &unknown_id(), &json!({"tasks": [{"id": hello}]}))
        .await
        .error(404, "not_found");
    let theirs = app
        .call(Method::PATCH, &format!("{RUNS}/{run}/tasks"))
        .key(&app.other_key)
        .json(&json!({"tasks": [{"id": hello, "completed": true}]}))
        .send()
        .await;
    theirs.error(404, "not_found");
    assert_eq!(
        app.get(&format!("{RUNS}/{run}/tasks/{hello}"))
            .await
            .data(200)["completed"],
        false
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_on_a_completed_run_is_409() {
    let app = TestApp::spawn().await;
    let (run, tasks) = sized_run(&app, 2).await;
    batch(&app, &run, &completing(&tasks)).await.items();
    let reopen = json!({"tasks": [{"id": tasks[0]["id"], "completed": false}]});
    batch(&app, &run, &reopen).await.error(409, "run_completed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_of_100_on_a_500_task_run_completes_exactly_those() {
    let app = TestApp::spawn().await;
    let (run, tasks) = sized_run(&app, 500).await;
    assert_eq!(tasks.len(), 500);
    let chosen: Vec<Value> = tasks
        .iter()
        .skip(200)
        .step_by(3)
        .take(100)
        .cloned()
        .collect();
    let answered = batch(&app, &run, &completing(&chosen)).await.items();
    assert_eq!(answered.len(), 100);
    let after = app.run_tasks(&run).await;
    let completed: Vec<&Value> = after
        .iter()
        .filter(|t| t["completed"] == true)
        .map(|t| &t["id"])
        .collect();
    let expected: Vec<&Value> = chosen.iter().map(|t| &t["id"]).collect();
    assert_eq!(completed, expected);
    assert_eq!(app.run(&run).await["status"], "active");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_batch_with_its_idempotency_key_is_replayed_not_applied_twice() {
    let app = TestApp::spawn().await;
    let (run, tasks) = sized_run(&app, 3).await;
    let _ = app.events().await;
    let body = json!({"tasks": [{"id": tasks[0]["id"], "assignee": "outside@example.org"}]});
    let send = |body: &Value| {
        app.call(Method::PATCH, &format!("{RUNS}/{run}/tasks"))
            .header("Idempotency-Key", "batch-1")
            .json(body)
            .send()
    };
    let first = send(&body).await;
    first.items();
    assert_eq!(first.header("idempotency-replayed"), None);
    let again = send(&body).await;
    assert_eq!(again.items(), first.items());
    assert_eq!(again.header("idempotency-replayed"), Some("true"));
    let assigned = app
        .events()
        .await
        .iter()
        .filter(|e| e.payload.name() == "process_step.assigned")
        .count();
    assert_eq!(assigned, 1, "the retry raised nothing");
    let other = json!({"tasks": [{"id": tasks[1]["id"], "completed": true}]});
    send(&other).await.error(422, "idempotency_key_reused");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_counts_as_one_request_against_the_rate_limit() {
    let app = TestApp::with(Options {
        rate_limit_per_minute: 10,
        ..Options::default()
    })
    .await;
    // Seeding used the team key's quota; another key has its own.
    let (_, key) = app.new_key(&app.team, &app.admin).await;
    let run = app.start_demo_run().await;
    let tasks = app.run_tasks(&run).await;
    let send = |body: Value| {
        app.call(Method::PATCH, &format!("{RUNS}/{run}/tasks"))
            .key(&key)
            .json(&body)
            .send()
    };
    let first = send(json!({"tasks": [{"id": tasks[2]["id"], "completed": true}]})).await;
    first.items();
    let all = send(completing(&tasks)).await;
    assert_eq!(all.items().len(), tasks.len());
    assert_eq!(first.header("ratelimit-remaining"), Some("9"));
    assert_eq!(all.header("ratelimit-remaining"), Some("8"));
}
