//! `RunStore::update_tasks`: a batch of task changes on one run, all or nothing, under the
//! run's lock, serialised with single updates.

use std::sync::{Arc, Mutex};

use procflow_domain::actor::Actor;
use procflow_domain::error::{DomainError, Resource};
use procflow_domain::event::EventPayload;
use procflow_domain::ids::TaskId;
use procflow_domain::run::{BatchItem, ElementWrite, RunStatus, TaskBatch, TaskPatch};
use procflow_domain::service::{UpdateTask, UpdateTasks};
use procflow_domain::values::PageRequest;
use procflow_memory::SequentialIds;
use serde_json::json;
use uuid::Uuid;

use super::env::{Env, conformance_test};
use super::support::{Started, parsed, sized_document, start, started, started_with};

fn complete() -> UpdateTask {
    UpdateTask {
        completed: Some(true),
        ..UpdateTask::default()
    }
}

conformance_test!(a_batch_writes_its_tasks_the_run_and_the_events_at_once);
async fn a_batch_writes_its_tasks_the_run_and_the_events_at_once(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let name = tasks[0].custom_elements[0].id;
    let request = UpdateTasks {
        tasks: vec![
            (
                tasks[2].id,
                UpdateTask {
                    actor_email: Some("admin@a.example".parse().unwrap()),
                    ..complete()
                },
            ),
            (
                tasks[0].id,
                UpdateTask {
                    custom_elements: vec![ElementWrite {
                        id: name,
                        value: json!("Ada Lovelace"),
                    }],
                    ..complete()
                },
            ),
            (tasks[1].id, complete()),
        ],
        actor_email: Some("member@a.example".parse().unwrap()),
        if_match: None,
    };
    let change = env
        .procflow
        .update_tasks(&env.team, run.id, request)
        .await
        .unwrap();
    assert_eq!(
        change.tasks.iter().map(|t| t.id).collect::<Vec<_>>(),
        [tasks[2].id, tasks[0].id, tasks[1].id],
        "in the batch's order"
    );
    for task in &change.tasks {
        let read = env
            .store
            .get_task(env.team.id, run.id, task.id)
            .await
            .unwrap();
        assert_eq!(&read, task);
    }
    assert!(matches!(
        change.tasks[1].completed_by(),
        Some(Actor::User(_))
    ));
    assert_ne!(
        change.tasks[0].completed_by(),
        change.tasks[1].completed_by()
    );
    let header = env.store.get_run(env.team.id, run.id).await.unwrap();
    // The decision's run MAY come without its sections (PostgreSQL does not read them).
    assert_eq!(
        (header.progress, header.updated_at),
        (change.run.progress, change.run.updated_at)
    );
    assert_eq!(header.status(), RunStatus::Completed);
    assert_eq!(header.completed_at(), Some(env.clock_now()));
    let kinds = env.event_names().await;
    assert_eq!(
        kinds,
        [
            "process_run.created",
            "process_step.completed",
            "process_step.completed",
            "process_step.completed",
            "process_run.completed"
        ]
    );
}

conformance_test!(a_refused_batch_writes_nothing);
async fn a_refused_batch_writes_nothing(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    env.events().await;
    let dropdown = tasks[0].custom_elements[1].id;
    let batch = TaskBatch::new(vec![
        BatchItem {
            task: tasks[2].id,
            patch: TaskPatch {
                completed: Some(true),
                ..TaskPatch::default()
            },
            actor: Actor::Api,
            if_match: None,
        },
        BatchItem {
            task: tasks[0].id,
            patch: TaskPatch {
                custom_elements: vec![ElementWrite {
                    id: dropdown,
                    value: json!("HR"),
                }],
                ..TaskPatch::default()
            },
            actor: Actor::Api,
            if_match: None,
        },
    ])
    .unwrap();
    let (ids, now) = (SequentialIds::default(), env.clock_now());
    let refused = env
        .store
        .update_tasks(env.team.id, run.id, &batch.task_ids(), &|run, current| {
            batch.apply(run, current, &ids, now)
        })
        .await
        .unwrap_err();
    assert!(matches!(refused, DomainError::Validation(_)), "{refused:?}");
    let after = env
        .store
        .list_tasks(env.team.id, run.id, PageRequest::default())
        .await
        .unwrap()
        .items;
    assert_eq!(parsed(after), tasks);
    assert_eq!(env.store.get_run(env.team.id, run.id).await.unwrap(), run);
    assert!(env.events().await.is_empty());
}

conformance_test!(a_batch_is_decided_on_the_runs_tasks_it_names_in_its_order);
async fn a_batch_is_decided_on_the_runs_tasks_it_names_in_its_order(env: Env) {
    let Started {
        run,
        tasks,
        template,
    } = started(&env).await;
    let another = env
        .procflow
        .create_run(&env.team, start(&template))
        .await
        .unwrap();
    let theirs = env
        .store
        .list_tasks(env.team.id, another.id, PageRequest::default())
        .await
        .unwrap()
        .items;
    let unknown = TaskId::from_uuid(Uuid::now_v7());
    let asked = [tasks[2].id, unknown, theirs[0].id, tasks[0].id];
    let seen = Mutex::new(Vec::new());
    let refused = env
        .store
        .update_tasks(env.team.id, run.id, &asked, &|header, current| {
            assert_eq!(header.id, run.id);
            seen.lock().unwrap().extend(current.iter().cloned());
            Err(DomainError::RunCompleted)
        })
        .await;
    assert_eq!(refused.unwrap_err(), DomainError::RunCompleted);
    assert_eq!(*seen.lock().unwrap(), [tasks[2].clone(), tasks[0].clone()]);

    let of_other_team = env
        .store
        .update_tasks(env.other.id, run.id, &[tasks[0].id], &|_, _| {
            panic!("another team's run is never decided on")
        })
        .await;
    assert_eq!(
        of_other_team.unwrap_err(),
        DomainError::NotFound(Resource::Run)
    );
}

conformance_test!(
    a_batch_and_single_updates_racing_on_one_run_lose_nothing,
    worker_threads = 4
);
async fn a_batch_and_single_updates_racing_on_one_run_lose_nothing(env: Env) {
    let env = Arc::new(env);
    let Started { run, tasks, .. } = started_with(&env, sized_document(40, 1)).await;
    let (batched, single) = tasks.split_at(20);
    let mut handles = Vec::new();
    for chunk in batched.chunks(10) {
        let env = Arc::clone(&env);
        let request = UpdateTasks {
            tasks: chunk.iter().map(|t| (t.id, complete())).collect(),
            ..UpdateTasks::default()
        };
        handles.push(tokio::spawn(async move {
            let change = env
                .procflow
                .update_tasks(&env.team, run.id, request)
                .await?;
            Ok::<_, DomainError>(change.events)
        }));
    }
    for task in single {
        let (env, task) = (Arc::clone(&env), task.id);
        handles.push(tokio::spawn(async move {
            let change = env
                .procflow
                .update_task(&env.team, run.id, task, complete())
                .await?;
            Ok(change.events)
        }));
    }
    let mut completions = 0;
    for handle in handles {
        let events = handle.await.unwrap().unwrap();
        completions += events
            .iter()
            .filter(|e| matches!(e.payload, EventPayload::RunCompleted { .. }))
            .count();
    }
    assert_eq!(completions, 1, "exactly one change completes the run");
    let done = env.store.get_run(env.team.id, run.id).await.unwrap();
    assert_eq!(
        (done.status(), done.open_tasks()),
        (RunStatus::Completed, 0)
    );
    let completed_tasks = env
        .events()
        .await
        .iter()
        .filter(|e| matches!(e.payload, EventPayload::TaskCompleted { .. }))
        .count();
    assert_eq!(completed_tasks, 40);
}
