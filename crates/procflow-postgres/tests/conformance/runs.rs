//! `RunStore`: creation, reads, lists, task updates and their events.

use procflow_domain::actor::{Actor, Assignee};
use procflow_domain::error::{DomainError, Resource};
use procflow_domain::event::EventPayload;
use procflow_domain::ids::{RunId, TaskId};
use procflow_domain::run::{ElementWrite, Run, RunFilter, RunStatus, StartRun, TaskPatch};
use procflow_domain::service::UpdateTask;
use procflow_domain::values::{Cursor, Limit, PageRequest};
use procflow_memory::SequentialIds;
use serde_json::json;
use time::Duration;
use uuid::Uuid;

use super::env::{Env, conformance_test};
use super::support::{Started, V7Ids, document, listed, parsed, published, start, started};

conformance_test!(a_created_run_reads_back_with_its_sections_and_tasks);
async fn a_created_run_reads_back_with_its_sections_and_tasks(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let request = procflow_domain::service::CreateRun {
        actor_email: Some("member@a.example".parse().unwrap()),
        ..start(&template)
    };
    let run = env.procflow.create_run(&env.team, request).await.unwrap();
    let read = env.store.get_run(env.team.id, run.id).await.unwrap();
    assert_eq!(read, run);
    assert_eq!(read.sections, template.sections);
    assert_eq!(read.timezone, "Europe/Paris");
    let tasks = env
        .store
        .list_tasks(env.team.id, run.id, PageRequest::default())
        .await
        .unwrap();
    assert_eq!(tasks.items.len(), 3);
    assert!(matches!(tasks.items[0].assignee, Some(Assignee::User(_))));
    assert_eq!(
        tasks.items[0].due_date,
        Some(run.created_at + Duration::days(3))
    );
    // A listing's elements, as PostgreSQL writes them back, parse to what was stored.
    let tasks = parsed(tasks.items);
    assert_eq!(tasks[0].custom_elements, template.tasks[0].custom_elements);
    let task = env
        .store
        .get_task(env.team.id, run.id, tasks[1].id)
        .await
        .unwrap();
    assert_eq!(task, tasks[1]);
}

conformance_test!(creating_a_run_appends_its_events_in_the_same_transaction);
async fn creating_a_run_appends_its_events_in_the_same_transaction(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let request = procflow_domain::service::CreateRun {
        actor_email: Some("admin@a.example".parse().unwrap()),
        ..start(&template)
    };
    let run = env.procflow.create_run(&env.team, request).await.unwrap();
    let names = env.event_names().await;
    assert_eq!(names, ["process_run.created", "process_step.assigned"]);
    assert!(
        matches!(run.started_by, Actor::User(user) if user.as_uuid().as_u128() == (0xA << 100) + 1)
    );
}

conformance_test!(a_run_of_another_teams_template_is_refused_and_nothing_is_written);
async fn a_run_of_another_teams_template_is_refused_and_nothing_is_written(env: Env) {
    let theirs = published(&env, &env.other, document()).await;
    let mut new_run = Run::start(
        StartRun {
            template: &theirs,
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
    .unwrap();
    new_run.run.team_id = env.team.id;
    for event in &mut new_run.events {
        event.team_id = env.team.id;
    }
    let refused = env.store.create_run(&new_run).await.unwrap_err();
    assert_eq!(refused, DomainError::NotFound(Resource::Template));
    let runs = env
        .store
        .list_runs(env.team.id, RunFilter::default(), PageRequest::default())
        .await;
    assert!(runs.unwrap().items.is_empty());
    assert!(env.events().await.is_empty());
}

conformance_test!(runs_list_newest_first_filtered_and_after_a_cursor);
async fn runs_list_newest_first_filtered_and_after_a_cursor(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let mut ids = Vec::new();
    for _ in 0..5 {
        ids.push(
            env.procflow
                .create_run(&env.team, start(&template))
                .await
                .unwrap()
                .id,
        );
    }
    ids.reverse();
    let limit = Limit::new(2).unwrap();
    let first = env
        .store
        .list_runs(
            env.team.id,
            RunFilter::default(),
            PageRequest {
                limit,
                cursor: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(
        first.items.iter().map(|r| r.id).collect::<Vec<_>>(),
        ids[..2]
    );
    assert!(first.has_more);
    assert_eq!(first.items[0].sections.len(), 2);
    // A run started after the first page does not move the pages that follow.
    env.procflow
        .create_run(&env.team, start(&template))
        .await
        .unwrap();
    let second = env
        .store
        .list_runs(
            env.team.id,
            RunFilter::default(),
            PageRequest {
                limit,
                cursor: first.next_cursor,
            },
        )
        .await
        .unwrap();
    assert_eq!(
        second.items.iter().map(|r| r.id).collect::<Vec<_>>(),
        ids[2..4]
    );

    let completed = RunFilter {
        status: Some(RunStatus::Completed),
        ..RunFilter::default()
    };
    let none = env
        .store
        .list_runs(env.team.id, completed, PageRequest::default())
        .await
        .unwrap();
    assert!(none.items.is_empty());
    let by_template = RunFilter {
        template_id: Some(template.id),
        status: Some(RunStatus::Active),
    };
    let all = env
        .store
        .list_runs(env.team.id, by_template, PageRequest::default())
        .await
        .unwrap();
    assert_eq!(all.items.len(), 6);
    // A cursor must name a run of the filtered list.
    let outside = PageRequest {
        limit,
        cursor: Some(Cursor::after(ids[0].as_uuid())),
    };
    let refused = env
        .store
        .list_runs(env.team.id, completed, outside)
        .await
        .unwrap_err();
    assert_eq!(refused, DomainError::Validation(Cursor::unknown()));
}

conformance_test!(tasks_list_by_order_and_unknown_runs_and_cursors_are_told_apart);
async fn tasks_list_by_order_and_unknown_runs_and_cursors_are_told_apart(env: Env) {
    let Started { run, .. } = started(&env).await;
    let one = PageRequest {
        limit: Limit::new(1).unwrap(),
        cursor: None,
    };
    let first = env
        .store
        .list_tasks(env.team.id, run.id, one)
        .await
        .unwrap();
    let rest = env
        .store
        .list_tasks(
            env.team.id,
            run.id,
            PageRequest {
                limit: Limit::default(),
                cursor: first.next_cursor,
            },
        )
        .await
        .unwrap();
    let orders: Vec<u32> = first
        .items
        .iter()
        .chain(&rest.items)
        .map(|t| t.order)
        .collect();
    assert_eq!(orders, [0, 1, 2]);

    let unknown_run = RunId::from_uuid(Uuid::now_v7());
    let bad_cursor = PageRequest {
        limit: Limit::default(),
        cursor: Some(Cursor::after(Uuid::now_v7())),
    };
    assert_eq!(
        env.store
            .list_tasks(env.team.id, unknown_run, PageRequest::default())
            .await
            .unwrap_err(),
        DomainError::NotFound(Resource::Run)
    );
    assert_eq!(
        env.store
            .list_tasks(env.team.id, unknown_run, bad_cursor)
            .await
            .unwrap_err(),
        DomainError::NotFound(Resource::Run)
    );
    assert_eq!(
        env.store
            .list_tasks(env.team.id, run.id, bad_cursor)
            .await
            .unwrap_err(),
        DomainError::Validation(Cursor::unknown())
    );
    let unknown_task = TaskId::from_uuid(Uuid::now_v7());
    assert_eq!(
        env.store
            .get_task(env.team.id, run.id, unknown_task)
            .await
            .unwrap_err(),
        DomainError::NotFound(Resource::Task)
    );
    assert_eq!(
        env.store
            .get_task(env.team.id, unknown_run, first.items[0].id)
            .await
            .unwrap_err(),
        DomainError::NotFound(Resource::Run)
    );
    // A task's assignee read alone tells the two apart the same way.
    assert_eq!(
        env.store
            .task_assignee(env.team.id, run.id, unknown_task)
            .await
            .unwrap_err(),
        DomainError::NotFound(Resource::Task)
    );
    assert_eq!(
        env.store
            .task_assignee(env.team.id, unknown_run, first.items[0].id)
            .await
            .unwrap_err(),
        DomainError::NotFound(Resource::Run)
    );
}

conformance_test!(a_task_update_writes_the_task_the_run_and_the_events);
async fn a_task_update_writes_the_task_the_run_and_the_events(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let name = tasks[0].custom_elements[0].id;
    let change = env
        .procflow
        .update_task(
            &env.team,
            run.id,
            tasks[0].id,
            UpdateTask {
                completed: Some(true),
                actor_email: Some("member@a.example".parse().unwrap()),
                custom_elements: vec![ElementWrite {
                    id: name,
                    value: json!("Ada Lovelace"),
                }],
                ..UpdateTask::default()
            },
        )
        .await
        .unwrap();
    let read = env
        .store
        .get_task(env.team.id, run.id, tasks[0].id)
        .await
        .unwrap();
    assert_eq!(read, change.task);
    assert!(matches!(read.completed_by(), Some(Actor::User(_))));
    assert_eq!(read.custom_elements[0].value, Some(json!("Ada Lovelace")));
    let header = env.store.get_run(env.team.id, run.id).await.unwrap();
    assert_eq!(header.open_tasks(), 2);
    assert_eq!(header.updated_at, Some(env.clock_now()));

    for task in &tasks[1..] {
        let patch = UpdateTask {
            completed: Some(true),
            ..UpdateTask::default()
        };
        env.procflow
            .update_task(&env.team, run.id, task.id, patch)
            .await
            .unwrap();
    }
    let done = env.store.get_run(env.team.id, run.id).await.unwrap();
    assert_eq!(done.status(), RunStatus::Completed);
    assert_eq!(done.completed_at(), Some(env.clock_now()));
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
    let refused = env
        .procflow
        .update_task(
            &env.team,
            run.id,
            tasks[0].id,
            UpdateTask {
                completed: Some(false),
                ..UpdateTask::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(refused, DomainError::RunCompleted);
}

conformance_test!(a_refused_patch_writes_nothing);
async fn a_refused_patch_writes_nothing(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    env.events().await;
    let dropdown = tasks[0].custom_elements[1].id;
    let patch = TaskPatch {
        completed: Some(true),
        custom_elements: vec![procflow_domain::run::ElementWrite {
            id: dropdown,
            value: json!("HR"),
        }],
        ..TaskPatch::default()
    };
    let ids = SequentialIds::default();
    let now = env.clock_now();
    let refused = env
        .store
        .update_task(env.team.id, run.id, tasks[0].id, &|run, task| {
            patch.apply(run, task, Actor::Api, &ids, now)
        })
        .await
        .unwrap_err();
    assert!(matches!(refused, DomainError::Validation(_)));
    assert_eq!(
        env.store
            .get_task(env.team.id, run.id, tasks[0].id)
            .await
            .unwrap(),
        tasks[0]
    );
    assert_eq!(env.store.get_run(env.team.id, run.id).await.unwrap(), run);
    // Events claimed above are leased; a refused patch appended none after them.
    assert!(env.events().await.is_empty());
}

conformance_test!(completing_a_run_records_one_completed_event_with_the_run);
async fn completing_a_run_records_one_completed_event_with_the_run(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    for task in &tasks {
        let patch = UpdateTask {
            completed: Some(true),
            ..UpdateTask::default()
        };
        env.procflow
            .update_task(&env.team, run.id, task.id, patch)
            .await
            .unwrap();
    }
    let completions: Vec<_> = env
        .events()
        .await
        .into_iter()
        .filter_map(|e| match e.payload {
            EventPayload::RunCompleted { run } => Some(run),
            _ => None,
        })
        .collect();
    assert_eq!(completions.len(), 1);
    assert_eq!(completions[0].id, run.id);
    assert_eq!(completions[0].status.as_str(), "completed");
}

// PostgreSQL only: it corrupts a row behind the store's back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_elements_that_are_not_elements_fail_the_read_cleanly() {
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    use procflow_domain::error::StoreError;

    let env = Env::postgres().await;
    let Started { run, tasks, .. } = started(&env).await;
    let mut conn = AsyncPgConnection::establish(env.pg().db.url())
        .await
        .unwrap();
    diesel::sql_query(format!(
        "UPDATE run_tasks SET custom_elements = '{{\"not\": \"a list\"}}' WHERE id = '{}'",
        tasks[0].id.as_uuid()
    ))
    .execute(&mut conn)
    .await
    .unwrap();

    let read = env.store.get_task(env.team.id, run.id, tasks[0].id).await;
    assert!(
        matches!(read, Err(DomainError::Store(StoreError::Other(_)))),
        "{read:?}"
    );
    // A listing passes its elements on unparsed: they fail where they are parsed or written
    // (procflow-wire's ElementList), not in the read.
    let first = listed(&env, run.id).await.remove(0);
    assert_eq!(first.custom_elements.as_json(), r#"{"not": "a list"}"#);
    assert!(first.parsed().is_err());
    // The other tasks read as before.
    let other = env
        .store
        .get_task(env.team.id, run.id, tasks[1].id)
        .await
        .unwrap();
    assert_eq!(other, tasks[1]);
}

conformance_test!(a_cursor_on_the_last_item_gives_an_empty_page_not_an_error);
async fn a_cursor_on_the_last_item_gives_an_empty_page_not_an_error(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let after = |id: Uuid| PageRequest {
        limit: Limit::default(),
        cursor: Some(Cursor::after(id)),
    };
    // The cursor's check rides in the page query; an empty page asks about the cursor alone.
    let last_task = tasks.last().unwrap().id.as_uuid();
    let page = env
        .store
        .list_tasks(env.team.id, run.id, after(last_task))
        .await
        .unwrap();
    assert!(page.items.is_empty());
    assert_eq!(page.next_cursor, None);

    // The only run is the oldest too.
    let page = env
        .store
        .list_runs(env.team.id, RunFilter::default(), after(run.id.as_uuid()))
        .await
        .unwrap();
    assert!(page.items.is_empty());
    assert_eq!(page.next_cursor, None);
    assert_eq!(
        env.store
            .list_runs(env.team.id, RunFilter::default(), after(Uuid::now_v7()))
            .await
            .unwrap_err(),
        DomainError::Validation(Cursor::unknown())
    );
}
