//! A run's task: its state (open, completed, skipped) and its current form values.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::actor::{Actor, Assignee};
use crate::element::{CustomElement, StoredElements};
use crate::ids::{RunId, SectionId, TaskId, TemplateTaskId};
use crate::names::named;
use crate::template::{Ref, TaskType};

/// Where a task stands. Completed and skipped exclude each other by construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskState {
    /// Still to do.
    Open,
    /// Done, by whom and when.
    Completed {
        /// When it was completed.
        at: OffsetDateTime,
        /// Who completed it.
        by: Actor,
    },
    /// Deliberately not done (non-essential tasks only).
    Skipped,
}

named! {
    /// The decision on an approval task: `approved` completes it, `rejected` leaves it open.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    pub enum Decision as "decision" {
        /// Completes the task.
        Approved = "approved",
        /// Leaves the task open.
        Rejected = "rejected",
    }
}

named! {
    /// The name of a task's state, as the store and the guest page write it.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    pub enum TaskStatus as "task state" {
        /// Neither completed nor skipped.
        Open = "open",
        /// Completed.
        Completed = "completed",
        /// Skipped.
        Skipped = "skipped",
    }
}

/// A task of a run, copied from a template task when the run started. Its elements are parsed
/// ([`CustomElement`]s) but where a listing reads it ([`ListedTask`]).
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct RunTask<E = Vec<CustomElement>> {
    /// Its id, unique to the run.
    pub id: TaskId,
    /// Its run (`instance_id`).
    pub run_id: RunId,
    /// The template task it was copied from.
    pub template_task_id: TemplateTaskId,
    /// The template task's document-local name, if any.
    pub reference: Option<Ref>,
    /// Its title.
    pub title: String,
    /// Open, completed or skipped.
    pub state: TaskState,
    /// 0-based position in the run's task list.
    pub order: u32,
    /// The run section it belongs to.
    pub section_id: SectionId,
    /// Who it is assigned to.
    pub assignee: Option<Assignee>,
    /// Essential tasks cannot be skipped.
    pub is_essential: bool,
    /// Task or approval.
    pub task_type: TaskType,
    /// When it is due, resolved from the template's rule.
    pub due_date: Option<OffsetDateTime>,
    /// Whether completing it sends a webhook.
    pub webhook_enabled: bool,
    /// The decision on an approval task.
    pub decision: Option<Decision>,
    /// The comment given with the decision.
    pub comment: Option<String>,
    /// The form fields with their current values.
    pub custom_elements: E,
    /// The tasks of the run that must be done before it can be completed or approved.
    pub depends_on: Vec<TaskId>,
    /// Hidden by a rule: counts as done, and cannot be changed while hidden.
    pub hidden: bool,
    /// Not completed while a task it depends on is open and not hidden: cannot be completed or
    /// approved.
    pub blocked: bool,
    /// When it was created (with its run).
    pub created_at: OffsetDateTime,
}

impl TaskState {
    /// The state's name, without who and when.
    #[must_use]
    pub fn status(self) -> TaskStatus {
        match self {
            Self::Open => TaskStatus::Open,
            Self::Completed { .. } => TaskStatus::Completed,
            Self::Skipped => TaskStatus::Skipped,
        }
    }
}

/// A run task as a listing reads it: its elements as the store holds them, for the answer to
/// pass on (see [`StoredElements`]).
pub type ListedTask = RunTask<StoredElements>;

/// A run task without its elements: what a decision about its thread (a comment, an
/// attachment) reads of it, so that a store need not read the elements at all.
///
/// ```
/// use procflow_domain::run::{BareTask, RunTask};
///
/// fn bare(task: RunTask) -> BareTask {
///     task.with_elements(())
/// }
/// ```
pub type BareTask = RunTask<()>;

impl<E> RunTask<E> {
    /// Neither completed nor skipped.
    #[must_use]
    pub fn is_open(&self) -> bool {
        self.state == TaskState::Open
    }

    /// Whether it is completed.
    #[must_use]
    pub fn completed(&self) -> bool {
        matches!(self.state, TaskState::Completed { .. })
    }

    /// Whether it is skipped.
    #[must_use]
    pub fn skipped(&self) -> bool {
        self.state == TaskState::Skipped
    }

    /// When it was completed.
    #[must_use]
    pub fn completed_at(&self) -> Option<OffsetDateTime> {
        match self.state {
            TaskState::Completed { at, .. } => Some(at),
            TaskState::Open | TaskState::Skipped => None,
        }
    }

    /// Who completed it.
    #[must_use]
    pub fn completed_by(&self) -> Option<Actor> {
        match self.state {
            TaskState::Completed { by, .. } => Some(by),
            TaskState::Open | TaskState::Skipped => None,
        }
    }

    /// How messages name the task: its title and its id.
    #[must_use]
    pub fn name(&self) -> String {
        format!("{:?} ({})", self.title, self.id)
    }

    /// The task's fields as events carry them.
    #[must_use]
    pub fn snapshot(&self) -> TaskSnapshot {
        TaskSnapshot {
            id: self.id,
            instance_id: self.run_id,
            template_task_id: self.template_task_id,
            section_id: self.section_id,
            title: self.title.clone(),
            completed: self.completed(),
            completed_at: self.completed_at(),
            completed_by: self.completed_by(),
            assignee: self.assignee.clone(),
            webhook_enabled: self.webhook_enabled,
            due_date: self.due_date,
        }
    }

    /// The same task with other elements (or the same, in another form).
    #[must_use]
    pub fn with_elements<F>(self, custom_elements: F) -> RunTask<F> {
        RunTask {
            id: self.id,
            run_id: self.run_id,
            template_task_id: self.template_task_id,
            reference: self.reference,
            title: self.title,
            state: self.state,
            order: self.order,
            section_id: self.section_id,
            assignee: self.assignee,
            is_essential: self.is_essential,
            task_type: self.task_type,
            due_date: self.due_date,
            webhook_enabled: self.webhook_enabled,
            decision: self.decision,
            comment: self.comment,
            custom_elements,
            depends_on: self.depends_on,
            hidden: self.hidden,
            blocked: self.blocked,
            created_at: self.created_at,
        }
    }
}

impl RunTask {
    /// The task as a listing carries it, its elements written as a store holds them.
    ///
    /// # Errors
    /// As [`StoredElements::of`].
    pub fn listed(&self) -> Result<ListedTask, serde_json::Error> {
        let custom_elements = StoredElements::of(&self.custom_elements)?;
        Ok(self.clone().with_elements(custom_elements))
    }
}

impl ListedTask {
    /// The task with its elements parsed.
    ///
    /// # Errors
    /// As [`StoredElements::parse`].
    pub fn parsed(self) -> Result<RunTask, serde_json::Error> {
        let custom_elements = self.custom_elements.parse()?;
        Ok(self.with_elements(custom_elements))
    }
}

impl crate::etag::Tagged for RunTask {}

/// A run task's fields as a webhook or an email shows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskSnapshot {
    /// The task.
    pub id: TaskId,
    /// Its run.
    pub instance_id: RunId,
    /// The template task it was copied from.
    pub template_task_id: TemplateTaskId,
    /// The run section it belongs to.
    pub section_id: SectionId,
    /// Its title.
    pub title: String,
    /// Whether it is completed.
    pub completed: bool,
    /// When it was completed.
    #[serde(with = "time::serde::rfc3339::option")]
    pub completed_at: Option<OffsetDateTime>,
    /// Who completed it.
    pub completed_by: Option<Actor>,
    /// Its assignee.
    pub assignee: Option<Assignee>,
    /// Whether completing it sends a webhook.
    pub webhook_enabled: bool,
    /// When it is due (absent from events written before emails were sent).
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub due_date: Option<OffsetDateTime>,
}
