//! Several patches to tasks of one run, decided as one change (API contract 11): each task
//! goes through the same state machine as a single update, then the run's progress is settled
//! once, so a batch that closes the last open task completes the run exactly once. A refusal
//! of any item refuses the whole batch.

use std::collections::HashSet;

use time::OffsetDateTime;

use super::patch::settle;
use super::{Run, RunTask, TaskPatch};
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
    /// What the change raised: each task's events in the batch's order, then the run's.
    pub events: Vec<Event>,
    /// Required elements still empty on tasks completed by this change (reported).
    pub missing_required: Vec<ElementId>,
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
    /// are now), then settles the run once. A refused item changes nothing.
    ///
    /// # Errors
    /// [`DomainError::RunCompleted`] on a completed run; [`DomainError::PreconditionFailed`]
    /// when an item's `if_match` does not match its task; a [`ValidationError::Item`] naming
    /// the item's index and task for a task that is not the run's or a patch its task refuses.
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
        let mut open_tasks = run.open_tasks();
        let mut change = TasksChange {
            run: run.clone(),
            tasks: Vec::with_capacity(self.items.len()),
            changed: Vec::new(),
            events: Vec::new(),
            missing_required: Vec::new(),
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
            let step = item
                .patch
                .step(run, current, item.actor, ids, now)
                .map_err(|error| match error {
                    DomainError::Validation(error) => item_error(index, item.task, error).into(),
                    other => other,
                })?;
            open_tasks = step.open_tasks(open_tasks);
            if step.changed {
                change.changed.push(item.task);
            }
            change.events.extend(step.events);
            change.missing_required.extend(step.missing_required);
            change.tasks.push(step.task);
        }
        change.run = settle(
            run,
            open_tasks,
            !change.changed.is_empty(),
            &mut change.events,
            ids,
            now,
        );
        Ok(change)
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
