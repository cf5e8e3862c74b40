//! Process runs: frozen snapshots of a template, and the task state machine that completes them.

mod patch;
mod start;
mod task;

pub use patch::{ElementWrite, TaskChange, TaskPatch};
pub use start::{NewRun, Prefill, StartRun};
pub use task::{Decision, RunTask, TaskState};

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::actor::Actor;
use crate::event::RunSnapshot;
use crate::ids::{RunId, TeamId, TemplateId};
use crate::template::Section;

/// A run's status (spec 3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Some task is neither completed nor skipped.
    Active,
    /// Every task is completed or skipped; final.
    Completed,
}

impl RunStatus {
    /// The name used in the API.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Completed => "completed",
        }
    }
}

/// A run's header: everything but its tasks.
///
/// `open_tasks` counts the tasks neither completed nor skipped, so that deciding whether a task
/// update completes the run costs the same whatever the number of tasks.
#[derive(Clone, Debug, PartialEq)]
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
    /// Active or completed.
    pub status: RunStatus,
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
    /// How many tasks are neither completed nor skipped.
    pub open_tasks: u32,
    /// When it was created.
    pub created_at: OffsetDateTime,
    /// When it last changed, `None` until then.
    pub updated_at: Option<OffsetDateTime>,
    /// When its last open task was closed.
    pub completed_at: Option<OffsetDateTime>,
}

impl Run {
    /// Whether the run is completed (and so frozen).
    #[must_use]
    pub fn is_completed(&self) -> bool {
        self.status == RunStatus::Completed
    }

    /// The run's fields as the Create response and events carry them.
    #[must_use]
    pub fn snapshot(&self) -> RunSnapshot {
        RunSnapshot {
            id: self.id,
            template_id: self.template_id,
            title: self.title.clone(),
            status: self.status.as_str().to_owned(),
            started_by: self.started_by,
            team_id: self.team_id,
            timezone: self.timezone.clone(),
            created_at: self.created_at,
            completed_at: self.completed_at,
        }
    }
}

/// Which runs a list returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunFilter {
    /// Only runs of this template.
    pub template_id: Option<TemplateId>,
    /// Only runs in this status.
    pub status: Option<RunStatus>,
}
