//! `CommentStore` (API contract 14.1): a thread in order with its events, edits and soft
//! deletes, team scope, hidden tasks refused with nothing written.

use std::sync::Mutex;

use procflow_domain::actor::{Actor, Assignee};
use procflow_domain::error::{DomainError, Resource};
use procflow_domain::etag::{IfMatch, Tagged};
use procflow_domain::event::EventPayload;
use procflow_domain::ids::{CommentId, RunId, TaskId};
use procflow_domain::run::{BareTask, ElementWrite};
use procflow_domain::service::{AddComment, UpdateTask};
use procflow_domain::values::{Cursor, Limit, PageRequest};
use serde_json::json;
use uuid::Uuid;

use super::env::{Env, conformance_test};
use super::logic::onboarding;
use super::support::{Started, published, start, started};

fn said(text: &str, by: Option<&str>) -> AddComment {
    AddComment {
        text: text.to_owned(),
        actor_email: by.map(|e| e.parse().unwrap()),
        attachment_ids: Vec::new(),
    }
}

fn page(limit: i64, cursor: Option<Uuid>) -> PageRequest {
    PageRequest {
        limit: Limit::new(limit).unwrap(),
        cursor: cursor.map(Cursor::after),
    }
}

conformance_test!(a_thread_is_kept_in_order_with_its_events);
async fn a_thread_is_kept_in_order_with_its_events(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let task = tasks[1].id;
    // Assigned to someone outside the team: emailed, unless they wrote it.
    env.procflow
        .update_task(
            &env.team,
            run.id,
            task,
            UpdateTask {
                assignee: Some(Some(Assignee::Email("out@side.example".parse().unwrap()))),
                ..UpdateTask::default()
            },
        )
        .await
        .unwrap();
    let first = env
        .comments
        .add(
            &env.team,
            run.id,
            task,
            said("@member@a.example see clause 4", Some("admin@a.example")),
        )
        .await
        .unwrap();
    assert!(matches!(first.author, Actor::User(_)));
    assert_eq!(
        first.author_email.as_ref().unwrap().as_str(),
        "admin@a.example"
    );
    assert_eq!(first.mentions.len(), 1);
    let second = env
        .comments
        .add(&env.team, run.id, task, said("second", None))
        .await
        .unwrap();
    assert_eq!(second.author, Actor::Api);

    let all = env
        .comments
        .list(&env.team, run.id, task, page(1, None))
        .await
        .unwrap();
    assert_eq!(all.items, std::slice::from_ref(&first));
    assert!(all.has_more);
    let rest = env
        .comments
        .list(&env.team, run.id, task, page(10, Some(first.id.as_uuid())))
        .await
        .unwrap();
    assert_eq!(rest.items, std::slice::from_ref(&second));
    assert!(!rest.has_more);
    let unknown = env
        .comments
        .list(&env.team, run.id, task, page(10, Some(Uuid::from_u128(7))))
        .await;
    assert!(
        matches!(unknown, Err(DomainError::Validation(_))),
        "{unknown:?}"
    );

    let events = env.events().await;
    let created = events
        .iter()
        .filter(|e| e.payload.name() == "task.comment_created")
        .count();
    assert_eq!(created, 2);
    let notices: Vec<(String, bool)> = events
        .iter()
        .filter_map(|e| match &e.payload {
            EventPayload::CommentNotice {
                email, mentioned, ..
            } => Some((email.to_string(), *mentioned)),
            _ => None,
        })
        .collect();
    // The first: the member mentioned and the assignee; the second: the assignee.
    assert_eq!(
        notices,
        [
            ("member@a.example".to_owned(), true),
            ("out@side.example".to_owned(), false),
            ("out@side.example".to_owned(), false),
        ]
    );
}

conformance_test!(edits_and_deletes_keep_the_comment_in_its_thread);
async fn edits_and_deletes_keep_the_comment_in_its_thread(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let task = tasks[0].id;
    let comment = env
        .comments
        .add(&env.team, run.id, task, said("draft", None))
        .await
        .unwrap();
    env.clock.advance(time::Duration::minutes(5));
    let edited = env
        .comments
        .edit(&env.team, comment.id, "@member@a.example final", None)
        .await
        .unwrap();
    assert_eq!(edited.text, "@member@a.example final");
    assert_eq!(edited.mentions.len(), 1);
    assert_eq!(edited.edited_at, Some(env.clock_now()));
    let deleted = env.comments.delete(&env.team, comment.id).await.unwrap();
    assert!(deleted.deleted);
    assert!(deleted.text.is_empty() && deleted.mentions.is_empty());
    // Again: nothing changes.
    assert_eq!(
        env.comments.delete(&env.team, comment.id).await.unwrap(),
        deleted
    );
    let refused = env.comments.edit(&env.team, comment.id, "back", None).await;
    assert!(
        matches!(refused, Err(DomainError::Conflict(_))),
        "{refused:?}"
    );
    let thread = env
        .comments
        .list(&env.team, run.id, task, page(10, None))
        .await
        .unwrap();
    assert_eq!(thread.items, [deleted]);
}

conformance_test!(an_edit_under_if_match_applies_only_to_the_current_comment);
async fn an_edit_under_if_match_applies_only_to_the_current_comment(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let comment = env
        .comments
        .add(&env.team, run.id, tasks[0].id, said("draft", None))
        .await
        .unwrap();
    let read = IfMatch::OneOf(vec![comment.etag()]);
    let edited = env
        .comments
        .edit(&env.team, comment.id, "second", Some(&read))
        .await
        .unwrap();
    assert_ne!(edited.etag(), comment.etag(), "an edit changes the tag");
    // The tag read before that edit is stale now: nothing changes.
    assert_eq!(
        env.comments
            .edit(&env.team, comment.id, "lost update", Some(&read))
            .await,
        Err(DomainError::PreconditionFailed)
    );
    assert_eq!(
        env.store
            .get_comment(env.team.id, comment.id)
            .await
            .unwrap(),
        edited
    );
    let again = env
        .comments
        .edit(&env.team, comment.id, "third", Some(&IfMatch::Any))
        .await
        .unwrap();
    assert_eq!(again.text, "third");
}

conformance_test!(another_teams_comments_are_not_found);
async fn another_teams_comments_are_not_found(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let comment = env
        .comments
        .add(&env.team, run.id, tasks[0].id, said("ours", None))
        .await
        .unwrap();
    let not_comment = Err(DomainError::NotFound(Resource::Comment));
    assert_eq!(
        env.store.get_comment(env.other.id, comment.id).await,
        not_comment
    );
    assert_eq!(
        env.comments
            .edit(&env.other, comment.id, "theirs", None)
            .await,
        not_comment
    );
    assert_eq!(
        env.comments.delete(&env.other, comment.id).await,
        not_comment
    );
    let missing = CommentId::from_uuid(Uuid::from_u128(99));
    assert_eq!(
        env.store.get_comment(env.team.id, missing).await,
        not_comment
    );
    let not_run = DomainError::NotFound(Resource::Run);
    assert_eq!(
        env.comments
            .add(&env.other, run.id, tasks[0].id, said("x", None))
            .await
            .unwrap_err(),
        not_run
    );
    assert_eq!(
        env.comments
            .list(&env.other, run.id, tasks[0].id, page(10, None))
            .await
            .unwrap_err(),
        not_run
    );
    assert_eq!(
        env.store
            .get_comment(env.team.id, comment.id)
            .await
            .unwrap(),
        comment
    );
}

conformance_test!(a_hidden_task_refuses_comments_and_nothing_is_written);
async fn a_hidden_task_refuses_comments_and_nothing_is_written(env: Env) {
    let template = published(&env, &env.team, onboarding()).await;
    let run = env
        .procflow
        .create_run(&env.team, start(&template))
        .await
        .unwrap();
    let tasks = env
        .store
        .list_tasks(env.team.id, run.id, page(100, None))
        .await
        .unwrap()
        .items;
    let hidden = tasks.iter().find(|t| t.hidden).unwrap().id;
    let refused = env
        .comments
        .add(&env.team, run.id, hidden, said("hello", None))
        .await;
    assert!(
        matches!(refused, Err(DomainError::TaskHidden { .. })),
        "{refused:?}"
    );
    let events = env.events().await;
    assert!(
        events
            .iter()
            .all(|e| !e.payload.name().starts_with("task.comment"))
    );
    let thread = env
        .comments
        .list(&env.team, run.id, hidden, page(10, None))
        .await
        .unwrap();
    assert!(thread.items.is_empty());
}

conformance_test!(a_threads_decisions_see_the_task_as_read_without_its_elements);
async fn a_threads_decisions_see_the_task_as_read_without_its_elements(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let task = tasks[0].id;
    // Completed, assigned and with a value: every field the decisions read is set.
    env.procflow
        .update_task(
            &env.team,
            run.id,
            task,
            UpdateTask {
                completed: Some(true),
                assignee: Some(Some(Assignee::Email("out@side.example".parse().unwrap()))),
                actor_email: Some("member@a.example".parse().unwrap()),
                custom_elements: vec![ElementWrite {
                    id: tasks[0].custom_elements[0].id,
                    value: json!("Ada Lovelace"),
                }],
                ..UpdateTask::default()
            },
        )
        .await
        .unwrap();
    let read = env.store.get_task(env.team.id, run.id, task).await.unwrap();
    let seen: Mutex<Vec<(String, BareTask)>> = Mutex::new(Vec::new());
    let refusal = || DomainError::RunCompleted;
    let refused = env
        .store
        .add_comment(env.team.id, run.id, task, &|title, task| {
            seen.lock().unwrap().push((title.to_owned(), task.clone()));
            Err(refusal())
        })
        .await;
    assert_eq!(refused.unwrap_err(), refusal());
    let refused = env
        .store
        .add_attachment(env.team.id, run.id, task, &|task| {
            seen.lock().unwrap().push((String::new(), task.clone()));
            Err(refusal())
        })
        .await;
    assert_eq!(refused.unwrap_err(), refusal());
    let bare = read.with_elements(());
    assert_eq!(
        seen.into_inner().unwrap(),
        [(run.title.clone(), bare.clone()), (String::new(), bare)]
    );
}

conformance_test!(an_empty_page_tells_the_end_of_a_thread_from_what_is_unknown);
async fn an_empty_page_tells_the_end_of_a_thread_from_what_is_unknown(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let (task, quiet, missing) = (tasks[0].id, tasks[1].id, Uuid::from_u128(7));
    let list = |run, task, page| env.comments.list(&env.team, run, task, page);
    // A thread without comments is an empty page.
    let empty = list(run.id, quiet, page(10, None)).await.unwrap();
    assert!(empty.items.is_empty() && !empty.has_more);
    let only = env
        .comments
        .add(&env.team, run.id, task, said("only", None))
        .await
        .unwrap();
    // After the last comment: an empty page, not an unknown cursor.
    let end = list(run.id, task, page(10, Some(only.id.as_uuid())))
        .await
        .unwrap();
    assert!(end.items.is_empty() && !end.has_more);
    // A comment of another task's thread is no cursor of this one.
    let elsewhere = list(run.id, quiet, page(10, Some(only.id.as_uuid()))).await;
    assert!(
        matches!(elsewhere, Err(DomainError::Validation(_))),
        "{elsewhere:?}"
    );
    let unknown_task = TaskId::from_uuid(missing);
    let unknown_run = RunId::from_uuid(missing);
    for cursor in [None, Some(only.id.as_uuid()), Some(missing)] {
        assert_eq!(
            list(run.id, unknown_task, page(10, cursor)).await,
            Err(DomainError::NotFound(Resource::Task)),
            "cursor {cursor:?}"
        );
        assert_eq!(
            list(unknown_run, task, page(10, cursor)).await,
            Err(DomainError::NotFound(Resource::Run)),
            "cursor {cursor:?}"
        );
    }
}
