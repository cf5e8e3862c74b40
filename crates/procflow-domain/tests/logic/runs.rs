//! Runs of the onboarding, change by change: visibility from values (pre-fill included),
//! blocking by prerequisites, the two refusals, batches in order, the unblocked events, and
//! completion once every visible task is done.

use procflow_domain::actor::Assignee;
use procflow_domain::error::DomainError;
use procflow_domain::event::EventPayload;
use procflow_domain::run::{Decision, TaskPatch};
use serde_json::{Value, json};

use super::model::{Model, complete, onboarding, reopen, values};

fn run(prefill: &[(&str, &str, Value)]) -> Model {
    Model::start(onboarding(), prefill).unwrap()
}

fn remote(model: &Model, value: bool) -> TaskPatch {
    values(vec![model.write("profile", "remote", json!(value))])
}

#[test]
fn the_prefill_decides_what_a_new_run_shows() {
    let plain = run(&[]);
    assert!(plain.task("ship-laptop").hidden);
    assert!(plain.task("git-access").hidden);
    assert!(!plain.task("security-training").hidden);
    assert!(plain.task("grant-access").blocked);
    assert_eq!(plain.run.open_tasks(), 4, "hidden tasks are not open work");

    let remote_eng = run(&[
        ("profile", "remote", json!(true)),
        ("profile", "department", json!("Eng")),
    ]);
    assert!(!remote_eng.task("ship-laptop").hidden);
    assert!(!remote_eng.task("git-access").hidden);
    assert_eq!(remote_eng.run.open_tasks(), 6);
    assert_eq!(
        remote_eng.count("process_step.unblocked"),
        0,
        "nothing was blocked before"
    );
}

#[test]
fn a_run_without_logic_has_no_flags_and_no_plan() {
    let mut document = onboarding();
    document.as_object_mut().unwrap().remove("rules");
    document["sections"][0]["tasks"][4]
        .as_object_mut()
        .unwrap()
        .remove("depends_on");
    let model = Model::start(document, &[]).unwrap();
    assert!(model.run.logic.is_none());
    assert!(model.tasks.iter().all(|t| !t.hidden && !t.blocked));
    assert_eq!(model.run.open_tasks(), 6);
}

#[test]
fn a_value_shows_and_hides_tasks_that_keep_their_state_and_values() {
    let mut model = run(&[("profile", "remote", json!(true))]);
    model.patch("ship-laptop", &complete()).unwrap();
    let change = model.patch("profile", &remote(&model, false)).unwrap();
    assert!(model.task("ship-laptop").hidden);
    assert_eq!(change.flags.len(), 1, "the laptop, hidden");
    assert!(model.task("ship-laptop").completed(), "kept while hidden");
    model.patch("profile", &remote(&model, true)).unwrap();
    assert!(!model.task("ship-laptop").hidden);
    assert!(model.task("ship-laptop").completed(), "as it was");
}

#[test]
fn any_patch_of_a_hidden_task_is_refused_and_changes_nothing() {
    let mut model = run(&[]);
    let before = model.tasks.clone();
    for patch in [TaskPatch::default(), complete(), reopen()] {
        match model.patch("ship-laptop", &patch) {
            Err(DomainError::TaskHidden { task, item: None }) => {
                assert!(task.contains("\"Ship a laptop\""), "{task}");
            }
            other => panic!("expected task_hidden, got {other:?}"),
        }
    }
    assert_eq!(model.tasks, before);
    let refused = model
        .batch(&[
            ("security-training", complete()),
            ("git-access", complete()),
        ])
        .unwrap_err();
    assert!(
        matches!(refused, DomainError::TaskHidden { item: Some(1), .. }),
        "{refused:?}"
    );
    assert!(
        refused
            .to_string()
            .starts_with("tasks[1]: task \"Git access\""),
        "{refused}"
    );
    assert_eq!(model.tasks, before, "all or nothing");
}

#[test]
fn completing_a_blocked_task_is_refused_naming_its_open_prerequisites() {
    let mut model = run(&[]);
    let error = model.patch("grant-access", &complete()).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "task {} is blocked: it waits for \"Security training\", \"Manager approval\" to be \
             completed, skipped or hidden",
            model.task("grant-access").name()
        )
    );
    model.patch("security-training", &complete()).unwrap();
    let error = model.patch("grant-access", &complete()).unwrap_err();
    assert!(
        matches!(&error, DomainError::TaskBlocked { waiting_for, .. } if waiting_for == &["Manager approval"]),
        "{error:?}"
    );
    // Values, the assignee and skipping remain allowed.
    let assign = TaskPatch {
        assignee: Some(Some(Assignee::Email("ops@example.org".parse().unwrap()))),
        ..TaskPatch::default()
    };
    model.patch("grant-access", &assign).unwrap();
    model
        .patch(
            "grant-access",
            &TaskPatch {
                skipped: Some(true),
                ..TaskPatch::default()
            },
        )
        .unwrap();
    assert!(
        model.task("grant-access").blocked,
        "skipped, and still not to be completed"
    );
    assert!(matches!(
        model.patch("grant-access", &complete()),
        Err(DomainError::TaskBlocked { .. })
    ));
    // Skipping it closed it: the run does not wait for it.
    model.patch("manager-approval", &complete()).unwrap();
    assert!(!model.task("grant-access").blocked);
    assert_eq!(
        model.count("process_step.unblocked"),
        0,
        "a skipped task is not ready to start"
    );
}

#[test]
fn approving_a_blocked_approval_is_refused_and_a_rejection_is_not() {
    let mut document = onboarding();
    document["sections"][0]["tasks"][3]["depends_on"] = json!(["security-training"]);
    let mut model = Model::start(document, &[]).unwrap();
    let approve = TaskPatch {
        decision: Some(Decision::Approved),
        ..TaskPatch::default()
    };
    assert!(matches!(
        model.patch("manager-approval", &approve),
        Err(DomainError::TaskBlocked { .. })
    ));
    let reject = TaskPatch {
        decision: Some(Decision::Rejected),
        comment: Some("not yet".into()),
        ..TaskPatch::default()
    };
    model.patch("manager-approval", &reject).unwrap();
    assert!(model.task("manager-approval").blocked);
    model.patch("security-training", &complete()).unwrap();
    // A rejected approval stays open: its own dependent stays blocked.
    assert!(model.task("grant-access").blocked);
    model.patch("manager-approval", &approve).unwrap();
    assert!(!model.task("grant-access").blocked);
}

#[test]
fn a_batch_completes_prerequisites_then_their_dependent_in_order() {
    let mut model = run(&[]);
    let refused = model
        .batch(&[
            ("grant-access", complete()),
            ("security-training", complete()),
            ("manager-approval", complete()),
        ])
        .unwrap_err();
    assert!(
        matches!(refused, DomainError::TaskBlocked { item: Some(0), .. }),
        "{refused:?}"
    );
    let change = model
        .batch(&[
            ("security-training", complete()),
            ("manager-approval", complete()),
            ("grant-access", complete()),
        ])
        .unwrap();
    assert!(model.task("grant-access").completed());
    assert!(!model.task("grant-access").blocked);
    assert!(
        change.flags.is_empty(),
        "the only turned task was in the batch"
    );
    assert_eq!(
        model.count("process_step.unblocked"),
        0,
        "completed in the same change: never ready and waiting"
    );
}

#[test]
fn reopening_a_prerequisite_blocks_open_dependents_again_and_keeps_completed_ones() {
    let mut model = run(&[]);
    model.patch("security-training", &complete()).unwrap();
    model.patch("manager-approval", &complete()).unwrap();
    assert!(!model.task("grant-access").blocked);
    model.patch("security-training", &reopen()).unwrap();
    assert!(
        model.task("grant-access").blocked,
        "open again: blocked again"
    );

    model.patch("security-training", &complete()).unwrap();
    model.patch("grant-access", &complete()).unwrap();
    model.patch("security-training", &reopen()).unwrap();
    assert!(model.task("grant-access").completed(), "stays completed");
    assert!(!model.task("grant-access").blocked);
}

#[test]
fn the_last_prerequisite_unblocks_its_dependent_once_telling_its_assignee() {
    let mut model = run(&[]);
    let assign = TaskPatch {
        assignee: Some(Some(Assignee::Email("ops@example.org".parse().unwrap()))),
        ..TaskPatch::default()
    };
    model.patch("grant-access", &assign).unwrap();
    let first = model.patch("security-training", &complete()).unwrap();
    assert!(
        first
            .events
            .iter()
            .all(|e| e.payload.name() != "process_step.unblocked")
    );
    let last = model.patch("manager-approval", &complete()).unwrap();
    let unblocked: Vec<_> = last
        .events
        .iter()
        .filter_map(|e| match &e.payload {
            EventPayload::TaskUnblocked { task, run_title } => Some((task, run_title)),
            _ => None,
        })
        .collect();
    assert_eq!(unblocked.len(), 1);
    let (task, run_title) = unblocked[0];
    assert_eq!(task.id, model.task("grant-access").id);
    assert_eq!(task.title, "Grant production access");
    assert_eq!(
        task.assignee,
        Some(Assignee::Email("ops@example.org".parse().unwrap()))
    );
    assert_eq!(run_title, "Employee onboarding");
    assert_eq!(last.flags.len(), 1, "grant-access, unblocked");

    // Blocked again, then unblocked again: a second unblocking, a second notice.
    model.patch("manager-approval", &reopen()).unwrap();
    model.patch("manager-approval", &complete()).unwrap();
    assert_eq!(model.count("process_step.unblocked"), 2);
}

#[test]
fn a_hidden_prerequisite_counts_as_done() {
    let mut document = onboarding();
    document["sections"][0]["tasks"][5]["depends_on"] = json!(["ship-laptop"]);
    document["rules"][1]["show"] = json!([]);
    document["rules"][1]["hide"] = json!(["git-access"]);
    document["rules"][1]["if"] = json!({"element": "department", "is": "equal", "value": "Sales"});
    let mut model = Model::start(document, &[("profile", "remote", json!(true))]).unwrap();
    assert!(model.task("git-access").blocked, "waits for the laptop");
    let change = model.patch("profile", &remote(&model, false)).unwrap();
    assert!(
        !model.task("git-access").blocked,
        "the laptop is hidden: done"
    );
    assert!(
        change
            .events
            .iter()
            .any(|e| e.payload.name() == "process_step.unblocked"),
        "hiding the prerequisite unblocked it"
    );
}

#[test]
fn hiding_the_last_open_task_completes_the_run_once() {
    let mut model = run(&[("profile", "remote", json!(true))]);
    for task in [
        "profile",
        "security-training",
        "manager-approval",
        "grant-access",
    ] {
        model.patch(task, &complete()).unwrap();
    }
    assert!(!model.run.is_completed(), "the laptop is still to ship");
    let change = model.patch("profile", &remote(&model, false)).unwrap();
    assert!(model.run.is_completed());
    assert_eq!(model.count("process_run.completed"), 1);
    assert!(
        change
            .events
            .iter()
            .any(|e| e.payload.name() == "process_run.completed")
    );
    assert!(matches!(
        model.patch("profile", &remote(&model, true)),
        Err(DomainError::RunCompleted)
    ));
    assert_eq!(model.count("process_run.completed"), 1);
}
