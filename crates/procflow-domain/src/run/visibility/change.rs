//! The logic of one change of a run (a task update, or a batch of them in order): refuses what
//! a hidden or blocked task may not do, follows every task the change writes, and at the end
//! answers the flags that changed, the change in open visible tasks, and who was unblocked.

use time::OffsetDateTime;

use super::{RunLogic, TaskFlags, evaluate};
use crate::error::DomainError;
use crate::event::{Event, EventPayload};
use crate::ids::{EventId, TaskId};
use crate::ports::IdGenerator;
use crate::run::{Run, RunTask, TaskStatus};

/// A run's logic through one change.
pub(in crate::run) struct LogicChange {
    /// The logic as the change found it.
    before: RunLogic,
    /// Its flags then (as stored with the tasks).
    before_flags: Vec<TaskFlags>,
    /// The logic as the change has made it so far.
    now: RunLogic,
    /// Its flags.
    flags: Vec<TaskFlags>,
}

/// What the change made of the run's logic.
pub(in crate::run) struct LogicOutcome {
    /// The logic after the change.
    pub(in crate::run) logic: RunLogic,
    /// Every involved task whose flags changed, with its new flags.
    pub(in crate::run) flags: Vec<(TaskId, TaskFlags)>,
    /// Every involved task's flags after the change.
    after: Vec<TaskFlags>,
    /// How many more (or fewer) involved tasks are open and visible.
    pub(in crate::run) open_delta: i64,
    /// `process_step.unblocked` for every task the change unblocked.
    pub(in crate::run) events: Vec<Event>,
}

impl LogicChange {
    /// The run's logic at the start of a change; `None` for a run without logic.
    pub(in crate::run) fn of(run: &Run) -> Option<Self> {
        let logic = run.logic.clone()?;
        let flags = logic.flags();
        Some(Self {
            before: logic.clone(),
            before_flags: flags.clone(),
            now: logic,
            flags,
        })
    }

    /// Whether the logic involves `task` (its open state then counts through the logic).
    pub(in crate::run) fn involves(&self, task: TaskId) -> bool {
        self.now.plan.position(task).is_some()
    }

    /// `task` with its flags as the change has left them so far.
    pub(in crate::run) fn current(&self, task: &RunTask) -> RunTask {
        let mut task = task.clone();
        if let Some(t) = self.now.plan.position(task.id) {
            task.hidden = self.flags[t].hidden;
            task.blocked = self.flags[t].blocked;
        }
        task
    }

    /// Refuses a change of a task while it is hidden.
    pub(in crate::run) fn check_visible(task: &RunTask) -> Result<(), DomainError> {
        if task.hidden {
            return Err(DomainError::TaskHidden {
                task: task.name(),
                item: None,
            });
        }
        Ok(())
    }

    /// Refuses to complete (or approve) `current` into `next` while it is blocked, naming the
    /// open prerequisites.
    pub(in crate::run) fn check_unblocked(
        &self,
        current: &RunTask,
        next: &RunTask,
    ) -> Result<(), DomainError> {
        if !current.blocked || current.completed() || !next.completed() {
            return Ok(());
        }
        let waiting_for = self
            .now
            .plan
            .position(current.id)
            .map(|t| self.now.waiting_for(t, &self.flags))
            .unwrap_or_default();
        Err(DomainError::TaskBlocked {
            task: current.name(),
            waiting_for,
            item: None,
        })
    }

    /// Takes the task a change wrote (its state, assignee and read values) and evaluates again,
    /// so that the next item of a batch sees its effects.
    pub(in crate::run) fn record(&mut self, task: &RunTask) {
        if self.now.state.record(&self.now.plan, task) {
            self.flags = evaluate(&self.now.plan, &self.now.state);
        }
    }

    /// Ends the change: what it made of the logic, raising the unblocked events.
    pub(in crate::run) fn finish(
        self,
        run: &Run,
        ids: &dyn IdGenerator,
        now: OffsetDateTime,
    ) -> LogicOutcome {
        let open_visible = |logic: &RunLogic, flags: &[TaskFlags]| -> i64 {
            let open = logic
                .state
                .tasks
                .iter()
                .zip(flags)
                .filter(|(live, flags)| live.status == TaskStatus::Open && !flags.hidden)
                .count();
            i64::try_from(open).unwrap_or(i64::MAX)
        };
        let open_delta =
            open_visible(&self.now, &self.flags) - open_visible(&self.before, &self.before_flags);
        let plan = &self.now.plan;
        let mut flags = Vec::new();
        let mut events = Vec::new();
        for (t, (before, after)) in self.before_flags.iter().zip(&self.flags).enumerate() {
            if before != after {
                flags.push((plan.tasks[t].id, *after));
            }
            let ready = self.now.state.tasks[t].status == TaskStatus::Open && !after.hidden;
            if before.blocked && !after.blocked && ready {
                events.push(Event {
                    id: EventId::from_uuid(ids.new_id()),
                    team_id: run.team_id,
                    occurred_at: now,
                    payload: EventPayload::TaskUnblocked {
                        task: plan.snapshot(run.id, t, &self.now.state),
                        run_title: run.title.clone(),
                    },
                });
            }
        }
        LogicOutcome {
            logic: self.now,
            flags,
            after: self.flags,
            open_delta,
            events,
        }
    }
}

impl LogicOutcome {
    /// The flags of `task` after the change, when the logic involves it. A task a batch
    /// wrote takes them: a later item may have turned its flags and another turned them back.
    pub(in crate::run) fn flags_of(&self, task: TaskId) -> Option<TaskFlags> {
        self.logic.plan.position(task).map(|t| self.after[t])
    }
}
