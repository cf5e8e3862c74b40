//! Batch updates of a run's tasks (API contract 11): each item as a single update, all or
//! nothing, the run completed once.

use procflow_domain::etag::{IfMatch, Tagged};
use procflow_domain::limits::MAX_BATCH_TASKS;
use procflow_domain::run::TasksChange;
use procflow_domain::service::UpdateTasks;

use super::*;

impl World {
    fn batch(&self, run: RunId, request: UpdateTasks) -> Result<TasksChange, DomainError> {
        block(self.procflow.update_tasks(&self.team, run, request))
    }
}

fn items(tasks: &[RunTask], update: impl Fn(&RunTask) -> UpdateTask) -> UpdateTasks {
    UpdateTasks {
        tasks: tasks.iter().map(|task| (task.id, update(task))).collect(),
        ..UpdateTasks::default()
    }
}

fn approve() -> UpdateTask {
    UpdateTask {
        decision: Some(Decision::Approved),
        ..UpdateTask::default()
    }
}

#[test]
fn a_batch_that_closes_every_task_completes_the_run_once() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let tasks = w.tasks(run.id);
    let change = w
        .batch(
            run.id,
            items(&tasks, |task| {
                if task.task_type == procflow_domain::template::TaskType::Approval {
                    approve()
                } else {
                    complete()
                }
            }),
        )
        .unwrap();

    assert_eq!(change.run.status(), RunStatus::Completed);
    assert_eq!(change.run.completed_at(), Some(w.clock.now()));
    assert_eq!(w.run(run.id), change.run);
    assert_eq!(
        w.tasks(run.id),
        change.tasks,
        "answered in the batch's order"
    );
    assert_eq!(change.changed.len(), 3);
    let events = w.events_of(run.id);
    assert_eq!(count(&events, "process_step.completed"), 3);
    assert_eq!(count(&events, "process_run.completed"), 1);
    assert_eq!(
        events.last().map(EventPayload::name),
        Some("process_run.completed")
    );
}

#[test]
fn a_batch_raises_the_events_its_single_updates_would() {
    let batched = world();
    let single = world();
    let mut raised = Vec::new();
    for (w, as_batch) in [(&batched, true), (&single, false)] {
        let run = w.start(&w.published(onboarding()));
        let tasks = w.tasks(run.id);
        let updates = vec![
            (tasks[HELLO].id, complete()),
            (tasks[COLLECT].id, assign(Some("ada@demo.example"))),
            (tasks[APPROVE].id, assign(Some("outside@example.org"))),
        ];
        if as_batch {
            w.batch(
                run.id,
                UpdateTasks {
                    tasks: updates,
                    ..UpdateTasks::default()
                },
            )
            .unwrap();
        } else {
            for (task, update) in updates {
                w.update(run.id, task, update).unwrap();
            }
        }
        let names: Vec<&str> = w.events_of(run.id).iter().map(EventPayload::name).collect();
        raised.push((names, w.tasks(run.id), w.run(run.id).status()));
    }
    assert_eq!(raised[0], raised[1]);
}

#[test]
fn a_batch_with_one_bad_value_changes_nothing_and_names_the_item() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let tasks = w.tasks(run.id);
    let department = tasks[COLLECT].custom_elements[1].id;
    let before = w.state_of(run.id);
    let refused = w
        .batch(
            run.id,
            UpdateTasks {
                tasks: vec![
                    (tasks[HELLO].id, complete()),
                    (tasks[COLLECT].id, write(department, json!("HR"))),
                ],
                ..UpdateTasks::default()
            },
        )
        .unwrap_err();
    let message = refused.to_string();
    assert!(
        message.starts_with(&format!("tasks[1] (task {})", tasks[COLLECT].id)),
        "{message}"
    );
    assert!(
        message.contains("allowed options: \"Eng\", \"Sales\""),
        "{message}"
    );
    assert_eq!(w.state_of(run.id), before);
}

#[test]
fn a_task_twice_an_unknown_task_or_a_bad_assignee_is_refused_by_index() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let tasks = w.tasks(run.id);
    let stranger = TaskId::from_uuid(fixed_uuid(0x5));
    let before = w.state_of(run.id);
    let cases = [
        (
            vec![(tasks[0].id, complete()), (tasks[0].id, skip())],
            format!(
                "tasks[1] (task {}): id: the task is named twice",
                tasks[0].id
            ),
        ),
        (
            vec![(tasks[1].id, complete()), (stranger, complete())],
            format!("tasks[1] (task {stranger}): id: the process run has no such task"),
        ),
        (
            vec![(tasks[2].id, assign(Some(&w.olga.id.to_string())))],
            format!("tasks[0] (task {}): assignee: no member", tasks[2].id),
        ),
        (
            vec![(tasks[0].id, skip())],
            format!("tasks[0] (task {}): task", tasks[0].id),
        ),
    ];
    for (updates, expected) in cases {
        let refused = w
            .batch(
                run.id,
                UpdateTasks {
                    tasks: updates,
                    ..UpdateTasks::default()
                },
            )
            .unwrap_err();
        assert!(matches!(refused, DomainError::Validation(_)), "{refused:?}");
        assert!(refused.to_string().starts_with(&expected), "{refused}");
    }
    assert_eq!(w.state_of(run.id), before);
}

#[test]
fn a_batch_holds_1_to_100_tasks() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO).id;
    for size in [0, MAX_BATCH_TASKS + 1] {
        let refused = w
            .batch(
                run.id,
                UpdateTasks {
                    tasks: vec![(task, complete()); size],
                    ..UpdateTasks::default()
                },
            )
            .unwrap_err();
        assert_eq!(
            refused.to_string(),
            format!("tasks: must hold 1 to 100 tasks, not {size}")
        );
    }
}

#[test]
fn each_item_acts_as_its_own_actor_else_as_the_batchs() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let tasks = w.tasks(run.id);
    let change = w
        .batch(
            run.id,
            UpdateTasks {
                tasks: vec![
                    (tasks[COLLECT].id, complete()),
                    (
                        tasks[HELLO].id,
                        UpdateTask {
                            actor_email: Some(email("admin@demo.example")),
                            ..complete()
                        },
                    ),
                ],
                actor_email: Some(email("ada@demo.example")),
                if_match: None,
            },
        )
        .unwrap();
    assert_eq!(change.tasks[0].completed_by(), Some(Actor::User(w.ada.id)));
    assert_eq!(
        change.tasks[1].completed_by(),
        Some(Actor::User(w.admin.id))
    );
}

#[test]
fn a_batch_on_a_completed_run_or_another_teams_run_is_refused() {
    let w = world();
    let run = w.start(&w.published(json!({
        "title": "One", "sections": [{"title": "S", "tasks": [{"title": "Only"}]}]
    })));
    let task = w.task(run.id, 0);
    w.update(run.id, task.id, complete()).unwrap();
    let reopen = || UpdateTasks {
        tasks: vec![(
            task.id,
            UpdateTask {
                completed: Some(false),
                ..UpdateTask::default()
            },
        )],
        ..UpdateTasks::default()
    };
    assert_eq!(w.batch(run.id, reopen()), Err(DomainError::RunCompleted));
    let theirs = block(w.procflow.update_tasks(&w.other, run.id, reopen()));
    assert_eq!(theirs, Err(DomainError::NotFound(Resource::Run)));
}

#[test]
fn if_match_on_the_task_list_holds_only_for_a_star_and_per_item_for_its_task() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let tasks = w.tasks(run.id);
    let before = w.state_of(run.id);
    let with = |if_match, item_if_match| UpdateTasks {
        tasks: vec![(
            tasks[HELLO].id,
            UpdateTask {
                if_match: item_if_match,
                ..complete()
            },
        )],
        actor_email: None,
        if_match,
    };
    let tag = tasks[HELLO].etag();
    let refused = w.batch(run.id, with(Some(IfMatch::OneOf(vec![tag.clone()])), None));
    assert_eq!(refused, Err(DomainError::PreconditionFailed));
    let stale = IfMatch::OneOf(vec![tasks[COLLECT].etag()]);
    let refused = w.batch(run.id, with(None, Some(stale)));
    assert_eq!(refused, Err(DomainError::PreconditionFailed));
    assert_eq!(w.state_of(run.id), before);

    let current = Some(IfMatch::OneOf(vec![tag]));
    let change = w.batch(run.id, with(Some(IfMatch::Any), current)).unwrap();
    assert!(change.tasks[0].completed());
}

#[test]
fn a_member_named_by_every_item_is_stored_as_their_user_id() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let tasks = w.tasks(run.id);
    let change = w
        .batch(run.id, items(&tasks, |_| assign(Some("ADA@demo.example"))))
        .unwrap();
    assert!(
        change
            .tasks
            .iter()
            .all(|task| task.assignee == Some(Assignee::User(w.ada.id)))
    );
}
