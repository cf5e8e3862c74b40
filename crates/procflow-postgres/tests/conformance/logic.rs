//! Process logic in the stores (issue 19): templates keep their refs, dependencies and rules;
//! runs keep their plan and its state; every write path (run creation with pre-fill, a task
//! update, a batch, a guest's form) stores each task's `hidden` and `blocked` as the domain
//! computes them from the whole run, in the same transaction; and racing writers complete a
//! run once when a value hides its last open task.

use std::sync::Arc;

use procflow_domain::actor::Actor;
use procflow_domain::error::DomainError;
use procflow_domain::guest::{GuestForm, GuestIntent};
use procflow_domain::ids::{ElementId, RunId, TaskId};
use procflow_domain::run::{
    ElementWrite, LogicState, Prefill, RunTask, TaskFlags, TaskPatch, evaluate,
};
use procflow_domain::service::{CreateRun, GuestPost, UpdateTask, UpdateTasks};
use procflow_domain::sharing::Invitation;
use procflow_domain::template::{Template, TemplateDocument};
use procflow_domain::values::{Limit, PageRequest};
use serde_json::{Value, json};

use super::env::{Env, conformance_test};
use super::support::{parsed, published};

/// The onboarding of the issue: a rule on "Remote?", a rule on "Department", and "Grant
/// production access" waiting on the training and the approval.
pub fn onboarding() -> Value {
    json!({
        "title": "Employee onboarding",
        "sections": [{"title": "First week", "tasks": [
            {"ref": "profile", "title": "Profile", "custom_elements": [
                {"ref": "remote", "type": "checkbox", "label": "Remote?"},
                {"ref": "department", "type": "dropdown", "label": "Department",
                 "options": ["Eng", "Sales"]}]},
            {"ref": "ship-laptop", "title": "Ship a laptop"},
            {"ref": "security-training", "title": "Security training"},
            {"ref": "manager-approval", "title": "Manager approval", "type": "approval"},
            {"ref": "grant-access", "title": "Grant production access",
             "depends_on": ["security-training", "manager-approval"]},
            {"ref": "git-access", "title": "Git access"}]}],
        "rules": [
            {"if": {"element": "remote", "is": "equal", "value": true}, "show": ["ship-laptop"]},
            {"if": {"element": "department", "is": "equal", "value": "Eng"},
             "show": ["git-access"]}]
    })
}

struct Run {
    id: RunId,
    tasks: Vec<RunTask>,
}

impl Run {
    fn task(&self, reference: &str) -> &RunTask {
        self.tasks
            .iter()
            .find(|t| {
                t.reference
                    .as_ref()
                    .is_some_and(|r| r.as_str() == reference)
            })
            .unwrap()
    }

    fn element(&self, task: &str, reference: &str) -> ElementId {
        self.task(task)
            .custom_elements
            .iter()
            .find(|e| {
                e.reference
                    .as_ref()
                    .is_some_and(|r| r.as_str() == reference)
            })
            .unwrap()
            .id
    }
}

async fn tasks(env: &Env, run: RunId) -> Vec<RunTask> {
    let page = PageRequest {
        limit: Limit::new(100).unwrap(),
        cursor: None,
    };
    parsed(
        env.store
            .list_tasks(env.team.id, run, page)
            .await
            .unwrap()
            .items,
    )
}

/// Starts a run of the onboarding with `prefill` (task ref, element ref, value), checked.
async fn start(env: &Env, prefill: &[(&str, &str, Value)]) -> (Template, Run) {
    let template = published(env, &env.team, onboarding()).await;
    let of = |task: &str, element: &str| {
        let task = template
            .tasks
            .iter()
            .find(|t| t.reference.as_ref().is_some_and(|r| r.as_str() == task))
            .unwrap();
        let element = task
            .custom_elements
            .iter()
            .find(|e| e.reference.as_ref().is_some_and(|r| r.as_str() == element))
            .unwrap();
        (task.id, element.id)
    };
    let request = CreateRun {
        custom_elements: prefill
            .iter()
            .map(|(task, element, value)| {
                let (task_id, element_id) = of(task, element);
                Prefill {
                    task_id,
                    element_id,
                    value: value.clone(),
                }
            })
            .collect(),
        ..CreateRun::of(template.id)
    };
    let run = env.procflow.create_run(&env.team, request).await.unwrap();
    let run = Run {
        id: run.id,
        tasks: agree(env, run.id).await,
    };
    (template, run)
}

/// Reads the run back and checks what every write must leave: each stored flag is what the
/// domain computes from all of the run's tasks, the run's live logic is its tasks' state, and
/// the run counts its open visible tasks. Answers the tasks.
async fn agree(env: &Env, run: RunId) -> Vec<RunTask> {
    let header = env.store.get_run(env.team.id, run).await.unwrap();
    let tasks = tasks(env, run).await;
    let logic = header
        .logic
        .as_ref()
        .expect("a run of a template with logic");
    let state = LogicState::of(&logic.plan, &tasks);
    assert_eq!(logic.state, state, "the stored state is the tasks'");
    let flags = evaluate(&logic.plan, &state);
    for task in &tasks {
        let expected = logic
            .plan
            .position(task.id)
            .map_or_else(TaskFlags::default, |t| flags[t]);
        let stored = TaskFlags {
            hidden: task.hidden,
            blocked: task.blocked,
        };
        assert_eq!(stored, expected, "flags of {}", task.title);
        let alone = env.store.get_task(env.team.id, run, task.id).await.unwrap();
        assert_eq!(&alone, task, "a task reads the same alone and in its list");
    }
    let open = tasks.iter().filter(|t| t.is_open() && !t.hidden).count();
    assert_eq!(header.open_tasks() as usize, open);
    tasks
}

fn update(writes: Vec<ElementWrite>) -> UpdateTask {
    UpdateTask {
        custom_elements: writes,
        ..UpdateTask::default()
    }
}

fn complete() -> UpdateTask {
    UpdateTask {
        completed: Some(true),
        ..UpdateTask::default()
    }
}

conformance_test!(a_template_keeps_its_refs_dependencies_and_rules);
async fn a_template_keeps_its_refs_dependencies_and_rules(env: Env) {
    let document = TemplateDocument::from_json(onboarding()).unwrap();
    let created = env
        .procflow
        .create_template(&env.team, document)
        .await
        .unwrap();
    let read = env
        .store
        .get_template(env.team.id, created.id)
        .await
        .unwrap();
    assert_eq!(read, created);
    assert_eq!(read.rules.len(), 2);
    assert_eq!(
        read.tasks[4].depends_on,
        [read.tasks[2].id, read.tasks[3].id]
    );
    assert_eq!(
        read.tasks[0].custom_elements[1]
            .reference
            .as_ref()
            .map(|r| r.as_str()),
        Some("department")
    );

    // A replacement keeps ids given, drops a rule and a dependency.
    let mut replaced = onboarding();
    replaced["rules"] = json!([replaced["rules"][0].clone()]);
    replaced["sections"][0]["tasks"][4]["depends_on"] = json!(["manager-approval"]);
    let replaced = TemplateDocument::from_json(replaced).unwrap();
    let after = env
        .procflow
        .replace_template(&env.team, created.id, replaced, None)
        .await
        .unwrap();
    let read = env
        .store
        .get_template(env.team.id, created.id)
        .await
        .unwrap();
    assert_eq!(read, after);
    assert_eq!(read.rules.len(), 1);
    assert_eq!(read.tasks[4].depends_on, [read.tasks[3].id]);
}

conformance_test!(a_new_run_stores_the_flags_its_prefill_decides);
async fn a_new_run_stores_the_flags_its_prefill_decides(env: Env) {
    let (_, plain) = start(&env, &[]).await;
    assert!(plain.task("ship-laptop").hidden);
    assert!(plain.task("grant-access").blocked);
    let (template, remote) = start(&env, &[("profile", "remote", json!(true))]).await;
    assert!(!remote.task("ship-laptop").hidden);
    assert!(remote.task("git-access").hidden);
    assert_eq!(
        remote.task("grant-access").depends_on,
        [
            remote.task("security-training").id,
            remote.task("manager-approval").id
        ]
    );
    let run = env.store.get_run(env.team.id, remote.id).await.unwrap();
    let rules = run.rules();
    assert_eq!(rules.len(), template.rules.len());
    assert_eq!(rules[0].show, [remote.task("ship-laptop").id]);
}

conformance_test!(a_task_update_stores_the_flags_it_turns_on_other_tasks);
async fn a_task_update_stores_the_flags_it_turns_on_other_tasks(env: Env) {
    let (_, run) = start(&env, &[]).await;
    let remote = run.element("profile", "remote");
    let change = env
        .procflow
        .update_task(
            &env.team,
            run.id,
            run.task("profile").id,
            update(vec![ElementWrite {
                id: remote,
                value: json!(true),
            }]),
        )
        .await
        .unwrap();
    assert_eq!(change.flags.len(), 1);
    let tasks = agree(&env, run.id).await;
    let run = Run { id: run.id, tasks };
    assert!(!run.task("ship-laptop").hidden);

    for task in ["security-training", "manager-approval"] {
        env.procflow
            .update_task(&env.team, run.id, run.task(task).id, complete())
            .await
            .unwrap();
        agree(&env, run.id).await;
    }
    let run = Run {
        id: run.id,
        tasks: agree(&env, run.id).await,
    };
    assert!(!run.task("grant-access").blocked);
    let names = env.event_names().await;
    assert_eq!(
        names
            .iter()
            .filter(|n| **n == "process_step.unblocked")
            .count(),
        1,
        "{names:?}"
    );

    // Refusals write nothing.
    let hidden = run.task("git-access").id;
    let refused = env
        .procflow
        .update_task(&env.team, run.id, hidden, complete())
        .await
        .unwrap_err();
    assert!(
        matches!(refused, DomainError::TaskHidden { .. }),
        "{refused}"
    );
    env.procflow
        .update_task(
            &env.team,
            run.id,
            run.task("manager-approval").id,
            UpdateTask {
                completed: Some(false),
                ..UpdateTask::default()
            },
        )
        .await
        .unwrap();
    let refused = env
        .procflow
        .update_task(&env.team, run.id, run.task("grant-access").id, complete())
        .await
        .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("waits for \"Manager approval\""),
        "{refused}"
    );
    agree(&env, run.id).await;
}

conformance_test!(a_batch_stores_flags_as_its_items_in_order_left_them);
async fn a_batch_stores_flags_as_its_items_in_order_left_them(env: Env) {
    let (_, run) = start(&env, &[]).await;
    let department = run.element("profile", "department");
    let request = UpdateTasks {
        tasks: vec![
            (run.task("security-training").id, complete()),
            (run.task("manager-approval").id, complete()),
            (run.task("grant-access").id, complete()),
            (
                run.task("profile").id,
                update(vec![ElementWrite {
                    id: department,
                    value: json!("Eng"),
                }]),
            ),
        ],
        actor_email: None,
        if_match: None,
    };
    let change = env
        .procflow
        .update_tasks(&env.team, run.id, request)
        .await
        .unwrap();
    assert!(change.tasks[2].completed());
    assert_eq!(change.flags.len(), 1, "git-access, shown");
    let run = Run {
        id: run.id,
        tasks: agree(&env, run.id).await,
    };
    assert!(!run.task("git-access").hidden);
    assert!(run.task("grant-access").completed());
}

conformance_test!(a_guests_form_stores_the_flags_it_turns);
async fn a_guests_form_stores_the_flags_it_turns(env: Env) {
    let (_, run) = start(&env, &[]).await;
    let share = env
        .procflow
        .invite_guest(&env.team, run.id, Invitation::default())
        .await
        .unwrap();
    let form = GuestForm {
        intent: GuestIntent::Save,
        entries: vec![
            (run.element("profile", "remote"), vec!["on".into()]),
            (run.element("profile", "department"), vec!["Sales".into()]),
        ],
        comment: None,
    };
    let posted = env
        .procflow
        .post_as_guest(run.id, &share.token, run.task("profile").id, &form)
        .await
        .unwrap();
    assert!(matches!(posted, GuestPost::Applied(_)), "{posted:?}");
    let run = Run {
        id: run.id,
        tasks: agree(&env, run.id).await,
    };
    assert!(
        !run.task("ship-laptop").hidden,
        "the guest's answer shows it"
    );
    // The guest cannot act on a hidden task.
    let hidden = run.task("git-access").id;
    let press = GuestForm {
        intent: GuestIntent::Complete,
        entries: Vec::new(),
        comment: None,
    };
    let refused = env
        .procflow
        .post_as_guest(run.id, &share.token, hidden, &press)
        .await
        .unwrap_err();
    assert!(
        matches!(refused, DomainError::TaskHidden { .. }),
        "{refused}"
    );
}

conformance_test!(
    racing_writers_complete_the_run_once_when_a_value_hides_its_last_open_task,
    worker_threads = 4
);
async fn racing_writers_complete_the_run_once_when_a_value_hides_its_last_open_task(env: Env) {
    let env = Arc::new(env);
    let (_, run) = start(&env, &[("profile", "remote", json!(true))]).await;
    for task in [
        "profile",
        "security-training",
        "manager-approval",
        "grant-access",
    ] {
        env.procflow
            .update_task(&env.team, run.id, run.task(task).id, complete())
            .await
            .unwrap();
    }
    let profile: TaskId = run.task("profile").id;
    let remote = run.element("profile", "remote");
    let department = run.element("profile", "department");
    // Forty writers change the profile at once; every other one unticks "Remote?", which hides
    // the last open task, "Ship a laptop".
    let handles: Vec<_> = (0..40)
        .map(|n| {
            let env = Arc::clone(&env);
            let write = if n % 2 == 0 {
                ElementWrite {
                    id: remote,
                    value: json!(false),
                }
            } else {
                ElementWrite {
                    id: department,
                    value: if n % 4 == 1 {
                        json!("Sales")
                    } else {
                        Value::Null
                    },
                }
            };
            tokio::spawn(async move {
                env.procflow
                    .update_task(&env.team, run.id, profile, update(vec![write]))
                    .await
            })
        })
        .collect();
    let mut completing = 0;
    for handle in handles {
        match handle.await.unwrap() {
            Ok(change) => {
                completing += change
                    .events
                    .iter()
                    .filter(|e| e.payload.name() == "process_run.completed")
                    .count();
            }
            Err(DomainError::RunCompleted) => {}
            Err(other) => panic!("unexpected refusal: {other}"),
        }
    }
    assert_eq!(completing, 1, "exactly one writer completes the run");
    let done = env.store.get_run(env.team.id, run.id).await.unwrap();
    assert!(done.is_completed());
    let names = env.event_names().await;
    assert_eq!(
        names
            .iter()
            .filter(|n| **n == "process_run.completed")
            .count(),
        1
    );
    agree(&env, run.id).await;
}

conformance_test!(another_instance_changes_a_run_with_logic_it_never_saw);
async fn another_instance_changes_a_run_with_logic_it_never_saw(env: Env) {
    let (_, run) = start(&env, &[]).await;
    // A store of its own (on PostgreSQL, a pool and a cache of plans of its own): the plan of
    // the run's logic is read from the run, once.
    let other = env.another_instance(2);
    let ids = procflow_memory::SequentialIds::default();
    let now = env.clock_now();
    let patch = TaskPatch {
        custom_elements: vec![ElementWrite {
            id: run.element("profile", "remote"),
            value: json!(true),
        }],
        ..TaskPatch::default()
    };
    for _ in 0..2 {
        other
            .update_task(env.team.id, run.id, run.task("profile").id, &|r, t| {
                patch.apply(r, t, Actor::Api, &ids, now)
            })
            .await
            .unwrap();
    }
    let run = Run {
        id: run.id,
        tasks: agree(&env, run.id).await,
    };
    assert!(!run.task("ship-laptop").hidden);
}
