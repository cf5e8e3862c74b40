//! Schedules (API contract 13.1).

use procflow_domain::ids::{RunId, ScheduleId, TemplateId};
use procflow_domain::schedule::{Schedule, ScheduleFailure, ScheduledRun};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::bodies::{PrefillBody, ScheduleInviteBody, ScheduleRunBody};

/// Why the latest occurrence started no run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = ScheduleError)]
pub struct ScheduleErrorView {
    /// The error code, as the API would answer it (`template_not_published`,
    /// `not_found`, `validation_error`).
    pub code: String,
    /// What went wrong.
    pub message: String,
    /// The occurrence.
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
}

impl From<&ScheduleFailure> for ScheduleErrorView {
    fn from(failure: &ScheduleFailure) -> Self {
        Self {
            code: failure.code.clone(),
            message: failure.message.clone(),
            at: failure.at,
        }
    }
}

/// A schedule: runs of a template started on a recurrence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = Schedule)]
pub struct ScheduleView {
    #[schema(value_type = String, format = "uuid")]
    pub id: ScheduleId,
    #[schema(value_type = String, format = "uuid")]
    pub template_id: TemplateId,
    #[schema(required = true)]
    pub name: Option<String>,
    /// The RFC 5545 `DTSTART` and `RRULE` lines, as given.
    pub recurrence: String,
    /// The IANA timezone of its local times.
    pub timezone: String,
    pub enabled: bool,
    /// What each run gets.
    pub run: ScheduleRunBody,
    /// The next occurrence; null when none is left.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(required = true)]
    pub next_run_at: Option<OffsetDateTime>,
    /// The latest occurrence that started a run.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(required = true)]
    pub last_run_at: Option<OffsetDateTime>,
    /// The run it started.
    #[schema(value_type = Option<String>, format = "uuid", required = true)]
    pub last_run_id: Option<RunId>,
    /// Why the latest occurrence started nothing; null once one starts a run again.
    #[schema(required = true)]
    pub last_error: Option<ScheduleErrorView>,
    /// Occurrences skipped after downtime (only the latest missed one runs).
    #[schema(minimum = 0)]
    pub missed_count: i64,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

fn run_body(run: &ScheduledRun) -> ScheduleRunBody {
    ScheduleRunBody {
        name: run.name.clone(),
        actor_email: run.actor_email.as_ref().map(|e| e.as_str().to_owned()),
        due_in: run.due_in.as_ref().map(|d| String::from(d.clone())),
        custom_elements: run
            .custom_elements
            .iter()
            .map(|p| PrefillBody {
                task_id: p.task_id.to_string(),
                element_id: p.element_id.to_string(),
                value: p.value.clone(),
            })
            .collect(),
        invite: run.invite.as_ref().map(|invite| ScheduleInviteBody {
            email: invite.email.as_str().to_owned(),
            enable_reminders: Some(invite.enable_reminders),
            reminder_days: invite.reminder_days,
        }),
    }
}

impl From<&Schedule> for ScheduleView {
    fn from(schedule: &Schedule) -> Self {
        Self {
            id: schedule.id,
            template_id: schedule.template_id,
            name: schedule.name.clone(),
            recurrence: schedule.recurrence.as_str().to_owned(),
            timezone: schedule.recurrence.timezone().name().to_owned(),
            enabled: schedule.enabled,
            run: run_body(&schedule.run),
            next_run_at: schedule.next_run_at,
            last_run_at: schedule.last_run_at,
            last_run_id: schedule.last_run_id,
            last_error: schedule.last_error.as_ref().map(ScheduleErrorView::from),
            missed_count: schedule.missed_count,
            created_at: schedule.created_at,
            updated_at: schedule.updated_at,
        }
    }
}
