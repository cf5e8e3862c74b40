//! Concurrent requests (API contract 6): however many requests race, no change is lost and a
//! run completes exactly once, with one `process_run.completed` event in the outbox.

use futures_util::future::join_all;
use procflow_domain::event::EventPayload;
use procflow_tests::{Options, TestApp, sized_document, timestamp};
use serde_json::json;

const TASKS: usize = 40;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn forty_concurrent_completions_complete_the_run_exactly_once() {
    let app = TestApp::with(Options {
        workers: 4,
        pool_size: 16,
        ..Options::default()
    })
    .await;
    let template = app.seed_published(&sized_document("Forty", TASKS)).await;
    let run_id = app.start_run(&json!({"template_id": template.id})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let tasks = app.run_tasks(&run_id).await;
    assert_eq!(tasks.len(), TASKS);
    let _ = app.events().await; // drop the creation's events

    let complete = json!({"completed": true});
    let replies = join_all(
        tasks
            .iter()
            .map(|task| app.patch_task(&run_id, task["id"].as_str().unwrap(), &complete)),
    )
    .await;
    let mut completions = Vec::new();
    for reply in &replies {
        let task = reply.data(200);
        assert_eq!(task["completed"], true);
        completions.push(timestamp(&task["completed_at"]));
    }

    let run = app.run(&run_id).await;
    assert_eq!(run["status"], "completed");
    let completed_at = timestamp(&run["completed_at"]);
    assert!(
        completions.contains(&completed_at),
        "the run completed in the change that closed its last task: {completed_at} among {completions:?}"
    );
    let after = app.run_tasks(&run_id).await;
    assert!(
        after.iter().all(|t| t["completed"] == true),
        "no completion was lost"
    );

    let completed: Vec<_> = app
        .events()
        .await
        .into_iter()
        .filter_map(|event| match event.payload {
            EventPayload::RunCompleted { run } => Some(run),
            _ => None,
        })
        .collect();
    assert_eq!(
        completed.len(),
        1,
        "exactly one process_run.completed: {completed:?}"
    );
    assert_eq!(completed[0].id.to_string(), run_id);
    assert_eq!(completed[0].status.as_str(), "completed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_writes_to_one_task_lose_no_value() {
    let app = TestApp::with(Options {
        workers: 4,
        pool_size: 16,
        ..Options::default()
    })
    .await;
    let elements: Vec<_> = (0..20)
        .map(|n| json!({"type": "shortText", "label": format!("Field {n}")}))
        .collect();
    let template = app
        .seed_published(
            &json!({"title": "Wide", "sections": [{"title": "S", "tasks": [
            {"title": "Fill", "custom_elements": elements}]}]}),
        )
        .await;
    let run_id = app.start_run(&json!({"template_id": template.id})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let task = app.task_id(&run_id, "Fill").await;
    let replies = join_all((0..20).map(|n| {
        let id = template.element_id("Fill", &format!("Field {n}"));
        let body = json!({"custom_elements": [{"id": id, "value": format!("value {n}")}]});
        let (app, run_id, task) = (&app, &run_id, &task);
        async move { app.patch_task(run_id, task, &body).await }
    }))
    .await;
    for reply in &replies {
        reply.data(200);
    }
    let read = app
        .get(&format!("/api/v1/process-runs/{run_id}/tasks/{task}"))
        .await
        .data(200);
    for (n, element) in read["custom_elements"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        assert_eq!(element["value"], format!("value {n}"), "{element}");
    }
}
