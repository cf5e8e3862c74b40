//! A schedule as it is stored and shown, and what each of its runs gets.

use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

use super::Recurrence;
use crate::error::ValidationError;
use crate::etag::Tagged;
use crate::ids::{ElementId, RunId, ScheduleId, TeamId, TemplateId, TemplateTaskId};
use crate::run::Prefill;
use crate::sharing::Invitation;
use crate::template::IsoDuration;
use crate::values::Email;

/// The longest schedule name, in characters.
pub const MAX_NAME_CHARS: usize = 255;

/// A value each run is pre-filled with (`run.custom_elements`), kept as the client gave it and
/// checked against the template's published version when saved and at each occurrence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrefillValue {
    /// The template task.
    pub task_id: TemplateTaskId,
    /// Its element.
    pub element_id: ElementId,
    /// The value.
    pub value: Value,
}

impl From<&PrefillValue> for Prefill {
    fn from(value: &PrefillValue) -> Self {
        Self {
            task_id: value.task_id,
            element_id: value.element_id,
            value: value.value.clone(),
        }
    }
}

/// The guest each run is shared with (`run.invite`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduledInvite {
    /// The guest's address; they get the invitation email.
    pub email: Email,
    /// Remind the guest if they have not engaged.
    #[serde(default)]
    pub enable_reminders: bool,
    /// Days before the reminder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reminder_days: Option<i64>,
}

impl From<&ScheduledInvite> for Invitation {
    fn from(invite: &ScheduledInvite) -> Self {
        Self {
            email: Some(invite.email.clone()),
            enable_reminders: invite.enable_reminders,
            reminder_days: invite.reminder_days,
        }
    }
}

/// What each run of a schedule gets (`run`): the fields of Create a Run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScheduledRun {
    /// The title; `{date}` is replaced with the occurrence's local date. The template's title
    /// when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The member the run is attributed to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor_email: Option<Email>,
    /// The run's due date, after the occurrence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due_in: Option<IsoDuration>,
    /// The pre-fill.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub custom_elements: Vec<PrefillValue>,
    /// The guest each run is shared with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invite: Option<ScheduledInvite>,
}

impl ScheduledRun {
    /// The title of the run of the occurrence whose local date is `date`.
    ///
    /// ```
    /// use procflow_domain::schedule::ScheduledRun;
    /// use time::macros::date;
    ///
    /// let run = ScheduledRun { name: Some("Safety check {date}".into()), ..ScheduledRun::default() };
    /// assert_eq!(run.title(date!(2026-12-07)).as_deref(), Some("Safety check 2026-12-07"));
    /// ```
    #[must_use]
    pub fn title(&self, date: time::Date) -> Option<String> {
        self.name
            .as_ref()
            .map(|name| name.replace("{date}", &date.to_string()))
    }
}

/// Why the last occurrence started nothing (`last_error`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ScheduleFailure {
    /// The error code, as an API answer would carry it.
    pub code: String,
    /// What went wrong, for people.
    pub message: String,
    /// The occurrence that failed.
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
}

/// A schedule (API contract 13.1).
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    /// Its id.
    pub id: ScheduleId,
    /// Its team.
    pub team_id: TeamId,
    /// The template each run starts from.
    pub template_id: TemplateId,
    /// A name for people.
    pub name: Option<String>,
    /// When runs start.
    pub recurrence: Recurrence,
    /// Whether it starts runs.
    pub enabled: bool,
    /// What each run gets.
    pub run: ScheduledRun,
    /// The next occurrence; `None` when none is left.
    pub next_run_at: Option<OffsetDateTime>,
    /// The latest occurrence that started a run.
    pub last_run_at: Option<OffsetDateTime>,
    /// The run it started.
    pub last_run_id: Option<RunId>,
    /// Why the latest occurrence started nothing, cleared when one starts a run.
    pub last_error: Option<ScheduleFailure>,
    /// Occurrences skipped after downtime (only the latest missed one runs).
    pub missed_count: i64,
    /// Bumped by every write, the scheduler's too: the store's condition for a change.
    pub revision: i64,
    /// When it was created.
    pub created_at: OffsetDateTime,
    /// When it was last changed through the API.
    pub updated_at: OffsetDateTime,
}

impl Schedule {
    /// A schedule as created at `now`: enabled, without a name, nothing run yet, its next
    /// occurrence the recurrence's first at or after `now`.
    ///
    /// ```
    /// use procflow_domain::ids::{ScheduleId, TeamId, TemplateId};
    /// use procflow_domain::schedule::{Recurrence, Schedule, ScheduledRun, Timezone};
    /// use time::macros::datetime;
    ///
    /// let daily = Recurrence::parse("DTSTART:20260301T093000\nRRULE:FREQ=DAILY", Timezone::UTC)?;
    /// let schedule = Schedule::new(
    ///     ScheduleId::from_uuid(uuid::Uuid::from_u128(1)),
    ///     TeamId::from_uuid(uuid::Uuid::from_u128(2)),
    ///     TemplateId::from_uuid(uuid::Uuid::from_u128(3)),
    ///     daily,
    ///     ScheduledRun::default(),
    ///     datetime!(2026-03-02 10:00 UTC),
    /// );
    /// assert_eq!(schedule.next_run_at, Some(datetime!(2026-03-03 09:30 UTC)));
    /// assert!(schedule.enabled && schedule.last_run_at.is_none());
    /// # Ok::<(), procflow_domain::error::ValidationError>(())
    /// ```
    #[must_use]
    pub fn new(
        id: ScheduleId,
        team_id: TeamId,
        template_id: TemplateId,
        recurrence: Recurrence,
        run: ScheduledRun,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            id,
            team_id,
            template_id,
            name: None,
            next_run_at: recurrence.first_from(now),
            recurrence,
            enabled: true,
            run,
            last_run_at: None,
            last_run_id: None,
            last_error: None,
            missed_count: 0,
            revision: 0,
            created_at: now,
            updated_at: now,
        }
    }
}

impl Hash for Schedule {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // `revision` moves with every write, the scheduler's included, and so does every field
        // the representation shows.
        self.id.hash(state);
        self.revision.hash(state);
        self.updated_at.hash(state);
    }
}

impl Tagged for Schedule {}

/// Checks a schedule name.
///
/// # Errors
/// A [`ValidationError`] on `name` when blank or too long.
pub fn check_name(name: Option<String>) -> Result<Option<String>, ValidationError> {
    match name {
        None => Ok(None),
        Some(name) if name.trim().is_empty() => Err(ValidationError::field(
            "name",
            "must not be blank; leave it out for no name",
        )),
        Some(name) if name.chars().count() > MAX_NAME_CHARS => Err(ValidationError::field(
            "name",
            format!("is longer than {MAX_NAME_CHARS} characters"),
        )),
        Some(name) => Ok(Some(name)),
    }
}
