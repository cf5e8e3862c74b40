//! Process runs: frozen snapshots of a template, and the task state machine that completes them.

mod batch;
mod inbox;
mod patch;
mod start;
mod task;
mod visibility;

pub(crate) use batch::item_error;
pub use batch::{BatchItem, TaskBatch, TasksChange};
pub use inbox::{InboxFilter, InboxTask, inbox_key};
pub use patch::{ElementWrite, TaskChange, TaskPatch};
pub use start::{NewRun, Prefill, StartRun};
pub use task::{BareTask, Decision, ListedTask, RunTask, TaskSnapshot, TaskState, TaskStatus};
pub use visibility::{
    LiveTask, LogicPlan, LogicState, PlannedElement, PlannedTask, RunLogic, RunRule, TaskFlags,
    evaluate,
};

use std::num::NonZeroU32;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::actor::Actor;
use crate::ids::{RunId, TeamId, TemplateId};
use crate::names::named;
use crate::template::Section;

named! {
    /// A run's status (spec 3.1): `active` until every task is completed or skipped, then
    /// `completed`.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    pub enum RunStatus as "run status" {
        /// Some task is neither completed nor skipped.
        Active = "active",
        /// Every task is completed or skipped; final.
        Completed = "completed",
    }
}

/// A run's header: everything but its tasks.
///
/// Its status, its completion time and its count of open tasks are one [`Progress`], so they
/// cannot disagree.
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct Run {
    /// Its id (a UUIDv7, so ids sort by creation).
    pub id: RunId,
    /// Its team.
    pub team_id: TeamId,
    /// The template it was started from.
    pub template_id: TemplateId,
    /// The template's version when the run copied it.
    pub template_version: u32,
    /// Its title.
    pub title: String,
    /// Who started it (`started_by`).
    pub started_by: Actor,
    /// The team's time zone when it was created.
    pub timezone: String,
    /// When it is due.
    pub due_date: Option<OffsetDateTime>,
    /// Whether link sharing is on.
    pub is_shared: bool,
    /// Copied from the template.
    pub sections: Vec<Section>,
    /// Active with its open tasks, or completed and when.
    pub progress: Progress,
    /// Its rules and dependencies with their live state; `None` when its template had none.
    pub logic: Option<RunLogic>,
    /// When it was created.
    pub created_at: OffsetDateTime,
    /// When it last changed, `None` until then.
    pub updated_at: Option<OffsetDateTime>,
}

/// Where a run stands. An active run counts the tasks neither completed nor skipped nor hidden
/// by a rule (at least one), so that deciding whether a task update completes the run costs the same whatever the
/// number of tasks; a completed run has none and knows when its last one closed.
///
/// ```
/// use procflow_domain::run::{Progress, RunStatus};
/// use time::macros::datetime;
///
/// let at = datetime!(2026-01-01 9:00 UTC);
/// let progress = Progress::with_open_tasks(0, at);
/// assert_eq!(progress, Progress::Completed { at });
/// assert_eq!(progress.status(), RunStatus::Completed);
/// assert_eq!(Progress::with_open_tasks(3, at).open_tasks(), 3);
/// assert!(Progress::from_parts(RunStatus::Active, 0, None).is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Progress {
    /// Some visible task is neither completed nor skipped.
    Active {
        /// How many.
        open_tasks: NonZeroU32,
    },
    /// Every task is completed or skipped; final.
    Completed {
        /// When the last open task was closed.
        at: OffsetDateTime,
    },
}

impl Progress {
    /// Active with `open_tasks` open tasks; completed `at` when there are none.
    #[must_use]
    pub fn with_open_tasks(open_tasks: u32, at: OffsetDateTime) -> Self {
        NonZeroU32::new(open_tasks).map_or(Self::Completed { at }, |open_tasks| Self::Active {
            open_tasks,
        })
    }

    /// The progress that a status, an open-task count and a completion time describe, as a
    /// store keeps them; `None` when they disagree.
    #[must_use]
    pub fn from_parts(
        status: RunStatus,
        open_tasks: u32,
        completed_at: Option<OffsetDateTime>,
    ) -> Option<Self> {
        match (status, NonZeroU32::new(open_tasks), completed_at) {
            (RunStatus::Active, Some(open_tasks), None) => Some(Self::Active { open_tasks }),
            (RunStatus::Completed, None, Some(at)) => Some(Self::Completed { at }),
            _ => None,
        }
    }

    /// Active or completed.
    #[must_use]
    pub fn status(self) -> RunStatus {
        match self {
            Self::Active { .. } => RunStatus::Active,
            Self::Completed { .. } => RunStatus::Completed,
        }
    }

    /// The tasks neither completed nor skipped.
    #[must_use]
    pub fn open_tasks(self) -> u32 {
        match self {
            Self::Active { open_tasks } => open_tasks.get(),
            Self::Completed { .. } => 0,
        }
    }

    /// When the run was completed.
    #[must_use]
    pub fn completed_at(self) -> Option<OffsetDateTime> {
        match self {
            Self::Active { .. } => None,
            Self::Completed { at } => Some(at),
        }
    }
}

impl Run {
    /// Its rules, tasks and elements named by id (empty without logic).
    #[must_use]
    pub fn rules(&self) -> Vec<RunRule> {
        self.logic
            .as_ref()
            .map(|logic| logic.plan.rules())
            .unwrap_or_default()
    }

    /// Active or completed.
    #[must_use]
    pub fn status(&self) -> RunStatus {
        self.progress.status()
    }

    /// Whether the run is completed (and so frozen).
    #[must_use]
    pub fn is_completed(&self) -> bool {
        self.status() == RunStatus::Completed
    }

    /// How many visible tasks are neither completed nor skipped.
    #[must_use]
    pub fn open_tasks(&self) -> u32 {
        self.progress.open_tasks()
    }

    /// When its last open task was closed.
    #[must_use]
    pub fn completed_at(&self) -> Option<OffsetDateTime> {
        self.progress.completed_at()
    }

    /// The run's fields as the Create response and events carry them.
    #[must_use]
    pub fn snapshot(&self) -> RunSnapshot {
        RunSnapshot {
            id: self.id,
            template_id: self.template_id,
            title: self.title.clone(),
            status: self.status(),
            started_by: self.started_by,
            team_id: self.team_id,
            timezone: self.timezone.clone(),
            created_at: self.created_at,
            completed_at: self.completed_at(),
            due_date: self.due_date,
            is_shared: self.is_shared,
        }
    }
}

/// A run's fields as the Create response carries them (spec 2.5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSnapshot {
    /// The run.
    pub id: RunId,
    /// Its template.
    pub template_id: TemplateId,
    /// Its title.
    pub title: String,
    /// `active` or `completed`.
    pub status: RunStatus,
    /// Who started it.
    pub started_by: Actor,
    /// Its team.
    pub team_id: TeamId,
    /// Its time zone.
    pub timezone: String,
    /// When it was created.
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When it was completed.
    #[serde(with = "time::serde::rfc3339::option")]
    pub completed_at: Option<OffsetDateTime>,
    /// When it is due.
    #[serde(with = "time::serde::rfc3339::option")]
    pub due_date: Option<OffsetDateTime>,
    /// Whether link sharing is on.
    pub is_shared: bool,
}

/// Which runs a list returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunFilter {
    /// Only runs of this template.
    pub template_id: Option<TemplateId>,
    /// Only runs in this status.
    pub status: Option<RunStatus>,
}

impl crate::etag::Tagged for Run {}
