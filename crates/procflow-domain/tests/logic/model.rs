//! A run kept as a store keeps it: every change written back (the task, the run header, the
//! other tasks' flags), and checked against the domain after every write.

use procflow_domain::actor::Actor;
use procflow_domain::error::DomainError;
use procflow_domain::event::Event;
use procflow_domain::ids::{ElementId, TeamId};
use procflow_domain::run::{
    BatchItem, ElementWrite, LogicState, Prefill, Run, RunTask, StartRun, TaskBatch, TaskChange,
    TaskFlags, TaskPatch, TasksChange, evaluate,
};
use procflow_domain::template::{Template, TemplateDocument};
use procflow_memory::SequentialIds;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

pub const T0: OffsetDateTime = time::macros::datetime!(2026-11-27 9:00 UTC);

/// The onboarding of the issue: "Ship a laptop" only for remote hires, "Git access" only in
/// Eng, and "Grant production access" waiting on the security training and the manager's
/// approval.
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

pub fn build(document: Value) -> Result<Template, DomainError> {
    let ids = SequentialIds::default();
    let mut template = TemplateDocument::from_json(document)?.build(
        TeamId::from_uuid(Uuid::from_u128(0x7EA)),
        None,
        &ids,
        T0,
    )?;
    template.set_published(true, T0)?;
    Ok(template)
}

pub struct Model {
    pub template: Template,
    pub run: Run,
    pub tasks: Vec<RunTask>,
    pub events: Vec<Event>,
    ids: SequentialIds,
    now: OffsetDateTime,
    /// Every change's own outcome checked against a full evaluation.
    pub writes: usize,
}

impl Model {
    /// A run of `document`, with `prefill` as (task ref, element ref, value).
    pub fn start(document: Value, prefill: &[(&str, &str, Value)]) -> Result<Self, DomainError> {
        let template = build(document)?;
        let ids = SequentialIds::default();
        let prefill = prefill
            .iter()
            .map(|(task, element, value)| {
                let task = template
                    .tasks
                    .iter()
                    .find(|t| t.reference.as_ref().is_some_and(|r| r.as_str() == *task))
                    .unwrap();
                Prefill {
                    task_id: task.id,
                    element_id: element_of(&task.custom_elements, element),
                    value: value.clone(),
                }
            })
            .collect();
        let new_run = Run::start(
            StartRun {
                template: &template,
                title: None,
                due_date: None,
                runner: None,
                members: &[],
                timezone: "UTC".into(),
                prefill,
            },
            &ids,
            T0,
        )?;
        let model = Self {
            template,
            run: new_run.run,
            tasks: new_run.tasks,
            events: new_run.events,
            ids,
            now: T0,
            writes: 0,
        };
        model.check();
        Ok(model)
    }

    /// A copy to try other changes on (its event ids may repeat this one's).
    pub fn fork(&self) -> Self {
        Self {
            template: self.template.clone(),
            run: self.run.clone(),
            tasks: self.tasks.clone(),
            events: self.events.clone(),
            ids: SequentialIds::default(),
            now: self.now,
            writes: self.writes,
        }
    }

    pub fn index(&self, reference: &str) -> usize {
        self.tasks
            .iter()
            .position(|t| {
                t.reference
                    .as_ref()
                    .is_some_and(|r| r.as_str() == reference)
            })
            .unwrap_or_else(|| panic!("no task {reference}"))
    }

    pub fn task(&self, reference: &str) -> &RunTask {
        &self.tasks[self.index(reference)]
    }

    pub fn write(&self, task: &str, element: &str, value: Value) -> ElementWrite {
        ElementWrite {
            id: element_of(&self.task(task).custom_elements, element),
            value,
        }
    }

    fn tick(&mut self) -> OffsetDateTime {
        self.now += Duration::minutes(1);
        self.now
    }

    /// Applies `patch` to the task at `index` and writes the change back.
    pub fn patch_at(&mut self, index: usize, patch: &TaskPatch) -> Result<TaskChange, DomainError> {
        let now = self.tick();
        let change = patch.apply(&self.run, &self.tasks[index], Actor::Api, &self.ids, now)?;
        self.run = change.run.clone();
        self.tasks[index] = change.task.clone();
        self.set_flags(&change.flags);
        self.events.extend(change.events.iter().cloned());
        self.writes += 1;
        self.check();
        Ok(change)
    }

    pub fn patch(&mut self, task: &str, patch: &TaskPatch) -> Result<TaskChange, DomainError> {
        self.patch_at(self.index(task), patch)
    }

    /// Applies a batch of (task index, patch) and writes the change back.
    pub fn batch_at(&mut self, items: &[(usize, TaskPatch)]) -> Result<TasksChange, DomainError> {
        let batch = TaskBatch::new(
            items
                .iter()
                .map(|(index, patch)| BatchItem {
                    task: self.tasks[*index].id,
                    patch: patch.clone(),
                    actor: Actor::Api,
                    if_match: None,
                })
                .collect(),
        )?;
        let named: Vec<RunTask> = items.iter().map(|(i, _)| self.tasks[*i].clone()).collect();
        let now = self.tick();
        let change = batch.apply(&self.run, &named, &self.ids, now)?;
        self.run = change.run.clone();
        for task in change
            .tasks
            .iter()
            .filter(|t| change.changed.contains(&t.id))
        {
            let slot = self.tasks.iter_mut().find(|t| t.id == task.id).unwrap();
            *slot = task.clone();
        }
        self.set_flags(&change.flags);
        self.events.extend(change.events.iter().cloned());
        self.writes += 1;
        self.check();
        Ok(change)
    }

    pub fn batch(&mut self, items: &[(&str, TaskPatch)]) -> Result<TasksChange, DomainError> {
        let items: Vec<(usize, TaskPatch)> = items
            .iter()
            .map(|(task, patch)| (self.index(task), patch.clone()))
            .collect();
        self.batch_at(&items)
    }

    fn set_flags(&mut self, flags: &[(procflow_domain::ids::TaskId, TaskFlags)]) {
        for (id, flags) in flags {
            let task = self.tasks.iter_mut().find(|t| t.id == *id).unwrap();
            (task.hidden, task.blocked) = (flags.hidden, flags.blocked);
        }
    }

    /// What every store must hold after every write: each task's stored flags are what the
    /// domain computes from the whole run; the run's live logic is the tasks' own state; the
    /// run counts its open visible tasks and is completed exactly when there are none.
    pub fn check(&self) {
        let expected: Vec<TaskFlags> = match &self.run.logic {
            None => vec![TaskFlags::default(); self.tasks.len()],
            Some(logic) => {
                let state = LogicState::of(&logic.plan, &self.tasks);
                assert_eq!(logic.state, state, "the run's live logic is its tasks'");
                let flags = evaluate(&logic.plan, &state);
                self.tasks
                    .iter()
                    .map(|task| {
                        logic
                            .plan
                            .position(task.id)
                            .map_or_else(TaskFlags::default, |t| flags[t])
                    })
                    .collect()
            }
        };
        for (task, expected) in self.tasks.iter().zip(expected) {
            let stored = TaskFlags {
                hidden: task.hidden,
                blocked: task.blocked,
            };
            assert_eq!(stored, expected, "flags of {}", task.title);
        }
        let open = self
            .tasks
            .iter()
            .filter(|t| t.is_open() && !t.hidden)
            .count();
        assert_eq!(self.run.open_tasks() as usize, open, "open visible tasks");
        assert_eq!(
            self.run.is_completed(),
            open == 0,
            "completed iff none open"
        );
    }

    /// How many events of this name were raised so far.
    pub fn count(&self, name: &str) -> usize {
        self.events
            .iter()
            .filter(|e| e.payload.name() == name)
            .count()
    }
}

fn element_of(elements: &[procflow_domain::element::CustomElement], reference: &str) -> ElementId {
    elements
        .iter()
        .find(|e| {
            e.reference
                .as_ref()
                .is_some_and(|r| r.as_str() == reference)
        })
        .unwrap_or_else(|| panic!("no element {reference}"))
        .id
}

pub fn complete() -> TaskPatch {
    TaskPatch {
        completed: Some(true),
        ..TaskPatch::default()
    }
}

pub fn reopen() -> TaskPatch {
    TaskPatch {
        completed: Some(false),
        ..TaskPatch::default()
    }
}

pub fn values(writes: Vec<ElementWrite>) -> TaskPatch {
    TaskPatch {
        custom_elements: writes,
        ..TaskPatch::default()
    }
}
