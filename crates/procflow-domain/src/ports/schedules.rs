//! Schedules of a team (API contract 13.1), and what the scheduler asks of the store: the due
//! ones, found through an index, and the one write that settles an occurrence.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::DomainResult;
use crate::event::Event;
use crate::ids::{ScheduleId, TeamId, TemplateId};
use crate::run::NewRun;
use crate::schedule::{Schedule, ScheduleFailure};
use crate::values::{Page, PageRequest};

/// Which schedules a list shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScheduleFilter {
    /// Only the schedules of this template.
    pub template_id: Option<TemplateId>,
    /// Only enabled (or disabled) schedules.
    pub enabled: Option<bool>,
}

/// What an occurrence did.
#[derive(Clone, Debug, PartialEq)]
pub enum Occurrence {
    /// It started this run.
    Started(Box<NewRun>),
    /// It started nothing, for this reason; the events tell the team.
    Failed {
        /// `last_error`.
        failure: ScheduleFailure,
        /// `schedule.failed` and whatever else it raises.
        events: Vec<Event>,
    },
}

/// The settlement of one due occurrence: applied only while the schedule's `next_run_at` is
/// still `seen`, so that of several instances racing over one occurrence exactly one settles
/// it.
#[derive(Clone, Debug, PartialEq)]
pub struct Settlement {
    /// The schedule's team.
    pub team_id: TeamId,
    /// The schedule.
    pub schedule_id: ScheduleId,
    /// The `next_run_at` the scheduler read.
    pub seen: OffsetDateTime,
    /// The occurrence settled (the latest due one).
    pub occurrence_at: OffsetDateTime,
    /// The new `next_run_at`.
    pub next_run_at: Option<OffsetDateTime>,
    /// Occurrences skipped, added to `missed_count`.
    pub missed: i64,
    /// What the occurrence did.
    pub occurrence: Occurrence,
}

/// Schedules.
#[async_trait]
pub trait ScheduleStore: Send + Sync {
    /// Stores a new schedule.
    async fn insert_schedule(&self, schedule: &Schedule) -> DomainResult<()>;

    /// A schedule of the team; `NotFound(Schedule)` otherwise.
    async fn get_schedule(&self, team: TeamId, id: ScheduleId) -> DomainResult<Schedule>;

    /// The team's schedules, oldest first.
    async fn list_schedules(
        &self,
        team: TeamId,
        filter: ScheduleFilter,
        page: PageRequest,
    ) -> DomainResult<Page<Schedule>>;

    /// Replaces a schedule (with `revision` one more than `seen_revision`) only if its stored
    /// revision is still `seen_revision`; `false` when it moved (a concurrent change or an
    /// occurrence), `NotFound(Schedule)` when it is gone.
    async fn replace_schedule(&self, schedule: &Schedule, seen_revision: i64)
    -> DomainResult<bool>;

    /// Deletes a schedule; `NotFound(Schedule)` when there is none.
    async fn delete_schedule(&self, team: TeamId, id: ScheduleId) -> DomainResult<()>;

    /// Enabled schedules whose `next_run_at` is at or before `now`, earliest first, at most
    /// `limit`, of every team: a plain read through an index on enabled schedules, which
    /// locks nothing.
    async fn due_schedules(&self, now: OffsetDateTime, limit: usize)
    -> DomainResult<Vec<Schedule>>;

    /// In one transaction: moves the schedule on (`next_run_at`, `missed_count`, the last
    /// run or error, `revision`) if its `next_run_at` is still `seen` and it is enabled, and
    /// then writes the run (one per schedule and occurrence, by a unique key) or the failure's
    /// events. `false` when another instance settled it first (nothing written).
    async fn settle_occurrence(&self, settlement: &Settlement) -> DomainResult<bool>;
}
