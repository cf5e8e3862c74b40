//! `NoticeStore`: a due reminder or overdue notice is taken once however many instances ask,
//! reminders only for guests who have not engaged, overdue notices again a day later while
//! the task stays open and never after it is done.

use std::sync::{Arc, Mutex};

use procflow_domain::mail::{DueNotice, OVERDUE_REPEAT};
use procflow_domain::ports::NoticeDecision;
use procflow_domain::service::UpdateTask;
use procflow_domain::sharing::Invitation;
use time::{Duration, OffsetDateTime};

use super::env::{Env, Store, conformance_test};
use super::support::{document, published, start};

/// What one call took: the kinds of the notices handed to the decision, and the count.
async fn take(store: &Arc<dyn Store>, now: OffsetDateTime) -> (Vec<&'static str>, usize) {
    let seen = Mutex::new(Vec::new());
    let decide: &NoticeDecision<'_> = &|notice| {
        seen.lock().unwrap().push(match notice {
            DueNotice::Reminder { .. } => "reminder",
            DueNotice::Overdue { .. } => "overdue",
        });
        None
    };
    let taken = store.take_due_notices(now, 10, decide).await.unwrap();
    (seen.into_inner().unwrap(), taken)
}

conformance_test!(an_overdue_task_is_noticed_once_then_a_day_later_until_it_is_done);
async fn an_overdue_task_is_noticed_once_then_a_day_later_until_it_is_done(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let started_at = env.clock_now();
    // "Collect documents" is the runner's, due three days after the start.
    let run = env
        .procflow
        .create_run(
            &env.team,
            procflow_domain::CreateRun {
                actor_email: Some("member@a.example".parse().unwrap()),
                ..start(&template)
            },
        )
        .await
        .unwrap();
    let due = started_at + Duration::days(3);
    assert_eq!(
        take(&env.store, due - Duration::minutes(1)).await,
        (vec![], 0)
    );

    // Two instances ask at once: the notice is taken by one.
    let other = env.another_instance(2);
    let (a, b) = tokio::join!(take(&env.store, due), take(&other, due));
    assert_eq!(a.1 + b.1, 1, "{a:?} {b:?}");
    assert_eq!([a.0, b.0].concat(), vec!["overdue"]);
    assert_eq!(
        take(&env.store, due + OVERDUE_REPEAT - Duration::minutes(1)).await,
        (vec![], 0)
    );
    assert_eq!(
        take(&env.store, due + OVERDUE_REPEAT).await,
        (vec!["overdue"], 1)
    );

    let task = env
        .store
        .list_tasks(env.team.id, run.id, Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .find(|task| task.title == "Collect documents")
        .unwrap();
    env.procflow
        .update_task(
            &env.team,
            run.id,
            task.id,
            UpdateTask {
                completed: Some(true),
                ..UpdateTask::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        take(&env.store, due + 3 * OVERDUE_REPEAT).await,
        (vec![], 0),
        "a completed task is noticed no more"
    );
}

conformance_test!(a_guest_is_reminded_once_and_never_after_opening_the_page);
async fn a_guest_is_reminded_once_and_never_after_opening_the_page(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let invited_at = env.clock_now();
    let mut runs = Vec::new();
    for guest in ["quiet@example.org", "engaged@example.org"] {
        let run = env
            .procflow
            .create_run(&env.team, start(&template))
            .await
            .unwrap();
        env.procflow
            .invite_guest(
                &env.team,
                run.id,
                Invitation {
                    email: Some(guest.parse().unwrap()),
                    enable_reminders: true,
                    reminder_days: Some(2),
                },
            )
            .await
            .unwrap();
        runs.push(run);
    }
    assert!(
        env.store
            .record_guest_engagement(env.team.id, runs[1].id, invited_at + Duration::hours(1))
            .await
            .unwrap()
    );

    let due = invited_at + Duration::days(2);
    assert_eq!(
        take(&env.store, due - Duration::minutes(1)).await,
        (vec![], 0)
    );
    let other = env.another_instance(2);
    let (a, b) = tokio::join!(take(&env.store, due), take(&other, due));
    assert_eq!(
        ([a.0, b.0].concat(), a.1 + b.1),
        (vec!["reminder"], 1),
        "the quiet guest once, the engaged one never"
    );
    assert_eq!(
        take(&env.store, due + Duration::days(30)).await,
        (vec![], 0)
    );
}

conformance_test!(a_task_hidden_by_a_rule_gets_no_overdue_notice_until_it_is_shown);
async fn a_task_hidden_by_a_rule_gets_no_overdue_notice_until_it_is_shown(env: Env) {
    let document = serde_json::json!({
        "title": "Logic", "sections": [{"title": "S", "tasks": [
            {"title": "Ask", "custom_elements": [
                {"ref": "remote", "type": "checkbox", "label": "Remote?"}]},
            {"ref": "ship", "title": "Ship a laptop", "assignee": "member@a.example",
             "due_date": {"type": "relative", "from": "run_start", "offset": "P1D"}}]}],
        "rules": [{"if": {"element": "remote", "is": "equal", "value": true}, "show": ["ship"]}]
    });
    let template = published(&env, &env.team, document).await;
    let run = env
        .procflow
        .create_run(&env.team, start(&template))
        .await
        .unwrap();
    let due = env.clock_now() + Duration::days(1);
    assert_eq!(take(&env.store, due).await, (vec![], 0), "hidden: done");
    let ask = &template.tasks[0];
    let task = env
        .store
        .list_tasks(env.team.id, run.id, Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .find(|task| task.template_task_id == ask.id)
        .unwrap();
    env.procflow
        .update_task(
            &env.team,
            run.id,
            task.id,
            UpdateTask {
                custom_elements: vec![procflow_domain::run::ElementWrite {
                    id: ask.custom_elements[0].id,
                    value: serde_json::json!(true),
                }],
                ..UpdateTask::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        take(&env.store, due).await,
        (vec!["overdue"], 1),
        "shown again"
    );
}
