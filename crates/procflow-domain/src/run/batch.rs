//! Several patches to tasks of one run, decided as one change (API contract 11): each task
//! goes through the same state machine as a single update, then the run's progress is settled
//! once, so a batch that closes the last open task completes the run exactly once. A refusal
//! of any item refuses the whole batch.

use std::collections::HashSet;

use time::OffsetDateTime;

use super::patch::settle;
use super::visibility::LogicChange;
use super::{Run, RunTask, TaskFlags, TaskPatch};
use crate::actor::Actor;
use crate::error::{DomainError, ValidationError};
use crate::etag::IfMatch;
use crate::event::Event;
use crate::ids::{ElementId, TaskId};
use crate::limits;
use crate::ports::IdGenerator;

/// One patch of a batch: the task it changes, who acts, and its own precondition.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchItem {
    /// The task.
    pub task: TaskId,
    /// What changes.
    pub patch: TaskPatch,
    /// Who acts.
    pub actor: Actor,
    /// Applies only when the task's current tag matches.
    pub if_match: Option<IfMatch>,
}

/// Patches of distinct tasks of one run, at least one and at most
/// [`MAX_BATCH_TASKS`](limits::MAX_BATCH_TASKS).
#[derive(Clone, Debug, PartialEq)]
pub struct TaskBatch {
    items: Vec<BatchItem>,
}

/// The outcome of a batch: what the store writes, in one transaction.
#[derive(Clone, Debug, PartialEq)]
pub struct TasksChange {
    /// The run header after the change.
    pub run: Run,
    /// Every task of the batch after the change, in the batch's order.
    pub tasks: Vec<RunTask>,
    /// The tasks that changed (the others need no write).
    pub changed: Vec<TaskId>,
    /// What the change raised: each task's events in the batch's order, then the tasks it
    /// unblocked, then the run's.
    pub events: Vec<Event>,
    /// Required elements still empty on tasks completed by this change (reported).
    pub missing_required: Vec<ElementId>,
    /// The run's tasks outside the batch whose `hidden` or `blocked` the change turned, with
    /// their new flags (written with the change).
    pub flags: Vec<(TaskId, TaskFlags)>,
}

impl TaskBatch {
    /// A batch of these items.
    ///
    /// # Errors
    /// A [`ValidationError`] for no item, more than
    /// [`MAX_BATCH_TASKS`](limits::MAX_BATCH_TASKS), or a task named twice (naming the
    /// second item's index and id).
    pub fn new(items: Vec<BatchItem>) -> Result<Self, ValidationError> {
        Self::check(&items.iter().map(|item| item.task).collect::<Vec<_>>())?;
        Ok(Self { items })
    }

    /// Checks the tasks a batch would change, as [`new`](Self::new) does: before the work of
    /// building its patches.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn check(tasks: &[TaskId]) -> Result<(), ValidationError> {
        if tasks.is_empty() || tasks.len() > limits::MAX_BATCH_TASKS {
            return Err(ValidationError::field(
                "tasks",
                format!(
                    "must hold 1 to {} tasks, not {}",
                    limits::MAX_BATCH_TASKS,
                    tasks.len()
                ),
            ));
        }
        let mut seen = HashSet::with_capacity(tasks.len());
        for (index, task) in tasks.iter().enumerate() {
            if !seen.insert(*task) {
                return Err(item_error(
                    index,
                    *task,
                    ValidationError::field("id", "the task is named twice in the batch"),
                ));
            }
        }
        Ok(())
    }

    /// The tasks it changes, in its order.
    #[must_use]
    pub fn task_ids(&self) -> Vec<TaskId> {
        self.items.iter().map(|item| item.task).collect()
    }

    /// Applies every patch to its task among `tasks` (the run's tasks the batch names, as they
    /// are now), in order, each seeing the effects of the ones before it on the run's logic
    /// (so completing a prerequisite then its dependent succeeds), then settles the run once.
    /// A refused item changes nothing.
    ///
    /// # Errors
    /// [`DomainError::RunCompleted`] on a completed run; [`DomainError::PreconditionFailed`]
    /// when an item's `if_match` does not match its task; [`DomainError::TaskHidden`] and
    /// [`DomainError::TaskBlocked`] naming the item as a single update would; a
    /// [`ValidationError::Item`] naming the item's index and task for a task that is not the
    /// run's or a patch its task refuses.
    pub fn apply(
        &self,
        run: &Run,
        tasks: &[RunTask],
        ids: &dyn IdGenerator,
        now: OffsetDateTime,
    ) -> Result<TasksChange, DomainError> {
        if run.is_completed() {
            return Err(DomainError::RunCompleted);
        }
        let mut logic = LogicChange::of(run);
        let mut open = i64::from(run.open_tasks());
        let mut stored = Vec::with_capacity(self.items.len());
        let mut change = TasksChange {
            run: run.clone(),
            tasks: Vec::with_capacity(self.items.len()),
            changed: Vec::new(),
            events: Vec::new(),
            missing_required: Vec::new(),
            flags: Vec::new(),
        };
        for (index, item) in self.items.iter().enumerate() {
            let Some(current) = tasks.iter().find(|task| task.id == item.task) else {
                return Err(item_error(
                    index,
                    item.task,
                    ValidationError::field("id", "the process run has no such task"),
                )
                .into());
            };
            if let Some(condition) = &item.if_match {
                condition.check(current)?;
            }
            let seen = logic
                .as_ref()
                .map_or_else(|| current.clone(), |l| l.current(current));
            let step = item
                .patch
                .step(run, &seen, item.actor, ids, now, logic.as_mut())
                .map_err(|error| in_item(index, item.task, error))?;
            if logic.as_ref().is_none_or(|l| !l.involves(item.task)) {
                open += step.open_delta;
            }
            change.events.extend(step.events);
            change.missing_required.extend(step.missing_required);
            change.tasks.push(step.task);
            stored.push(current);
        }
        let after = logic.map(|logic| {
            let outcome = logic.finish(run, ids, now);
            open += outcome.open_delta;
            for task in &mut change.tasks {
                if let Some(flags) = outcome.flags_of(task.id) {
                    (task.hidden, task.blocked) = (flags.hidden, flags.blocked);
                }
            }
            change.flags = outcome
                .flags
                .into_iter()
                .filter(|(id, _)| change.tasks.iter().all(|t| t.id != *id))
                .collect();
            change.events.extend(outcome.events);
            outcome.logic
        });
        change.changed = change
            .tasks
            .iter()
            .zip(stored)
            .filter(|(after, before)| *after != *before)
            .map(|(after, _)| after.id)
            .collect();
        change.run = settle(
            run,
            open,
            after,
            !change.changed.is_empty(),
            &mut change.events,
            ids,
            now,
        );
        Ok(change)
    }
}

/// A refusal of the batch's item `index`, naming it (and its task, for validation errors).
fn in_item(index: usize, task: TaskId, error: DomainError) -> DomainError {
    match error {
        DomainError::Validation(error) => item_error(index, task, error).into(),
        DomainError::TaskHidden { task, .. } => DomainError::TaskHidden {
            task,
            item: Some(index),
        },
        DomainError::TaskBlocked {
            task, waiting_for, ..
        } => DomainError::TaskBlocked {
            task,
            waiting_for,
            item: Some(index),
        },
        other => other,
    }
}

/// A refusal of the batch's item `index`, naming it and its task.
pub(crate) fn item_error(index: usize, task: TaskId, error: ValidationError) -> ValidationError {
    ValidationError::Item {
        index,
        task: task.to_string(),
        error: Box::new(error),
    }
}
