//! Update a task (spec 4.11, API contract 6): completion, skipping, approval, and the run
//! completing when its last open task closes.

use super::*;

#[test]
fn completing_a_task_records_when_and_by_whom() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    w.clock.advance(Duration::minutes(5));
    let change = w.update(run.id, task.id, complete()).unwrap();

    assert!(change.changed);
    assert_eq!(change.task.completed_at(), Some(w.clock.now()));
    assert_eq!(change.task.completed_by(), Some(Actor::Api));
    assert_eq!(change.run.open_tasks(), 2);
    assert_eq!(change.run.status(), RunStatus::Active);
    assert_eq!(change.run.updated_at, Some(w.clock.now()));
    assert_eq!(w.task(run.id, HELLO), change.task);
    assert_eq!(w.run(run.id), change.run);
    let events = w.events_of(run.id);
    assert_eq!(count(&events, "process_step.completed"), 1);
    assert_eq!(count(&events, "process_run.completed"), 0);
}

#[test]
fn completing_as_an_active_member_records_their_user_id() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let tasks = w.tasks(run.id);
    let by = |task: &RunTask, actor_email: &str| {
        w.update(
            run.id,
            task.id,
            UpdateTask {
                actor_email: Some(actor_email.parse().unwrap()),
                ..complete()
            },
        )
        .unwrap()
        .task
        .completed_by()
    };
    assert_eq!(
        by(&tasks[0], "ADA@demo.example"),
        Some(Actor::User(w.ada.id))
    );
    assert_eq!(by(&tasks[1], "ivan@demo.example"), Some(Actor::Api));
    assert_eq!(by(&tasks[2], "stranger@example.org"), Some(Actor::Api));
}

#[test]
fn reopening_a_task_clears_its_completion() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    w.update(run.id, task.id, complete()).unwrap();
    let change = w
        .update(
            run.id,
            task.id,
            UpdateTask {
                completed: Some(false),
                ..UpdateTask::default()
            },
        )
        .unwrap();
    assert_eq!(change.task.state, TaskState::Open);
    assert_eq!(
        (change.task.completed_at(), change.task.completed_by()),
        (None, None)
    );
    assert_eq!(change.run.open_tasks(), 3);
    assert_eq!(w.task(run.id, HELLO).state, TaskState::Open);
}

#[test]
fn completing_a_completed_task_keeps_the_first_completion() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    let first = w.update(run.id, task.id, complete()).unwrap().task;
    w.clock.advance(Duration::hours(1));
    let again = w
        .update(
            run.id,
            task.id,
            UpdateTask {
                actor_email: Some(w.ada.email.clone()),
                ..complete()
            },
        )
        .unwrap();
    assert!(!again.changed);
    assert!(again.events.is_empty());
    assert_eq!(again.task.state, first.state);
    assert_eq!(count(&w.events_of(run.id), "process_step.completed"), 1);
}

#[test]
fn skipping_a_non_essential_task_closes_it_and_unskipping_reopens_it() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    let skipped = w.update(run.id, task.id, skip()).unwrap();
    assert!(skipped.task.skipped() && !skipped.task.completed());
    assert_eq!(skipped.run.open_tasks(), 2);
    assert!(skipped.events.is_empty(), "skipping completes nothing");

    let unskipped = w
        .update(
            run.id,
            task.id,
            UpdateTask {
                skipped: Some(false),
                ..UpdateTask::default()
            },
        )
        .unwrap();
    assert_eq!(unskipped.task.state, TaskState::Open);
    assert_eq!(unskipped.run.open_tasks(), 3);
}

#[test]
fn completing_a_skipped_task_clears_skipped_and_skipping_a_completed_one_clears_completed() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    w.update(run.id, task.id, skip()).unwrap();
    let completed = w.update(run.id, task.id, complete()).unwrap().task;
    assert!(completed.completed() && !completed.skipped());
    let skipped = w.update(run.id, task.id, skip()).unwrap().task;
    assert!(skipped.skipped() && !skipped.completed());
    assert_eq!(skipped.completed_at(), None);
}

#[test]
fn skipping_an_essential_task_is_refused() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, COLLECT);
    let before = w.state_of(run.id);
    let refused = w.update(run.id, task.id, skip()).unwrap_err();
    assert!(
        matches!(
            &refused,
            DomainError::Validation(ValidationError::EssentialTask { task: name })
                if name.contains("Collect documents")
        ),
        "{refused:?}"
    );
    assert_eq!(w.state_of(run.id), before);
}

#[test]
fn completing_and_skipping_at_once_is_refused() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    let before = w.state_of(run.id);
    let refused = w
        .update(
            run.id,
            task.id,
            UpdateTask {
                completed: Some(true),
                skipped: Some(true),
                ..UpdateTask::default()
            },
        )
        .unwrap_err();
    assert_eq!(refused_field(refused), "skipped");
    assert_eq!(w.state_of(run.id), before);
}

fn decide(decision: Decision, comment: Option<&str>) -> UpdateTask {
    UpdateTask {
        decision: Some(decision),
        comment: comment.map(str::to_owned),
        ..UpdateTask::default()
    }
}

#[test]
fn approving_an_approval_task_completes_it() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, APPROVE);
    let change = w
        .update(
            run.id,
            task.id,
            decide(Decision::Approved, Some("Looks good")),
        )
        .unwrap();
    assert!(change.task.completed());
    assert_eq!(change.task.decision, Some(Decision::Approved));
    assert_eq!(change.task.comment.as_deref(), Some("Looks good"));
    assert_eq!(change.run.open_tasks(), 2);
    assert_eq!(count(&w.events_of(run.id), "process_step.completed"), 1);
}

#[test]
fn rejecting_an_approval_task_leaves_it_open_with_the_decision_and_comment() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, APPROVE);
    let change = w
        .update(
            run.id,
            task.id,
            decide(Decision::Rejected, Some("Missing page 2")),
        )
        .unwrap();
    assert!(change.changed);
    assert_eq!(change.task.state, TaskState::Open);
    assert_eq!(change.task.decision, Some(Decision::Rejected));
    assert_eq!(change.task.comment.as_deref(), Some("Missing page 2"));
    assert_eq!(change.run.open_tasks(), 3);
    assert_eq!(w.task(run.id, APPROVE), change.task);
    assert_eq!(count(&w.events_of(run.id), "process_step.completed"), 0);
}

#[test]
fn rejecting_an_approved_task_reopens_it() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, APPROVE);
    w.update(run.id, task.id, decide(Decision::Approved, None))
        .unwrap();
    let change = w
        .update(
            run.id,
            task.id,
            decide(Decision::Rejected, Some("Changed my mind")),
        )
        .unwrap();
    assert_eq!(change.task.state, TaskState::Open);
    assert_eq!(change.task.decision, Some(Decision::Rejected));
    assert_eq!(change.run.open_tasks(), 3);
}

#[test]
fn completing_an_approval_task_approves_it() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, APPROVE);
    let change = w.update(run.id, task.id, complete()).unwrap();
    assert!(change.task.completed());
    assert_eq!(change.task.decision, Some(Decision::Approved));
}

#[test]
fn a_decision_on_a_plain_task_is_refused() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    let before = w.state_of(run.id);
    for decision in [Decision::Approved, Decision::Rejected] {
        let refused = w
            .update(run.id, task.id, decide(decision, None))
            .unwrap_err();
        assert_eq!(refused_field(refused), "decision");
    }
    assert_eq!(w.state_of(run.id), before);
}

#[test]
fn a_comment_without_a_decision_is_refused() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, APPROVE);
    let before = w.state_of(run.id);
    let refused = w
        .update(
            run.id,
            task.id,
            UpdateTask {
                comment: Some("Why?".into()),
                ..complete()
            },
        )
        .unwrap_err();
    assert_eq!(refused_field(refused), "comment");
    assert_eq!(w.state_of(run.id), before);
}

#[test]
fn a_decision_contradicting_the_completion_is_refused() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, APPROVE);
    let before = w.state_of(run.id);
    for request in [
        UpdateTask {
            completed: Some(true),
            ..decide(Decision::Rejected, None)
        },
        UpdateTask {
            completed: Some(false),
            ..decide(Decision::Approved, None)
        },
        UpdateTask {
            skipped: Some(true),
            ..decide(Decision::Approved, None)
        },
    ] {
        let refused = w.update(run.id, task.id, request).unwrap_err();
        assert_eq!(refused_field(refused), "decision");
    }
    assert_eq!(w.state_of(run.id), before);
}

#[test]
fn completing_the_last_task_completes_the_run() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let tasks = w.tasks(run.id);
    w.update(run.id, tasks[COLLECT].id, complete()).unwrap();
    w.update(run.id, tasks[APPROVE].id, decide(Decision::Approved, None))
        .unwrap();
    assert_eq!(w.run(run.id).status(), RunStatus::Active);
    assert_eq!(w.run(run.id).completed_at(), None);

    w.clock.advance(Duration::minutes(30));
    let last = w.update(run.id, tasks[HELLO].id, skip()).unwrap();
    assert_eq!(last.run.status(), RunStatus::Completed);
    assert_eq!(last.run.completed_at(), Some(w.clock.now()));
    assert_eq!(last.run.open_tasks(), 0);
    assert_eq!(w.run(run.id), last.run);

    let events = w.events_of(run.id);
    assert_eq!(count(&events, "process_run.completed"), 1);
    assert_eq!(count(&events, "process_step.completed"), 2);
    assert!(events.contains(&EventPayload::RunCompleted {
        run: last.run.snapshot()
    }));

    let completed = block(w.procflow.list_runs(
        &w.team,
        RunFilter {
            status: Some(RunStatus::Completed),
            ..RunFilter::default()
        },
        page(10, None),
    ))
    .unwrap();
    assert_eq!(completed.items, [last.run]);
}

#[test]
fn a_completed_run_refuses_every_task_update() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let tasks = w.tasks(run.id);
    w.update(run.id, tasks[COLLECT].id, complete()).unwrap();
    w.update(run.id, tasks[APPROVE].id, complete()).unwrap();
    w.update(run.id, tasks[HELLO].id, complete()).unwrap();
    w.clock.advance(Duration::days(1));
    let before = w.state_of(run.id);
    let element = tasks[COLLECT].custom_elements[0].id;
    for (task, request) in [
        (
            HELLO,
            UpdateTask {
                completed: Some(false),
                ..UpdateTask::default()
            },
        ),
        (HELLO, complete()),
        (HELLO, skip()),
        (COLLECT, write(element, json!("Late"))),
        (COLLECT, assign(Some("ada@demo.example"))),
        (APPROVE, decide(Decision::Rejected, Some("too late"))),
        (APPROVE, UpdateTask::default()),
    ] {
        let refused = w.update(run.id, tasks[task].id, request);
        assert_eq!(refused.map(|c| c.task), Err(DomainError::RunCompleted));
    }
    assert_eq!(w.state_of(run.id), before);
}
