//! The inbox (API contract 15.1, `RunStore::list_inbox` through the use case): every filter
//! alone and combined, the order, the cursor, hidden tasks and other teams never listed, and
//! overdue judged at the clock's now.

use procflow_domain::actor::Assignee;
use procflow_domain::run::{InboxFilter, InboxTask, Run, RunStatus, TaskStatus};
use procflow_domain::service::{CreateRun, UpdateTask};
use procflow_domain::template::Template;
use procflow_domain::values::{Cursor, Limit, PageRequest};
use serde_json::{Value, json};
use time::Duration;

use super::env::{Env, conformance_test};
use super::support::published;

/// Five tasks: two of a member with due dates a day and an hour away (the second hidden until
/// the profile says remote), an unassigned one due in three days, an external one due in two
/// and one of the member without a due date.
fn document() -> Value {
    let due = |offset: &str| json!({"type": "relative", "from": "run_start", "offset": offset});
    json!({
        "title": "Inbox",
        "sections": [{"title": "All", "tasks": [
            {"ref": "profile", "title": "Profile", "assignee": "member@a.example",
             "due_date": due("P1D"),
             "custom_elements": [{"ref": "remote", "type": "checkbox", "label": "Remote?"}]},
            {"ref": "laptop", "title": "Ship a laptop", "assignee": "member@a.example",
             "due_date": due("PT1H")},
            {"title": "Later", "due_date": due("P3D")},
            {"title": "Outsider", "assignee": "guest@x.example", "due_date": due("P2D")},
            {"title": "Whenever", "assignee": "member@a.example"}]}],
        "rules": [{"if": {"element": "remote", "is": "equal", "value": true},
                   "show": ["laptop"]}]
    })
}

fn one_task() -> Value {
    json!({"title": "Single", "sections": [{"title": "All", "tasks": [
        {"title": "Only", "assignee": "member@a.example"}]}]})
}

async fn run_of(env: &Env, template: &Template, name: &str) -> Run {
    let request = CreateRun {
        name: Some(name.to_owned()),
        ..CreateRun::of(template.id)
    };
    env.procflow.create_run(&env.team, request).await.unwrap()
}

async fn inbox(env: &Env, filter: InboxFilter) -> Vec<InboxTask> {
    let page = PageRequest {
        limit: Limit::new(100).unwrap(),
        cursor: None,
    };
    env.procflow
        .list_inbox(&env.team, filter, page)
        .await
        .unwrap()
        .items
}

fn titles(items: &[InboxTask]) -> Vec<String> {
    items
        .iter()
        .map(|i| format!("{}/{}", i.run_title, i.task.title))
        .collect()
}

conformance_test!(the_inbox_lists_open_visible_tasks_by_due_date_then_id_with_their_run);
async fn the_inbox_lists_open_visible_tasks_by_due_date_then_id_with_their_run(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let run = run_of(&env, &template, "R1").await;
    let items = inbox(&env, InboxFilter::default()).await;
    // The laptop task (hidden) never shows; no due date comes last.
    assert_eq!(
        titles(&items),
        ["R1/Profile", "R1/Outsider", "R1/Later", "R1/Whenever"]
    );
    assert!(
        items
            .iter()
            .all(|i| i.task.run_id == run.id && !i.task.hidden)
    );
    // A task's assignee read alone is the one the whole task shows: a member, an outside
    // address, nobody.
    let tasks = env
        .store
        .list_tasks(env.team.id, run.id, PageRequest::default())
        .await
        .unwrap()
        .items;
    let mut kinds = Vec::new();
    for task in &tasks {
        let alone = env
            .store
            .task_assignee(env.team.id, run.id, task.id)
            .await
            .unwrap();
        let whole = env
            .store
            .get_task(env.team.id, run.id, task.id)
            .await
            .unwrap();
        assert_eq!(alone, whole.assignee, "{}", task.title);
        kinds.push(match alone {
            Some(Assignee::User(_)) => "member",
            Some(Assignee::Email(_)) => "address",
            None => "nobody",
        });
    }
    for kind in ["member", "address", "nobody"] {
        assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
    }
    // Equal due dates go by id: two runs started at the same instant interleave by task id.
    let second = run_of(&env, &template, "R2").await;
    let items = inbox(&env, InboxFilter::default()).await;
    assert_eq!(items.len(), 8);
    for pair in items.windows(2) {
        let (a, b) = (&pair[0].task, &pair[1].task);
        let key = |t: &procflow_domain::run::ListedTask| (t.due_date.is_none(), t.due_date, t.id);
        assert!(key(a) < key(b), "{} before {}", a.title, b.title);
    }
    assert!(items.iter().any(|i| i.task.run_id == second.id));
}

conformance_test!(each_filter_alone_and_combined);
async fn each_filter_alone_and_combined(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let single = published(&env, &env.team, one_task()).await;
    run_of(&env, &template, "R1").await;
    let finished = run_of(&env, &single, "S1").await;
    let open_single = run_of(&env, &single, "S2").await;
    let only = env
        .store
        .list_tasks(env.team.id, finished.id, PageRequest::default())
        .await
        .unwrap()
        .items[0]
        .id;
    let done = UpdateTask {
        completed: Some(true),
        ..UpdateTask::default()
    };
    env.procflow
        .update_task(&env.team, finished.id, only, done)
        .await
        .unwrap();
    let now = env.clock_now();
    let member = Assignee::Email("member@a.example".parse().unwrap());

    let by_member = InboxFilter {
        assignee: Some(member.clone()),
        ..InboxFilter::default()
    };
    assert_eq!(
        titles(&inbox(&env, by_member.clone()).await),
        ["R1/Profile", "R1/Whenever", "S2/Only"]
    );
    // By the member's user id, the same.
    let user = match inbox(&env, by_member.clone()).await[0]
        .task
        .assignee
        .clone()
    {
        Some(Assignee::User(user)) => user,
        other => panic!("a member's task is assigned by user id, not {other:?}"),
    };
    let by_user = InboxFilter {
        assignee: Some(Assignee::User(user)),
        ..InboxFilter::default()
    };
    assert_eq!(
        inbox(&env, by_user).await,
        inbox(&env, by_member.clone()).await
    );
    let external = InboxFilter {
        assignee: Some(Assignee::Email("guest@x.example".parse().unwrap())),
        ..InboxFilter::default()
    };
    assert_eq!(titles(&inbox(&env, external).await), ["R1/Outsider"]);

    let before = InboxFilter {
        due_before: Some(now + Duration::hours(60)),
        ..InboxFilter::default()
    };
    assert_eq!(
        titles(&inbox(&env, before).await),
        ["R1/Profile", "R1/Outsider"]
    );
    let after = InboxFilter {
        due_after: Some(now + Duration::hours(36)),
        ..InboxFilter::default()
    };
    assert_eq!(
        titles(&inbox(&env, after).await),
        ["R1/Outsider", "R1/Later"]
    );
    let of_template = InboxFilter {
        template_id: Some(single.id),
        ..InboxFilter::default()
    };
    assert_eq!(titles(&inbox(&env, of_template).await), ["S2/Only"]);
    let completed = InboxFilter {
        status: TaskStatus::Completed,
        run_status: RunStatus::Completed,
        ..InboxFilter::default()
    };
    assert_eq!(titles(&inbox(&env, completed).await), ["S1/Only"]);
    let completed_of_active = InboxFilter {
        status: TaskStatus::Completed,
        ..InboxFilter::default()
    };
    assert!(inbox(&env, completed_of_active).await.is_empty());

    let combined = InboxFilter {
        due_before: Some(now + Duration::days(30)),
        template_id: Some(template.id),
        ..by_member
    };
    assert_eq!(titles(&inbox(&env, combined).await), ["R1/Profile"]);
    let none = InboxFilter {
        template_id: Some(single.id),
        due_after: Some(now),
        ..InboxFilter::default()
    };
    assert!(inbox(&env, none).await.is_empty());
    assert_eq!(open_single.status(), RunStatus::Active);
}

conformance_test!(overdue_is_judged_at_the_clock_of_the_request);
async fn overdue_is_judged_at_the_clock_of_the_request(env: Env) {
    let template = published(&env, &env.team, document()).await;
    run_of(&env, &template, "R1").await;
    let overdue = InboxFilter {
        overdue: Some(true),
        ..InboxFilter::default()
    };
    let on_time = InboxFilter {
        overdue: Some(false),
        ..InboxFilter::default()
    };
    assert!(inbox(&env, overdue.clone()).await.is_empty());
    assert_eq!(inbox(&env, on_time.clone()).await.len(), 4);
    env.clock.advance(Duration::hours(60));
    assert_eq!(
        titles(&inbox(&env, overdue.clone()).await),
        ["R1/Profile", "R1/Outsider"]
    );
    assert_eq!(
        titles(&inbox(&env, on_time).await),
        ["R1/Later", "R1/Whenever"]
    );
    env.clock.advance(Duration::days(30));
    assert_eq!(inbox(&env, overdue).await.len(), 3);
}

conformance_test!(another_teams_tasks_are_never_listed);
async fn another_teams_tasks_are_never_listed(env: Env) {
    let ours = published(&env, &env.team, document()).await;
    let theirs = published(&env, &env.other, one_task()).await;
    run_of(&env, &ours, "Ours").await;
    env.procflow
        .create_run(&env.other, CreateRun::of(theirs.id))
        .await
        .unwrap();
    let items = inbox(&env, InboxFilter::default()).await;
    assert_eq!(items.len(), 4);
    assert!(items.iter().all(|i| i.run_title == "Ours"));
    let page = env
        .procflow
        .list_inbox(&env.other, InboxFilter::default(), PageRequest::default())
        .await
        .unwrap();
    assert_eq!(page.items.len(), 1);
    // Our task as the other team's cursor names nothing of its list.
    let cursor = PageRequest {
        cursor: Some(Cursor::after(items[0].task.id.as_uuid())),
        ..PageRequest::default()
    };
    let refused = env
        .procflow
        .list_inbox(&env.other, InboxFilter::default(), cursor)
        .await;
    assert!(refused.is_err(), "{refused:?}");
}

conformance_test!(pages_follow_the_cursor_and_an_unknown_cursor_is_refused);
async fn pages_follow_the_cursor_and_an_unknown_cursor_is_refused(env: Env) {
    let template = published(&env, &env.team, document()).await;
    for n in 0..3 {
        run_of(&env, &template, &format!("R{n}")).await;
    }
    let all = inbox(&env, InboxFilter::default()).await;
    assert_eq!(all.len(), 12);
    let mut walked = Vec::new();
    let mut page = PageRequest {
        limit: Limit::new(5).unwrap(),
        cursor: None,
    };
    loop {
        let got = env
            .procflow
            .list_inbox(&env.team, InboxFilter::default(), page)
            .await
            .unwrap();
        walked.extend(got.items);
        if !got.has_more {
            break;
        }
        page.cursor = got.next_cursor;
    }
    assert_eq!(walked, all);
    // A task that is not in this list (the hidden one, or one filtered out) is no cursor.
    let filtered = InboxFilter {
        assignee: Some(Assignee::Email("guest@x.example".parse().unwrap())),
        ..InboxFilter::default()
    };
    let profile = all.iter().find(|i| i.task.title == "Profile").unwrap();
    let refused = env
        .procflow
        .list_inbox(
            &env.team,
            filtered,
            PageRequest {
                cursor: Some(Cursor::after(profile.task.id.as_uuid())),
                ..PageRequest::default()
            },
        )
        .await;
    assert!(refused.is_err(), "{refused:?}");
    let unknown = env
        .procflow
        .list_inbox(
            &env.team,
            InboxFilter::default(),
            PageRequest {
                cursor: Some(Cursor::after(uuid::Uuid::now_v7())),
                ..PageRequest::default()
            },
        )
        .await;
    assert!(unknown.is_err(), "{unknown:?}");
}
