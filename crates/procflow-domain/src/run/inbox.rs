//! The inbox (API contract 15.1): open work across every run of a team, for dashboards and
//! agents that would otherwise walk every run's task list.

use time::OffsetDateTime;

use crate::actor::Assignee;
use crate::ids::TemplateId;
use crate::run::{ListedTask, RunStatus, RunTask, TaskStatus};

/// Which tasks the inbox lists. Hidden tasks are never listed, whatever the filter.
///
/// ```
/// use procflow_domain::run::{InboxFilter, RunStatus, TaskStatus};
///
/// let filter = InboxFilter::default();
/// assert_eq!(filter.status, TaskStatus::Open);
/// assert_eq!(filter.run_status, RunStatus::Active);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InboxFilter {
    /// Only tasks assigned to this member or email (a member's email is resolved to the member
    /// by the use case, as assignments are).
    pub assignee: Option<Assignee>,
    /// Only tasks in this state.
    pub status: TaskStatus,
    /// Only tasks due strictly before this instant (tasks without a due date are left out).
    pub due_before: Option<OffsetDateTime>,
    /// Only tasks due strictly after this instant (tasks without a due date are left out).
    pub due_after: Option<OffsetDateTime>,
    /// `Some(true)`: only tasks past due at `now`; `Some(false)`: only tasks not past due
    /// (due at or after `now`, or without a due date).
    pub overdue: Option<bool>,
    /// Only tasks of runs of this template.
    pub template_id: Option<TemplateId>,
    /// Only tasks of runs in this status.
    pub run_status: RunStatus,
}

impl Default for InboxFilter {
    fn default() -> Self {
        Self {
            assignee: None,
            status: TaskStatus::Open,
            due_before: None,
            due_after: None,
            overdue: None,
            template_id: None,
            run_status: RunStatus::Active,
        }
    }
}

impl InboxFilter {
    /// Whether a task of a run with this status and template, read at `now`, is listed: the
    /// one statement of the filter the in-memory store follows and the SQL mirrors.
    ///
    /// ```
    /// use procflow_domain::run::{InboxFilter, RunStatus};
    /// # use procflow_domain::run::RunTask;
    /// # fn check(task: &RunTask, template: procflow_domain::ids::TemplateId) {
    /// let now = time::OffsetDateTime::now_utc();
    /// let listed = InboxFilter::default().admits(task, RunStatus::Active, template, now);
    /// # let _ = listed;
    /// # }
    /// ```
    #[must_use]
    pub fn admits<E>(
        &self,
        task: &RunTask<E>,
        run_status: RunStatus,
        template: TemplateId,
        now: OffsetDateTime,
    ) -> bool {
        let past_due = task.due_date.is_some_and(|due| due < now);
        !task.hidden
            && task.state.status() == self.status
            && run_status == self.run_status
            && self.template_id.is_none_or(|t| t == template)
            && self
                .assignee
                .as_ref()
                .is_none_or(|a| task.assignee.as_ref() == Some(a))
            && self
                .due_before
                .is_none_or(|before| task.due_date.is_some_and(|due| due < before))
            && self
                .due_after
                .is_none_or(|after| task.due_date.is_some_and(|due| due > after))
            && self.overdue.is_none_or(|overdue| overdue == past_due)
    }
}

/// The inbox's order: by due date (no due date last), then by id.
///
/// ```
/// use procflow_domain::run::inbox_key;
/// let later = inbox_key(None);
/// assert!(inbox_key(Some(time::OffsetDateTime::UNIX_EPOCH)) < later);
/// ```
#[must_use]
pub fn inbox_key(due_date: Option<OffsetDateTime>) -> (bool, Option<OffsetDateTime>) {
    (due_date.is_none(), due_date)
}

/// A task of the inbox: the run task and the title of its run.
#[derive(Clone, Debug, PartialEq)]
pub struct InboxTask {
    /// The task, as the run's task list has it.
    pub task: ListedTask,
    /// Its run's title.
    pub run_title: String,
}
