//! The task state machine: one patch applied to one task of one run.

use std::collections::HashSet;

use serde_json::Value;
use time::OffsetDateTime;

use super::visibility::LogicChange;
use super::{Decision, Progress, Run, RunLogic, RunTask, TaskFlags, TaskState};
use crate::actor::{Actor, Assignee};
use crate::error::{DomainError, ValidationError};
use crate::event::{Event, EventPayload};
use crate::ids::{ElementId, EventId, TaskId};
use crate::limits;
use crate::ports::IdGenerator;
use crate::template::TaskType;
use crate::values::Email;

/// A value written to an element of a run task.
#[derive(Clone, Debug, PartialEq)]
pub struct ElementWrite {
    /// The element.
    pub id: ElementId,
    /// Its new value; `null` clears it.
    pub value: Value,
}

/// Everything one PATCH may change at once; `None` leaves a field as it is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskPatch {
    /// `true` completes the task, `false` reopens it.
    pub completed: Option<bool>,
    /// `true` skips a non-essential task, `false` reopens a skipped one.
    pub skipped: Option<bool>,
    /// `Some(None)` unassigns; `Some(Some(a))` assigns.
    pub assignee: Option<Option<Assignee>>,
    /// Where the assignment notification goes, when the caller knows it.
    pub assignee_email: Option<Email>,
    /// Values to write.
    pub custom_elements: Vec<ElementWrite>,
    /// The decision on an approval task.
    pub decision: Option<Decision>,
    /// A comment, given with a decision.
    pub comment: Option<String>,
}

/// The outcome of a patch: what the store writes, in one transaction.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskChange {
    /// The run header after the change.
    pub run: Run,
    /// The task after the change.
    pub task: RunTask,
    /// What the change raised.
    pub events: Vec<Event>,
    /// Whether anything changed at all.
    pub changed: bool,
    /// Required elements still empty on a task completed by this change (reported, not refused).
    pub missing_required: Vec<ElementId>,
    /// The run's other tasks whose `hidden` or `blocked` the change turned, with their new
    /// flags (written with the change).
    pub flags: Vec<(TaskId, TaskFlags)>,
}

impl TaskPatch {
    /// Applies the patch to `task` of `run`, acting as `actor`.
    ///
    /// The run completes, with `completed_at`, exactly when the change closes its last open
    /// visible task, or hides it. The run's logic is evaluated again with the change: the other
    /// tasks it hides, shows, blocks or unblocks are in [`TaskChange::flags`], and each task it
    /// unblocks raises `process_step.unblocked`. A refused patch changes nothing.
    ///
    /// # Errors
    /// [`DomainError::RunCompleted`] on a completed run; [`DomainError::TaskHidden`] for any
    /// patch of a hidden task; [`DomainError::TaskBlocked`] for completing or approving a
    /// blocked one; a [`ValidationError`] for skipping an essential task, contradictory fields,
    /// a decision on a plain task, an unknown element or a value its element refuses.
    pub fn apply(
        &self,
        run: &Run,
        task: &RunTask,
        actor: Actor,
        ids: &dyn IdGenerator,
        now: OffsetDateTime,
    ) -> Result<TaskChange, DomainError> {
        if run.is_completed() {
            return Err(DomainError::RunCompleted);
        }
        let mut logic = LogicChange::of(run);
        let current = logic
            .as_ref()
            .map_or_else(|| task.clone(), |l| l.current(task));
        let step = self.step(run, &current, actor, ids, now, logic.as_mut())?;
        let mut open = i64::from(run.open_tasks());
        let mut events = step.events;
        let mut next = step.task;
        let mut flags = Vec::new();
        let after = match logic {
            None => {
                open += step.open_delta;
                None
            }
            Some(logic) => {
                if !logic.involves(task.id) {
                    open += step.open_delta;
                }
                let outcome = logic.finish(run, ids, now);
                open += outcome.open_delta;
                if let Some(own) = outcome.flags_of(next.id) {
                    (next.hidden, next.blocked) = (own.hidden, own.blocked);
                }
                flags = outcome
                    .flags
                    .into_iter()
                    .filter(|(id, _)| *id != next.id)
                    .collect();
                events.extend(outcome.events);
                Some(outcome.logic)
            }
        };
        let changed = next != *task;
        let run = settle(run, open, after, changed, &mut events, ids, now);
        Ok(TaskChange {
            run,
            task: next,
            events,
            changed,
            missing_required: step.missing_required,
            flags,
        })
    }

    /// The patch applied to the task alone (with its flags as the change has left them): the
    /// new task and the task's own events; `logic` follows it. The run's progress is settled
    /// by the caller ([`settle`]), once for a single patch or a batch.
    pub(super) fn step(
        &self,
        run: &Run,
        task: &RunTask,
        actor: Actor,
        ids: &dyn IdGenerator,
        now: OffsetDateTime,
        logic: Option<&mut LogicChange>,
    ) -> Result<TaskStep, DomainError> {
        // Hidden first: a hidden task takes no change at all, valid or not.
        LogicChange::check_visible(task)?;
        self.check_fields(task)?;
        let mut next = task.clone();
        self.write_elements(&mut next)?;
        next.state = self.next_state(task, actor, now);
        self.record_decision(task, &mut next);
        if let Some(assignee) = &self.assignee {
            next.assignee.clone_from(assignee);
        }
        if let Some(logic) = logic {
            logic.check_unblocked(task, &next)?;
            logic.record(&next);
        }

        let mut events = Vec::new();
        if !task.completed() && next.completed() {
            events.push(event(
                run,
                ids,
                now,
                EventPayload::TaskCompleted {
                    task: next.snapshot(),
                },
            ));
        }
        if next.assignee != task.assignee && next.assignee.is_some() {
            let email = match &next.assignee {
                Some(Assignee::Email(email)) => Some(email.clone()),
                _ => self.assignee_email.clone(),
            };
            events.push(event(
                run,
                ids,
                now,
                EventPayload::TaskAssigned {
                    task: next.snapshot(),
                    run_title: run.title.clone(),
                    email,
                },
            ));
        }
        let missing_required = if next.completed() {
            next.custom_elements
                .iter()
                .filter(|e| e.is_missing())
                .map(|e| e.id)
                .collect()
        } else {
            Vec::new()
        };
        let open_delta = match (task.is_open(), next.is_open()) {
            (true, false) => -1,
            (false, true) => 1,
            _ => 0,
        };
        Ok(TaskStep {
            open_delta,
            task: next,
            events,
            missing_required,
        })
    }

    fn check_fields(&self, task: &RunTask) -> Result<(), ValidationError> {
        if self.completed == Some(true) && self.skipped == Some(true) {
            return Err(ValidationError::field(
                "skipped",
                "a task cannot be completed and skipped at once",
            ));
        }
        if self.skipped == Some(true) && task.is_essential {
            return Err(ValidationError::EssentialTask { task: task.name() });
        }
        if let Some(decision) = self.decision {
            if task.task_type != TaskType::Approval {
                return Err(ValidationError::field(
                    "decision",
                    "only approval tasks take a decision",
                ));
            }
            let contradicts = match decision {
                Decision::Approved => self.completed == Some(false) || self.skipped == Some(true),
                Decision::Rejected => self.completed == Some(true) || self.skipped == Some(true),
            };
            if contradicts {
                return Err(ValidationError::field(
                    "decision",
                    "contradicts the completed or skipped field of the same request",
                ));
            }
        }
        if let Some(comment) = &self.comment {
            if self.decision.is_none() {
                return Err(ValidationError::field(
                    "comment",
                    "a comment is given with a decision",
                ));
            }
            limits::check_text(comment, limits::MAX_COMMENT_CHARS)
                .map_err(|message| ValidationError::field("comment", message))?;
        }
        Ok(())
    }

    fn write_elements(&self, task: &mut RunTask) -> Result<(), ValidationError> {
        let mut seen = HashSet::with_capacity(self.custom_elements.len());
        for (i, write) in self.custom_elements.iter().enumerate() {
            if !seen.insert(write.id) {
                return Err(ValidationError::field(
                    format!("custom_elements[{i}].id"),
                    format!("element {} is written twice", write.id),
                ));
            }
            let task_name = task.name();
            let element = task
                .custom_elements
                .iter_mut()
                .find(|e| e.id == write.id)
                .ok_or_else(|| {
                    ValidationError::field(
                        format!("custom_elements[{i}].id"),
                        format!("task {task_name} has no element {}", write.id),
                    )
                })?;
            element.value = element.validate_write(&write.value)?;
        }
        Ok(())
    }

    fn next_state(&self, task: &RunTask, actor: Actor, now: OffsetDateTime) -> TaskState {
        let complete = self.completed == Some(true) || self.decision == Some(Decision::Approved);
        let reopen_completed =
            self.completed == Some(false) || self.decision == Some(Decision::Rejected);
        match task.state {
            // Completing a completed task keeps who completed it first, and when.
            TaskState::Completed { .. } if complete => task.state,
            _ if complete => TaskState::Completed { at: now, by: actor },
            _ if self.skipped == Some(true) => TaskState::Skipped,
            TaskState::Completed { .. } if reopen_completed => TaskState::Open,
            TaskState::Skipped
                if self.skipped == Some(false) || self.decision == Some(Decision::Rejected) =>
            {
                TaskState::Open
            }
            state => state,
        }
    }

    fn record_decision(&self, before: &RunTask, next: &mut RunTask) {
        if let Some(decision) = self.decision {
            next.decision = Some(decision);
            next.comment.clone_from(&self.comment);
        } else if next.task_type == TaskType::Approval && next.completed() && !before.completed() {
            next.decision = Some(Decision::Approved);
            next.comment = None;
        } else if before.completed() && !next.completed() {
            next.decision = None;
            next.comment = None;
        }
    }
}

/// One patch applied to one task, before the run's progress is settled.
pub(super) struct TaskStep {
    /// The task after the patch.
    pub(super) task: RunTask,
    /// The task's own events (completed, assigned).
    pub(super) events: Vec<Event>,
    /// How the task's own state changed the count of open tasks: -1 closed, +1 reopened.
    pub(super) open_delta: i64,
    /// Required elements still empty on a completed task.
    pub(super) missing_required: Vec<ElementId>,
}

/// The run header after changes to its tasks that leave `open_tasks` open and visible, with
/// its `logic` after them: touched when anything `changed`, completed (raising
/// `process_run.completed` into `events`, once) when no visible task is left open.
pub(super) fn settle(
    run: &Run,
    open_tasks: i64,
    logic: Option<RunLogic>,
    changed: bool,
    events: &mut Vec<Event>,
    ids: &dyn IdGenerator,
    now: OffsetDateTime,
) -> Run {
    let mut after = run.clone();
    if changed {
        after.updated_at = Some(now);
    }
    after.logic = logic;
    let open_tasks = u32::try_from(open_tasks.max(0)).unwrap_or(u32::MAX);
    after.progress = Progress::with_open_tasks(open_tasks, now);
    if after.is_completed() {
        events.push(event(
            run,
            ids,
            now,
            EventPayload::RunCompleted {
                run: after.snapshot(),
            },
        ));
    }
    after
}

fn event(run: &Run, ids: &dyn IdGenerator, now: OffsetDateTime, payload: EventPayload) -> Event {
    Event {
        id: EventId::from_uuid(ids.new_id()),
        team_id: run.team_id,
        occurred_at: now,
        payload,
    }
}
