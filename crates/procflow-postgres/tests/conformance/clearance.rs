//! A task update whose caller is still under admission (`RunStore::update_task_cleared`): on
//! both backends nothing is written before its clearance clears it, nothing at all when it
//! refuses, and a refused update leaves the run free for the next one.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use procflow_domain::error::{DomainError, DomainResult};
use procflow_domain::ports::Clearance;
use procflow_domain::run::TaskState;
use procflow_domain::service::UpdateTask;
use procflow_domain::values::PageRequest;
use tokio::sync::{Notify, watch};

use super::env::{Env, conformance_test};
use super::support::{Started, started};

/// A clearance the test answers: it says when it is asked, then waits for the answer.
struct Held {
    asked: Notify,
    answer: watch::Sender<Option<bool>>,
}

impl Held {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            asked: Notify::new(),
            answer: watch::channel(None).0,
        })
    }
}

#[async_trait]
impl Clearance for Held {
    async fn cleared(&self) -> DomainResult<()> {
        self.asked.notify_one();
        let mut answer = self.answer.subscribe();
        let cleared = *answer.wait_for(Option::is_some).await.unwrap();
        if cleared == Some(true) {
            Ok(())
        } else {
            Err(DomainError::NotCleared)
        }
    }
}

fn complete() -> UpdateTask {
    UpdateTask {
        completed: Some(true),
        ..UpdateTask::default()
    }
}

async fn events(env: &Env) -> usize {
    env.store
        .list_events(env.team.id, None, PageRequest::default())
        .await
        .unwrap()
        .items
        .len()
}

conformance_test!(an_update_writes_nothing_until_its_clearance_clears_it);
async fn an_update_writes_nothing_until_its_clearance_clears_it(env: Env) {
    let env = Arc::new(env);
    let Started { run, tasks, .. } = started(&env).await;
    let (task, before) = (tasks[0].id, events(&env).await);
    let held = Held::new();
    let update = tokio::spawn({
        let (env, held) = (Arc::clone(&env), Arc::clone(&held));
        async move {
            env.procflow
                .update_task_cleared(&env.team, run.id, task, complete(), &*held)
                .await
        }
    });
    // Bounded: a store that never asks is a broken store, not a slow one.
    tokio::time::timeout(Duration::from_secs(10), held.asked.notified())
        .await
        .expect("the update asked for its clearance");
    let read = env.store.get_task(env.team.id, run.id, task).await.unwrap();
    assert!(
        matches!(read.state, TaskState::Open),
        "written before it was cleared"
    );
    assert_eq!(events(&env).await, before);
    held.answer.send_replace(Some(true));
    let change = update.await.unwrap().unwrap();
    assert!(matches!(change.task.state, TaskState::Completed { .. }));
    let read = env.store.get_task(env.team.id, run.id, task).await.unwrap();
    assert_eq!(read, change.task);
    assert_eq!(events(&env).await, before + 1);
}

conformance_test!(an_update_its_clearance_refuses_writes_nothing_and_frees_the_run);
async fn an_update_its_clearance_refuses_writes_nothing_and_frees_the_run(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let (task, before) = (tasks[0].id, events(&env).await);
    let held = Held::new();
    held.answer.send_replace(Some(false));
    let refused = env
        .procflow
        .update_task_cleared(&env.team, run.id, task, complete(), &*held)
        .await;
    assert_eq!(refused.unwrap_err(), DomainError::NotCleared);
    let read = env.store.get_task(env.team.id, run.id, task).await.unwrap();
    assert_eq!(read, tasks[0]);
    assert_eq!(events(&env).await, before);
    // The refused update's lock went with its transaction: the next one goes through at once
    // (well within the pool's lock timeout).
    let change = tokio::time::timeout(
        Duration::from_secs(5),
        env.procflow
            .update_task(&env.team, run.id, task, complete()),
    )
    .await
    .expect("the run was left locked")
    .unwrap();
    assert!(matches!(change.task.state, TaskState::Completed { .. }));
    assert_eq!(events(&env).await, before + 1);
}
