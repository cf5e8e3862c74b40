//! Concurrent task updates on one run: none lost, the run completes exactly once.

use std::sync::Arc;

use procflow_domain::event::EventPayload;
use procflow_domain::run::{ElementWrite, RunStatus};
use procflow_domain::service::UpdateTask;
use procflow_domain::values::PageRequest;
use serde_json::json;

use super::env::{Env, conformance_test};
use super::support::{Started, published, sized_document, start, started_with};

conformance_test!(
    fifty_concurrent_completions_complete_the_run_once,
    worker_threads = 4
);
async fn fifty_concurrent_completions_complete_the_run_once(env: Env) {
    let env = Arc::new(env);
    let Started { run, tasks, .. } = started_with(&env, sized_document(50, 1)).await;
    assert_eq!(tasks.len(), 50);

    let handles: Vec<_> = tasks
        .iter()
        .map(|task| {
            let env = Arc::clone(&env);
            let (run, task) = (run.id, task.id);
            tokio::spawn(async move {
                let patch = UpdateTask {
                    completed: Some(true),
                    ..UpdateTask::default()
                };
                env.procflow.update_task(&env.team, run, task, patch).await
            })
        })
        .collect();
    let mut completions = 0;
    for handle in handles {
        let change = handle.await.unwrap().unwrap();
        completions += usize::from(
            change.run.status() == RunStatus::Completed
                && change
                    .events
                    .iter()
                    .any(|e| e.payload.name() == "process_run.completed"),
        );
    }
    assert_eq!(completions, 1, "exactly one update completes the run");
    let done = env.store.get_run(env.team.id, run.id).await.unwrap();
    assert_eq!(
        (done.status(), done.open_tasks()),
        (RunStatus::Completed, 0)
    );
    let all = env.events().await;
    let completed_runs = all
        .iter()
        .filter(|e| matches!(e.payload, EventPayload::RunCompleted { .. }))
        .count();
    let completed_tasks = all
        .iter()
        .filter(|e| matches!(e.payload, EventPayload::TaskCompleted { .. }))
        .count();
    assert_eq!((completed_runs, completed_tasks), (1, 50));
}

conformance_test!(
    concurrent_patches_of_one_task_lose_nothing,
    worker_threads = 4
);
async fn concurrent_patches_of_one_task_lose_nothing(env: Env) {
    let env = Arc::new(env);
    let template = published(&env, &env.team, sized_document(1, 30)).await;
    let run = env
        .procflow
        .create_run(&env.team, start(&template))
        .await
        .unwrap();
    let task = env
        .store
        .list_tasks(env.team.id, run.id, PageRequest::default())
        .await
        .unwrap()
        .items
        .remove(0)
        .parsed()
        .unwrap();

    let handles: Vec<_> = task
        .custom_elements
        .iter()
        .enumerate()
        .map(|(i, element)| {
            let env = Arc::clone(&env);
            let (run, task, element) = (run.id, task.id, element.id);
            tokio::spawn(async move {
                let patch = UpdateTask {
                    custom_elements: vec![ElementWrite {
                        id: element,
                        value: json!(format!("value {i}")),
                    }],
                    ..UpdateTask::default()
                };
                env.procflow.update_task(&env.team, run, task, patch).await
            })
        })
        .collect();
    for handle in handles {
        handle.await.unwrap().unwrap();
    }
    let after = env
        .store
        .get_task(env.team.id, run.id, task.id)
        .await
        .unwrap();
    for (i, element) in after.custom_elements.iter().enumerate() {
        assert_eq!(
            element.value,
            Some(json!(format!("value {i}"))),
            "write {i} was lost"
        );
    }
}
