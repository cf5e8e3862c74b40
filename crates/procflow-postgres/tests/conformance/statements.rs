//! Statement counts: creating a run is a fixed number of set-based statements whatever its
//! size, a task update costs the same on a small and a large run, and reads cost a fixed
//! number of statements. PostgreSQL only: statements are what these tests count.

use procflow_domain::run::RunFilter;
use procflow_domain::service::{UpdateTask, UpdateTasks};
use procflow_domain::values::{Cursor, Limit, PageRequest};

use super::env::Env;
use super::support::{V7Ids, published, sized_document, start};

/// Statements sent while `work` runs.
async fn statements<T>(env: &Env, work: impl Future<Output = T>) -> (T, u64) {
    let counter = &env.pg().statements;
    let before = counter.get();
    let out = work.await;
    (out, counter.get() - before)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_of_500_tasks_with_5_elements_each_is_created_in_six_statements() {
    let env = Env::postgres().await;
    let small = published(&env, &env.team, sized_document(5, 5)).await;
    let large = published(&env, &env.team, sized_document(500, 5)).await;
    let new_run = |template| {
        procflow_domain::run::Run::start(
            procflow_domain::run::StartRun {
                template,
                title: None,
                due_date: None,
                runner: None,
                members: &[],
                timezone: "UTC".into(),
                prefill: Vec::new(),
            },
            &V7Ids,
            env.clock_now(),
        )
        .unwrap()
    };
    let (small_run, large_run) = (new_run(&small), new_run(&large));
    assert_eq!(large_run.tasks.len(), 500);
    let (created, small_count) = statements(&env, env.store.create_run(&small_run)).await;
    created.unwrap();
    let (created, large_count) = statements(&env, env.store.create_run(&large_run)).await;
    created.unwrap();
    // BEGIN, the run, its sections, its tasks (with their elements), its events, COMMIT.
    assert_eq!(large_count, 6);
    assert_eq!(small_count, large_count);
    let read = env
        .store
        .list_tasks(env.team.id, large_run.run.id, PageRequest::default())
        .await
        .unwrap();
    assert!(read.has_more);
    assert_eq!(read.items[0].custom_elements.parse().unwrap().len(), 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_update_costs_the_same_on_5_and_on_500_tasks() {
    let env = Env::postgres().await;
    let mut counts = Vec::new();
    for size in [5, 500] {
        let template = published(&env, &env.team, sized_document(size, 1)).await;
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
            .items[0]
            .id;
        let patch = UpdateTask {
            completed: Some(true),
            ..UpdateTask::default()
        };
        let (updated, count) = statements(
            &env,
            env.procflow.update_task(&env.team, run.id, task, patch),
        )
        .await;
        updated.unwrap();
        counts.push(count);
    }
    // BEGIN, lock and read the run with the task (one statement), write the task, write the
    // run, append the event (these three pipelined: one round trip), COMMIT.
    assert_eq!(counts, [6, 6]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_and_pages_after_a_cursor_are_read_in_two_statements_or_one() {
    let env = Env::postgres().await;
    let template = published(&env, &env.team, sized_document(5, 1)).await;
    let mut runs = Vec::new();
    for _ in 0..3 {
        let run = env
            .procflow
            .create_run(&env.team, start(&template))
            .await
            .unwrap();
        runs.push(run);
    }
    let after = |id| PageRequest {
        limit: Limit::new(1).unwrap(),
        cursor: Some(Cursor::after(id)),
    };
    // The header and the sections (pipelined).
    let (read, count) = statements(&env, env.store.get_run(env.team.id, runs[0].id)).await;
    assert_eq!(read.unwrap().id, runs[0].id);
    assert_eq!(count, 2);
    // The page, with the cursor's check folded in, then the page's sections.
    let (page, count) = statements(
        &env,
        env.store.list_runs(
            env.team.id,
            RunFilter::default(),
            after(runs[2].id.as_uuid()),
        ),
    )
    .await;
    assert_eq!(page.unwrap().items[0].id, runs[1].id);
    assert_eq!(count, 2);
    // The page alone: the cursor's position is a subquery of it.
    let first = env
        .store
        .list_tasks(env.team.id, runs[0].id, PageRequest::default())
        .await
        .unwrap();
    let (page, count) = statements(
        &env,
        env.store
            .list_tasks(env.team.id, runs[0].id, after(first.items[0].id.as_uuid())),
    )
    .await;
    assert_eq!(page.unwrap().items[0].id, first.items[1].id);
    assert_eq!(count, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_of_1000_tasks_is_written_in_as_many_statements_as_one_of_5() {
    let env = Env::postgres().await;
    let mut counts = Vec::new();
    for size in [5, 1_000] {
        let (template, count) =
            statements(&env, published(&env, &env.team, sized_document(size, 3))).await;
        counts.push(count);
        let read = env
            .store
            .get_template(env.team.id, template.id)
            .await
            .unwrap();
        assert_eq!(read.tasks.len(), size);
        assert_eq!(read, template, "the template reads back as written");
    }
    // Its sections and its tasks (with their elements) are one statement each, whatever their
    // number; the rest of creating and publishing does not depend on the size either.
    assert_eq!(counts[0], counts[1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_published_template_is_read_in_one_statement_once_its_document_is_kept() {
    let env = Env::postgres().await;
    let template = published(&env, &env.team, sized_document(50, 3)).await;
    let read = || env.store.get_template(env.team.id, template.id);
    // The header, the sections, the tasks and the header again; then the header alone.
    let (first, count) = statements(&env, read()).await;
    assert_eq!((first.unwrap(), count), (template.clone(), 4));
    for _ in 0..2 {
        let (again, count) = statements(&env, read()).await;
        assert_eq!((again.unwrap(), count), (template.clone(), 1));
    }
    // A draft is read whole every time (its document may change at any moment): the first
    // time after the header the kept version's check read, then in one round trip.
    let draft = env
        .procflow
        .publish_template(&env.team, template.id, false)
        .await
        .unwrap();
    for _ in 0..2 {
        let (read, count) = statements(&env, read()).await;
        assert_eq!((read.unwrap(), count), (draft.clone(), 4));
    }
    // Published again (version 2): read whole once, then kept.
    let republished = env
        .procflow
        .publish_template(&env.team, template.id, true)
        .await
        .unwrap();
    for expected in [4, 1, 1] {
        let (read, count) = statements(&env, read()).await;
        assert_eq!((read.unwrap(), count), (republished.clone(), expected));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_of_5_tasks_and_one_of_100_on_500_cost_the_same_seven_statements() {
    let env = Env::postgres().await;
    let mut counts = Vec::new();
    for (size, batch) in [(5, 5), (500, 100)] {
        let template = published(&env, &env.team, sized_document(size, 2)).await;
        let run = env
            .procflow
            .create_run(&env.team, start(&template))
            .await
            .unwrap();
        let mut tasks = Vec::new();
        let mut cursor = None;
        while tasks.len() < batch {
            let page = env
                .store
                .list_tasks(
                    env.team.id,
                    run.id,
                    PageRequest {
                        limit: Limit::new(100).unwrap(),
                        cursor,
                    },
                )
                .await
                .unwrap();
            cursor = page.next_cursor;
            tasks.extend(page.items);
        }
        let request = UpdateTasks {
            tasks: tasks[..batch]
                .iter()
                .map(|task| {
                    let patch = UpdateTask {
                        completed: Some(true),
                        ..UpdateTask::default()
                    };
                    (task.id, patch)
                })
                .collect(),
            ..UpdateTasks::default()
        };
        let (updated, count) =
            statements(&env, env.procflow.update_tasks(&env.team, run.id, request)).await;
        assert_eq!(updated.unwrap().changed.len(), batch);
        counts.push(count);
    }
    // BEGIN, lock the run and read the batch's tasks (pipelined: one round trip), update the
    // tasks in one statement, write the run, append the events (these three pipelined), COMMIT.
    assert_eq!(counts, [7, 7]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guest_page_of_a_run_of_500_tasks_is_read_in_three_statements() {
    use procflow_domain::sharing::Invitation;
    let env = Env::postgres().await;
    let template = published(&env, &env.team, sized_document(500, 3)).await;
    let run = env
        .procflow
        .create_run(&env.team, start(&template))
        .await
        .unwrap();
    let shared = env
        .procflow
        .invite_guest(&env.team, run.id, Invitation::default())
        .await
        .unwrap();
    let (read, count) = statements(&env, env.procflow.open_shared_run(run.id, &shared.token)).await;
    let read = read.unwrap();
    assert_eq!(read.tasks.len(), 500);
    // The run with its share, its sections, its tasks: sent together, one round trip.
    assert_eq!(count, 3);
    // Its files, whatever the number of tasks: one statement (no member to name).
    let (files, count) = statements(&env, env.attachments.guest_files(&read)).await;
    assert!(files.unwrap().attachments.is_empty());
    assert_eq!(count, 1);
}
