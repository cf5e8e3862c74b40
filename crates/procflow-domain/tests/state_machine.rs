//! Property tests of the task state machine: random runs, random sequences of patches.
//!
//! Each case builds a template of random tasks (essential or not, task or approval, with or
//! without form fields), starts a run, applies random patches (phase 1), closes every task left
//! open (phase 2) and then applies random patches to the completed run (phase 3). After every
//! patch the rules are checked: postconditions of the patch, events raised, and the invariants
//! of the run. The same rules are checked once on `TaskPatch::apply` directly and once through
//! `Procflow::update_task` over the in-memory store.

#![expect(
    clippy::unwrap_used,
    reason = "test set-up: building a valid template, run or request cannot fail; if it does, the test fails"
)]

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use procflow_domain::actor::{Actor, Assignee};
use procflow_domain::error::{DomainError, ValidationError};
use procflow_domain::event::{Event, EventPayload};
use procflow_domain::ids::{ElementId, RunId, UserId};
use procflow_domain::ports::{Clock, IdGenerator};
use procflow_domain::run::{
    Decision, ElementWrite, ListedTask, Run, RunStatus, RunTask, StartRun, TaskChange, TaskPatch,
    TaskState,
};
use procflow_domain::service::{CreateRun, Ports, Procflow, UpdateTask};
use procflow_domain::team::Team;
use procflow_domain::template::{TaskType, Template, TemplateDocument};
use procflow_memory::{FixedClock, InMemoryStore, SequentialIds};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::TestCaseError;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

// ---------------------------------------------------------------------------------------------
// Random templates
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct TaskSpec {
    essential: bool,
    approval: bool,
    with_elements: bool,
}

fn task_spec() -> impl Strategy<Value = TaskSpec> {
    (any::<bool>(), prop::bool::weighted(0.3), any::<bool>()).prop_map(
        |(essential, approval, with_elements)| TaskSpec {
            essential,
            approval,
            with_elements,
        },
    )
}

fn task_specs() -> impl Strategy<Value = Vec<TaskSpec>> {
    prop::collection::vec(task_spec(), 1..=8)
}

/// The elements of a task with elements: five inputs (0..=4) and a display-only text (5).
fn elements() -> Value {
    json!([
        {"type": "shortText", "label": "Name"},
        {"type": "dropdown", "label": "Team", "options": ["Eng", "Ops"]},
        {"type": "checkbox", "label": "Checked"},
        {"type": "multichoice", "label": "Tags", "options": ["a", "b", "c"]},
        {"type": "number", "label": "Count"},
        {"type": "text", "label": "Help", "value": "<p>Help</p>"}
    ])
}
const INPUTS: usize = 5;
const DISPLAY_ONLY: usize = 5;

/// Values each input element accepts, and values it refuses.
fn valid_values(element: usize) -> [Value; 2] {
    match element {
        0 => [json!("Ada"), json!("")],
        1 => [json!("Eng"), json!("Ops")],
        2 => [json!(true), json!(false)],
        3 => [json!([]), json!(["a", "c"])],
        _ => [json!(1), json!(2.5)],
    }
}

fn invalid_values(element: usize) -> [Value; 2] {
    match element {
        0 => [json!(1), json!("a\u{0}b")],
        1 => [json!("eng"), json!(["Eng"])],
        2 => [json!("yes"), json!(0)],
        3 => [json!(["a", "a"]), json!("a")],
        _ => [json!("1"), json!(true)],
    }
}

/// Up to three tasks per section.
fn template_document(specs: &[TaskSpec]) -> Value {
    let sections: Vec<Value> = specs
        .chunks(3)
        .enumerate()
        .map(|(s, chunk)| {
            let tasks: Vec<Value> = chunk
                .iter()
                .enumerate()
                .map(|(t, spec)| {
                    let mut task = json!({
                        "title": format!("Task {}", s * 3 + t),
                        "is_essential": spec.essential,
                        "type": if spec.approval { "approval" } else { "task" },
                    });
                    if spec.with_elements {
                        task["custom_elements"] = elements();
                    }
                    task
                })
                .collect();
            json!({"title": format!("Section {s}"), "tasks": tasks})
        })
        .collect();
    json!({"title": "Random process", "sections": sections})
}

// ---------------------------------------------------------------------------------------------
// Random patches
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum WriteSpec {
    /// A value of an input element, one it accepts or one it refuses.
    Value {
        element: Index,
        pick: Index,
        valid: bool,
    },
    /// `null` on an input element.
    Clear(Index),
    /// Any value on the display-only element.
    DisplayOnly,
    /// An element id the task does not have.
    Unknown,
}

fn write_spec() -> impl Strategy<Value = WriteSpec> {
    prop_oneof![
        4 => (any::<Index>(), any::<Index>()).prop_map(|(element, pick)| WriteSpec::Value {
            element,
            pick,
            valid: true
        }),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(element, pick)| WriteSpec::Value {
            element,
            pick,
            valid: false
        }),
        1 => any::<Index>().prop_map(WriteSpec::Clear),
        1 => Just(WriteSpec::DisplayOnly),
        2 => Just(WriteSpec::Unknown),
    ]
}

#[derive(Clone, Debug)]
struct Op {
    task: Index,
    completed: Option<bool>,
    skipped: Option<bool>,
    decision: Option<Decision>,
    comment: bool,
    /// `Some(None)` unassigns; `Some(Some(i))` picks from `assignee_pool`.
    assignee: Option<Option<Index>>,
    writes: Vec<WriteSpec>,
    actor: Index,
}

fn op() -> impl Strategy<Value = Op> {
    let completed = prop_oneof![4 => Just(None), 3 => Just(Some(true)), 1 => Just(Some(false))];
    let skipped = prop_oneof![5 => Just(None), 2 => Just(Some(true)), 1 => Just(Some(false))];
    let decision = prop_oneof![
        6 => Just(None),
        1 => Just(Some(Decision::Approved)),
        1 => Just(Some(Decision::Rejected)),
    ];
    let assignee = prop_oneof![
        6 => Just(None),
        1 => Just(Some(None)),
        2 => any::<Index>().prop_map(|i| Some(Some(i))),
    ];
    let writes = prop_oneof![
        3 => Just(Vec::new()),
        1 => prop::collection::vec(write_spec(), 1..3),
    ];
    (
        any::<Index>(),
        completed,
        skipped,
        decision,
        prop::bool::weighted(0.15),
        assignee,
        writes,
        any::<Index>(),
    )
        .prop_map(
            |(task, completed, skipped, decision, comment, assignee, writes, actor)| Op {
                task,
                completed,
                skipped,
                decision,
                comment,
                assignee,
                writes,
                actor,
            },
        )
}

fn ops(max: usize) -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(op(), 0..max)
}

/// How the remaining open tasks are closed: which one next, and by which means.
fn closings() -> impl Strategy<Value = Vec<(Index, Index)>> {
    prop::collection::vec((any::<Index>(), any::<Index>()), 8)
}

// ---------------------------------------------------------------------------------------------
// From a random op to a patch, with what the rules expect of it
// ---------------------------------------------------------------------------------------------

/// The demo team's admin (see `InMemoryStore::demo_team`).
fn admin() -> UserId {
    UserId::from_uuid(Uuid::from_u128(0xAD))
}

fn unknown_element() -> ElementId {
    ElementId::from_uuid(Uuid::from_u128(0xDEAD_BEEF_0000_0000_0000))
}

/// Assignees as a request names them, and what is stored (`None`: the service refuses it).
/// The first three are valid for the state machine itself.
fn assignee_pool() -> [(Assignee, Option<Assignee>); 4] {
    let guest = Assignee::Email("guest@example.org".parse().unwrap());
    let no_member = UserId::from_uuid(Uuid::from_u128(0x404));
    [
        (Assignee::User(admin()), Some(Assignee::User(admin()))),
        (guest.clone(), Some(guest)),
        (
            Assignee::Email("ADMIN@demo.example".parse().unwrap()),
            Some(Assignee::User(admin())),
        ),
        (Assignee::User(no_member), None),
    ]
}

/// Who acts, as the service is told (`actor_email`) and as the state machine records it.
fn actor_pool() -> [(Option<&'static str>, Actor); 4] {
    [
        (None, Actor::Api),
        (Some("admin@demo.example"), Actor::User(admin())),
        (Some("stranger@example.org"), Actor::Api),
        (None, Actor::Guest),
    ]
}

/// A patch for one task, and what the rules say of it.
struct Resolved {
    patch: TaskPatch,
    /// Whether the state machine must accept it on an active run.
    acceptable: bool,
    /// The values the accepted writes store, by element.
    values: HashMap<ElementId, Option<Value>>,
    /// Whether the service refuses it before reaching the state machine.
    refused_by_service: bool,
    /// The assignee as the service receives it.
    assignee_request: Option<Option<Assignee>>,
}

fn resolve(op: &Op, task: &RunTask, service: bool) -> Resolved {
    let mut writes = Vec::new();
    let mut writes_ok = true;
    let mut refused_by_service = false;
    let mut values = HashMap::new();
    for spec in &op.writes {
        let has_elements = !task.custom_elements.is_empty();
        let (id, value, ok) = match spec {
            WriteSpec::Value {
                element,
                pick,
                valid,
            } if has_elements => {
                let e = element.index(INPUTS);
                let choices = if *valid {
                    valid_values(e)
                } else {
                    invalid_values(e)
                };
                (
                    task.custom_elements[e].id,
                    choices[pick.index(2)].clone(),
                    *valid,
                )
            }
            WriteSpec::Clear(element) if has_elements => (
                task.custom_elements[element.index(INPUTS)].id,
                Value::Null,
                true,
            ),
            WriteSpec::DisplayOnly if has_elements => {
                (task.custom_elements[DISPLAY_ONLY].id, json!("x"), false)
            }
            _ => (unknown_element(), json!("x"), false),
        };
        if values
            .insert(id, (!value.is_null()).then(|| value.clone()))
            .is_some()
        {
            writes_ok = false; // the same element twice
        }
        writes_ok &= ok;
        writes.push(ElementWrite { id, value });
    }

    let pool = assignee_pool();
    let (assignee, assignee_request) = match op.assignee {
        None => (None, None),
        Some(None) => (Some(None), Some(None)),
        Some(Some(i)) => {
            let (request, stored) = &pool[i.index(if service { pool.len() } else { 3 })];
            refused_by_service |= stored.is_none();
            (Some(stored.clone()), Some(Some(request.clone())))
        }
    };
    let patch = TaskPatch {
        completed: op.completed,
        skipped: op.skipped,
        assignee,
        assignee_email: None,
        custom_elements: writes,
        decision: op.decision,
        comment: op.comment.then(|| "because".to_owned()),
    };
    let acceptable = writes_ok && fields_acceptable(&patch, task);
    Resolved {
        patch,
        acceptable,
        values,
        refused_by_service,
        assignee_request,
    }
}

/// The field rules of API contract 6, independent of the element values.
fn fields_acceptable(patch: &TaskPatch, task: &RunTask) -> bool {
    let (completed, skipped) = (patch.completed, patch.skipped);
    let contradicts = match patch.decision {
        None => false,
        Some(Decision::Approved) => completed == Some(false) || skipped == Some(true),
        Some(Decision::Rejected) => completed == Some(true) || skipped == Some(true),
    };
    !(completed == Some(true) && skipped == Some(true)
        || skipped == Some(true) && task.is_essential
        || patch.decision.is_some() && task.task_type != TaskType::Approval
        || contradicts
        || patch.comment.is_some() && patch.decision.is_none())
}

/// An op that must close an open task: complete or approve it, or skip it when allowed.
/// `who` picks the actor (the task is given by index to `step`).
fn closing_op(task: &RunTask, how: Index, who: Index) -> Op {
    let mut op = Op {
        task: who,
        completed: None,
        skipped: None,
        decision: None,
        comment: false,
        assignee: None,
        writes: Vec::new(),
        actor: who,
    };
    match how.index(3) {
        0 if !task.is_essential => op.skipped = Some(true),
        1 if task.task_type == TaskType::Approval => {
            op.decision = Some(Decision::Approved);
            op.comment = true;
        }
        _ => op.completed = Some(true),
    }
    op
}

// ---------------------------------------------------------------------------------------------
// The rules
// ---------------------------------------------------------------------------------------------

/// Everything one accepted patch must have done, and nothing more.
fn check_change(
    run: &Run,
    before: &RunTask,
    resolved: &Resolved,
    actor: Actor,
    now: OffsetDateTime,
    change: &TaskChange,
) -> Result<(), TestCaseError> {
    let patch = &resolved.patch;
    let after = &change.task;

    // Only state, assignee, decision, comment and element values may change.
    let mut rest = after.clone();
    rest.state = before.state;
    rest.assignee.clone_from(&before.assignee);
    rest.decision = before.decision;
    rest.comment.clone_from(&before.comment);
    for (element, old) in rest.custom_elements.iter_mut().zip(&before.custom_elements) {
        element.value.clone_from(&old.value);
    }
    prop_assert_eq!(&rest, before);
    for (element, old) in after.custom_elements.iter().zip(&before.custom_elements) {
        let expected = resolved.values.get(&element.id).unwrap_or(&old.value);
        prop_assert_eq!(&element.value, expected);
    }
    match &patch.assignee {
        Some(assignee) => prop_assert_eq!(&after.assignee, assignee),
        None => prop_assert_eq!(&after.assignee, &before.assignee),
    }

    // The state, from the fields of the patch.
    let (completed, skipped, decision) = (patch.completed, patch.skipped, patch.decision);
    if completed == Some(true) || decision == Some(Decision::Approved) {
        prop_assert!(after.completed(), "completing leaves the task completed");
    }
    if completed == Some(false) {
        prop_assert!(
            !after.completed(),
            "reopening leaves the task not completed"
        );
    }
    if skipped == Some(true) {
        prop_assert!(after.skipped(), "skipping leaves the task skipped");
    }
    if skipped == Some(false) {
        prop_assert!(!after.skipped(), "un-skipping leaves the task not skipped");
    }
    if before.completed() && completed == Some(false) && skipped != Some(true) {
        prop_assert!(after.is_open());
    }
    if before.skipped() && skipped == Some(false) && completed != Some(true) && decision.is_none() {
        prop_assert!(after.is_open());
    }
    if completed.is_none() && skipped.is_none() && decision.is_none() {
        prop_assert_eq!(after.state, before.state, "no state field, no state change");
    }
    if before.completed() && after.completed() {
        prop_assert_eq!(after.state, before.state, "the first completion is kept");
    }
    if !before.completed() && after.completed() {
        prop_assert_eq!(after.state, TaskState::Completed { at: now, by: actor });
    }
    if let Some(decision) = decision {
        prop_assert_eq!(after.decision, Some(decision));
        prop_assert_eq!(&after.comment, &patch.comment);
        if decision == Decision::Rejected {
            prop_assert!(after.is_open(), "a rejection leaves the task open");
        }
    }

    // The run header.
    let closed = usize::from(before.is_open() && !after.is_open());
    let reopened = usize::from(!before.is_open() && after.is_open());
    prop_assert_eq!(
        change.run.open_tasks() as usize,
        run.open_tasks() as usize - closed + reopened
    );
    let completes_run = change.run.open_tasks() == 0;
    prop_assert_eq!(change.run.is_completed(), completes_run);
    prop_assert_eq!(
        change.run.completed_at(),
        completes_run.then_some(now),
        "completed_at is set exactly when the run completes"
    );
    let mut header = change.run.clone();
    header.progress = run.progress;
    header.updated_at = run.updated_at;
    prop_assert_eq!(&header, run, "nothing else of the run changes");

    prop_assert_eq!(change.changed, after != before);
    if change.changed {
        prop_assert_eq!(change.run.updated_at, Some(now));
    } else {
        prop_assert_eq!(&change.run, run);
        prop_assert!(change.events.is_empty(), "no change, no event");
    }

    // The events.
    let became_completed = !before.completed() && after.completed();
    let became_assigned = after.assignee != before.assignee && after.assignee.is_some();
    let expected: Vec<EventPayload> = [
        became_completed.then(|| EventPayload::TaskCompleted {
            task: after.snapshot(),
        }),
        became_assigned.then(|| EventPayload::TaskAssigned {
            task: after.snapshot(),
            run_title: run.title.clone(),
            email: match &after.assignee {
                Some(Assignee::Email(email)) => Some(email.clone()),
                _ => patch.assignee_email.clone(),
            },
        }),
        completes_run.then(|| EventPayload::RunCompleted {
            run: change.run.snapshot(),
        }),
    ]
    .into_iter()
    .flatten()
    .collect();
    let payloads: Vec<EventPayload> = change.events.iter().map(|e| e.payload.clone()).collect();
    prop_assert_eq!(&payloads, &expected);
    for event in &change.events {
        prop_assert_eq!(event.team_id, run.team_id);
        prop_assert_eq!(event.occurred_at, now);
    }
    Ok(())
}

/// A run and its tasks, with what was seen happen to them.
struct Life {
    run: Run,
    tasks: Vec<RunTask>,
    run_completed_events: usize,
    task_completed_events: HashMap<usize, usize>,
    completions: HashMap<usize, usize>,
    first_completed_at: Option<OffsetDateTime>,
}

impl Life {
    fn new(run: Run, tasks: Vec<RunTask>) -> Self {
        Self {
            run,
            tasks,
            run_completed_events: 0,
            task_completed_events: HashMap::new(),
            completions: HashMap::new(),
            first_completed_at: None,
        }
    }

    fn record(&mut self, index: usize, change: &TaskChange) {
        if !self.tasks[index].completed() && change.task.completed() {
            *self.completions.entry(index).or_default() += 1;
        }
        for event in &change.events {
            match &event.payload {
                EventPayload::RunCompleted { .. } => self.run_completed_events += 1,
                EventPayload::TaskCompleted { task } => {
                    if let Some(i) = self.tasks.iter().position(|t| t.id == task.id) {
                        *self.task_completed_events.entry(i).or_default() += 1;
                    }
                }
                _ => {}
            }
        }
        self.run = change.run.clone();
        self.tasks[index] = change.task.clone();
    }

    /// What holds of a run at every moment of its life.
    fn check(&mut self) -> Result<(), TestCaseError> {
        let run = &self.run;
        let open = self.tasks.iter().filter(|t| t.is_open()).count();
        prop_assert_eq!(
            run.open_tasks() as usize,
            open,
            "open_tasks counts the open tasks"
        );
        prop_assert_eq!(
            run.is_completed(),
            open == 0,
            "a run is completed iff every task is completed or skipped"
        );
        prop_assert_eq!(run.completed_at().is_some(), run.is_completed());
        if let Some(first) = self.first_completed_at {
            prop_assert_eq!(
                run.completed_at(),
                Some(first),
                "completed_at never changes"
            );
        }
        self.first_completed_at = run.completed_at();
        prop_assert_eq!(self.run_completed_events, usize::from(run.is_completed()));
        prop_assert_eq!(&self.task_completed_events, &self.completions);
        for task in &self.tasks {
            prop_assert!(
                !(task.is_essential && task.skipped()),
                "essential task skipped"
            );
            match task.task_type {
                TaskType::Approval if task.completed() => {
                    prop_assert_eq!(task.decision, Some(Decision::Approved));
                }
                TaskType::Approval => {}
                TaskType::Task => {
                    prop_assert_eq!((task.decision, &task.comment), (None, &None));
                }
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Driving `TaskPatch::apply` directly
// ---------------------------------------------------------------------------------------------

const START: OffsetDateTime = time::macros::datetime!(2026-05-01 8:00 UTC);

fn start_run(specs: &[TaskSpec], ids: &dyn IdGenerator) -> (Template, Run, Vec<RunTask>) {
    let mut template = TemplateDocument::from_json(template_document(specs))
        .unwrap()
        .build(
            procflow_domain::ids::TeamId::from_uuid(Uuid::from_u128(0xD0)),
            None,
            ids,
            START,
        )
        .unwrap();
    template.set_published(true, START).unwrap();
    let new_run = Run::start(
        StartRun {
            template: &template,
            title: None,
            due_date: None,
            runner: None,
            members: &[],
            timezone: "UTC".into(),
            prefill: Vec::new(),
        },
        ids,
        START,
    )
    .unwrap();
    (template, new_run.run, new_run.tasks)
}

struct Direct {
    life: Life,
    ids: SequentialIds,
    now: OffsetDateTime,
    accepted: usize,
}

impl Direct {
    /// Applies `op` to task `index`; returns whether it was accepted.
    fn step(&mut self, index: usize, op: &Op) -> Result<bool, TestCaseError> {
        self.now += Duration::minutes(1);
        let before = self.life.tasks[index].clone();
        let run = self.life.run.clone();
        let resolved = resolve(op, &before, false);
        let actor = actor_pool()[op.actor.index(actor_pool().len())].1;
        let result = resolved
            .patch
            .apply(&run, &before, actor, &self.ids, self.now);

        if run.is_completed() {
            prop_assert_eq!(result, Err(DomainError::RunCompleted));
            return Ok(false);
        }
        match result {
            Err(error) => {
                prop_assert!(
                    !resolved.acceptable,
                    "refused {:?}: {}",
                    resolved.patch,
                    error
                );
                prop_assert!(matches!(error, DomainError::Validation(_)), "{}", error);
                if resolved.patch.skipped == Some(true)
                    && before.is_essential
                    && resolved.patch.completed != Some(true)
                {
                    prop_assert!(
                        matches!(
                            error,
                            DomainError::Validation(ValidationError::EssentialTask { .. })
                        ),
                        "skipping an essential task: {}",
                        error
                    );
                }
                Ok(false)
            }
            Ok(change) => {
                prop_assert!(resolved.acceptable, "accepted {:?}", resolved.patch);
                check_change(&run, &before, &resolved, actor, self.now, &change)?;
                self.life.record(index, &change);
                self.accepted += 1;
                Ok(true)
            }
        }
    }
}

fn open_indices(tasks: &[RunTask]) -> Vec<usize> {
    (0..tasks.len()).filter(|&i| tasks[i].is_open()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_patches_keep_the_rules_of_the_state_machine(
        specs in task_specs(),
        before_completion in ops(40),
        closing in closings(),
        after_completion in ops(10),
    ) {
        let ids = SequentialIds::default();
        let (_, run, tasks) = start_run(&specs, &ids);
        let mut direct = Direct { life: Life::new(run, tasks), ids, now: START, accepted: 0 };
        direct.life.check()?;

        // Phase 1: anything goes.
        for op in &before_completion {
            let index = op.task.index(direct.life.tasks.len());
            direct.step(index, op)?;
            direct.life.check()?;
        }
        // Phase 2: close every task still open.
        for (which, how) in &closing {
            let open = open_indices(&direct.life.tasks);
            if open.is_empty() {
                break;
            }
            let index = open[which.index(open.len())];
            let op = closing_op(&direct.life.tasks[index], *how, *which);
            prop_assert!(direct.step(index, &op)?, "closing {:?} was refused", op);
            direct.life.check()?;
        }
        prop_assert_eq!(direct.life.run.status(), RunStatus::Completed);
        prop_assert_eq!(direct.life.run_completed_events, 1);

        // Phase 3: a completed run refuses everything.
        let (run, tasks) = (direct.life.run.clone(), direct.life.tasks.clone());
        for op in &after_completion {
            let index = op.task.index(direct.life.tasks.len());
            prop_assert!(!direct.step(index, op)?);
        }
        prop_assert_eq!(&direct.life.run, &run);
        prop_assert_eq!(&direct.life.tasks, &tasks);
        prop_assert!(direct.accepted >= 1);
    }

    #[test]
    fn whether_a_patch_is_accepted_depends_on_the_patch_and_the_task_only(
        specs in task_specs(),
        op in op(),
        minutes in 0i64..100_000,
    ) {
        // Whoever acts and whenever, the same patch on the same task is accepted or refused
        // alike, by the field rules, and refused with the same error.
        let ids = SequentialIds::default();
        let (_, run, tasks) = start_run(&specs, &ids);
        let index = op.task.index(tasks.len());
        let resolved = resolve(&op, &tasks[index], false);
        let now = START + Duration::minutes(minutes);
        let results: Vec<_> = actor_pool()
            .into_iter()
            .map(|(_, actor)| resolved.patch.apply(&run, &tasks[index], actor, &ids, now))
            .collect();
        for result in &results {
            prop_assert_eq!(result.is_ok(), resolved.acceptable, "{:?}", result);
        }
        let errors: Vec<_> = results.iter().filter_map(|r| r.as_ref().err()).collect();
        prop_assert!(errors.windows(2).all(|pair| pair[0] == pair[1]), "{:?}", errors);
    }
}

// ---------------------------------------------------------------------------------------------
// Driving `Procflow::update_task` over the in-memory store
// ---------------------------------------------------------------------------------------------

fn block<F: Future>(future: F) -> F::Output {
    futures_executor::block_on(future)
}

struct Service {
    store: Arc<InMemoryStore>,
    clock: Arc<FixedClock>,
    procflow: Procflow,
    team: Team,
    run: RunId,
    life: Life,
}

impl Service {
    fn start(specs: &[TaskSpec]) -> Self {
        let store = Arc::new(InMemoryStore::default());
        let clock = Arc::new(FixedClock::at(START));
        let procflow = Procflow::new(Ports {
            templates: store.clone(),
            runs: store.clone(),
            teams: store.clone(),
            clock: clock.clone(),
            ids: Arc::new(SequentialIds::default()),
        });
        let team = store.demo_team();
        let document = TemplateDocument::from_json(template_document(specs)).unwrap();
        let template = block(procflow.create_template(&team, document)).unwrap();
        block(procflow.publish_template(&team, template.id, true)).unwrap();
        let run = block(procflow.create_run(&team, CreateRun::of(template.id))).unwrap();
        let tasks = parsed(
            block(procflow.list_tasks(&team, run.id, Default::default()))
                .unwrap()
                .items,
        );
        Self {
            store,
            clock,
            procflow,
            team,
            run: run.id,
            life: Life::new(run, tasks),
        }
    }

    fn stored(&self) -> (Run, Vec<RunTask>, Vec<Event>) {
        let run = block(self.procflow.get_run(&self.team, self.run)).unwrap();
        let tasks = block(
            self.procflow
                .list_tasks(&self.team, self.run, Default::default()),
        )
        .unwrap()
        .items;
        (run, parsed(tasks), self.store.events())
    }

    fn step(&mut self, index: usize, op: &Op) -> Result<bool, TestCaseError> {
        self.clock.advance(Duration::minutes(1));
        let now = self.clock.now();
        let before = self.life.tasks[index].clone();
        let run = self.life.run.clone();
        let resolved = resolve(op, &before, true);
        let (actor_email, actor) = actor_pool()[op.actor.index(3)];
        let request = UpdateTask {
            completed: op.completed,
            skipped: op.skipped,
            assignee: resolved.assignee_request.clone(),
            actor_email: actor_email.map(|email| email.parse().unwrap()),
            custom_elements: resolved.patch.custom_elements.clone(),
            decision: op.decision,
            comment: resolved.patch.comment.clone(),
            if_match: None,
        };
        let stored_before = self.stored();
        let result = block(
            self.procflow
                .update_task(&self.team, self.run, before.id, request),
        );
        match result {
            Err(error) => {
                prop_assert_eq!(
                    &self.stored(),
                    &stored_before,
                    "a refused patch changes nothing"
                );
                if run.is_completed() && !resolved.refused_by_service {
                    prop_assert_eq!(error, DomainError::RunCompleted);
                } else {
                    prop_assert!(
                        run.is_completed() || !resolved.acceptable || resolved.refused_by_service,
                        "refused {:?}: {}",
                        resolved.patch,
                        error
                    );
                }
                Ok(false)
            }
            Ok(change) => {
                prop_assert!(!run.is_completed(), "a completed run accepted a patch");
                prop_assert!(
                    resolved.acceptable && !resolved.refused_by_service,
                    "accepted {:?}",
                    resolved.patch
                );
                let mut patch = resolved.patch.clone();
                // The service adds the member's address to assignment events.
                if let Some(Some(Assignee::User(_))) = &patch.assignee {
                    patch.assignee_email = Some("admin@demo.example".parse().unwrap());
                }
                let resolved = Resolved { patch, ..resolved };
                check_change(&run, &before, &resolved, actor, now, &change)?;

                // What the store holds is what the change says, and only that changed.
                let (stored_run, stored_tasks, events) = self.stored();
                prop_assert_eq!(&stored_run, &change.run);
                prop_assert_eq!(&stored_tasks[index], &change.task);
                for (i, (task, old)) in stored_tasks.iter().zip(&stored_before.1).enumerate() {
                    if i != index {
                        prop_assert_eq!(task, old);
                    }
                }
                prop_assert_eq!(&events[..stored_before.2.len()], &stored_before.2[..]);
                prop_assert_eq!(&events[stored_before.2.len()..], &change.events[..]);
                self.life.record(index, &change);
                Ok(true)
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn the_service_over_the_store_keeps_the_same_rules(
        specs in task_specs(),
        before_completion in ops(30),
        closing in closings(),
        after_completion in ops(10),
    ) {
        let mut service = Service::start(&specs);
        service.life.check()?;
        for op in &before_completion {
            let index = op.task.index(service.life.tasks.len());
            service.step(index, op)?;
            service.life.check()?;
        }
        for (which, how) in &closing {
            let open = open_indices(&service.life.tasks);
            if open.is_empty() {
                break;
            }
            let index = open[which.index(open.len())];
            let op = closing_op(&service.life.tasks[index], *how, *which);
            prop_assert!(service.step(index, &op)?, "closing {:?} was refused", op);
            service.life.check()?;
        }
        let (run, tasks, events) = service.stored();
        prop_assert_eq!(run.status(), RunStatus::Completed);
        let run_completed = events
            .iter()
            .filter(|e| matches!(e.payload, EventPayload::RunCompleted { .. }))
            .count();
        prop_assert_eq!(run_completed, 1, "exactly one RunCompleted over the life of a run");

        for op in &after_completion {
            let index = op.task.index(tasks.len());
            prop_assert!(!service.step(index, op)?);
        }
        prop_assert_eq!(service.stored(), (run, tasks, events));
    }
}

fn parsed(tasks: Vec<ListedTask>) -> Vec<RunTask> {
    tasks.into_iter().map(|t| t.parsed().unwrap()).collect()
}
