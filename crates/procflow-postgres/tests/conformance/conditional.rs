//! Conditional writes on both backends: the tag a GET answers is the one the write's decision
//! compares under the lock, and of writers racing with one tag exactly one succeeds.

use std::sync::{Arc, Mutex};

use procflow_domain::error::DomainError;
use procflow_domain::etag::{ETag, IfMatch, Tagged};
use procflow_domain::run::ElementWrite;
use procflow_domain::service::UpdateTask;
use serde_json::json;

use super::env::{Env, conformance_test};
use super::support::{Started, started};

conformance_test!(the_tag_a_read_answers_is_the_tag_a_write_decides_on);
async fn the_tag_a_read_answers_is_the_tag_a_write_decides_on(env: Env) {
    let Started {
        run,
        tasks,
        template,
    } = started(&env).await;
    let seen: Mutex<Option<ETag>> = Mutex::new(None);
    for task in &tasks {
        let read = env
            .store
            .get_task(env.team.id, run.id, task.id)
            .await
            .unwrap();
        env.store
            .update_task(env.team.id, run.id, task.id, &|_, current| {
                *seen.lock().unwrap() = Some(current.etag());
                Err(DomainError::PreconditionFailed)
            })
            .await
            .unwrap_err();
        assert_eq!(seen.lock().unwrap().take(), Some(read.etag()));
    }
    let read = env
        .store
        .get_template(env.team.id, template.id)
        .await
        .unwrap();
    env.store
        .update_template(env.team.id, template.id, &|current| {
            *seen.lock().unwrap() = Some(current.etag());
            Err(DomainError::PreconditionFailed)
        })
        .await
        .unwrap_err();
    assert_eq!(seen.lock().unwrap().take(), Some(read.etag()));
    let ids: Vec<_> = tasks.iter().map(|t| t.id).collect();
    let tags = Mutex::new(Vec::new());
    env.store
        .update_tasks(env.team.id, run.id, &ids, &|_, current| {
            tags.lock()
                .unwrap()
                .extend(current.iter().map(Tagged::etag));
            Err(DomainError::PreconditionFailed)
        })
        .await
        .unwrap_err();
    let read: Vec<ETag> = tasks.iter().map(Tagged::etag).collect();
    assert_eq!(*tags.lock().unwrap(), read);
}

conformance_test!(an_update_answers_the_task_a_later_read_finds_tag_and_all);
async fn an_update_answers_the_task_a_later_read_finds_tag_and_all(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let task = &tasks[2];
    let (checkbox, tools) = (task.custom_elements[0].id, task.custom_elements[1].id);
    let change = env
        .procflow
        .update_task(
            &env.team,
            run.id,
            task.id,
            UpdateTask {
                custom_elements: vec![
                    ElementWrite {
                        id: checkbox,
                        value: json!(true),
                    },
                    ElementWrite {
                        id: tools,
                        value: json!(["Jira", "Git"]),
                    },
                ],
                assignee: Some(Some("outside@example.org".parse().unwrap())),
                if_match: Some(IfMatch::OneOf(vec![task.etag()])),
                ..UpdateTask::default()
            },
        )
        .await
        .unwrap();
    let read = env
        .store
        .get_task(env.team.id, run.id, task.id)
        .await
        .unwrap();
    assert_eq!(read, change.task);
    assert_eq!(read.etag(), change.task.etag());
    assert_ne!(read.etag(), task.etag());
}

conformance_test!(
    of_writers_racing_with_one_tag_exactly_one_succeeds,
    worker_threads = 4
);
async fn of_writers_racing_with_one_tag_exactly_one_succeeds(env: Env) {
    let env = Arc::new(env);
    let Started { run, tasks, .. } = started(&env).await;
    let task = tasks[0].clone();
    let name = task.custom_elements[0].id;
    let tag = task.etag();
    let handles: Vec<_> = (0..8)
        .map(|writer| {
            let (env, tag) = (Arc::clone(&env), tag.clone());
            let (run, task) = (run.id, task.id);
            tokio::spawn(async move {
                let request = UpdateTask {
                    custom_elements: vec![ElementWrite {
                        id: name,
                        value: json!(format!("writer {writer}")),
                    }],
                    if_match: Some(IfMatch::OneOf(vec![tag])),
                    ..UpdateTask::default()
                };
                let outcome = env
                    .procflow
                    .update_task(&env.team, run, task, request)
                    .await;
                (writer, outcome)
            })
        })
        .collect();
    let mut winners = Vec::new();
    for handle in handles {
        match handle.await.unwrap() {
            (writer, Ok(change)) => winners.push((writer, change.task)),
            (_, Err(error)) => assert_eq!(error, DomainError::PreconditionFailed),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one writer applies");
    let (writer, written) = winners.remove(0);
    let read = env
        .store
        .get_task(env.team.id, run.id, task.id)
        .await
        .unwrap();
    assert_eq!(read, written, "the winner's write is what is stored");
    assert_eq!(
        read.custom_elements[0].value,
        Some(json!(format!("writer {writer}")))
    );
}
