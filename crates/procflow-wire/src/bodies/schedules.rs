//! The bodies of the schedule operations (API contract 13.1).

use serde::{Deserialize, Serialize};

use super::PrefillBody;

/// The guest each run of a schedule is shared with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ScheduleInvite)]
pub struct ScheduleInviteBody {
    /// The guest's address; each run's invitation email goes there.
    #[schema(format = "email")]
    pub email: String,
    /// Remind the guest if they have not opened the run; false when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_reminders: Option<bool>,
    /// Days before the reminder, 1 to 365; 7 when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 365)]
    pub reminder_days: Option<i64>,
}

/// What each run of a schedule gets: the fields of Create a Run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ScheduleRun)]
pub struct ScheduleRunBody {
    /// The run's title; `{date}` is replaced with the occurrence's local date (ISO 8601).
    /// The template's title when omitted; not blank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = procflow_domain::openapi::optional_title)]
    pub name: Option<String>,
    /// The email of an active team member to attribute each run to; `api` otherwise. An
    /// address that is no active member's is refused when the schedule is saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = Email)]
    pub actor_email: Option<String>,
    /// Each run's due date: this ISO 8601 duration (weeks, days, hours, minutes, seconds)
    /// after its occurrence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "P2D")]
    pub due_in: Option<String>,
    /// Values pre-filled into form fields, checked when the schedule is saved and at each
    /// occurrence against the template's published version.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub custom_elements: Vec<PrefillBody>,
    /// Share each run with this guest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invite: Option<ScheduleInviteBody>,
}

/// Create a schedule.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateSchedule)]
pub struct CreateScheduleBody {
    /// The template each run starts from.
    #[schema(format = "uuid")]
    pub template_id: String,
    /// A name for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::schemas::schedule_name)]
    pub name: Option<String>,
    /// An RFC 5545 `DTSTART` line (local time in `timezone`) and `RRULE` line, such as
    /// `"DTSTART:20261201T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO"`.
    #[schema(example = "DTSTART:20261201T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO")]
    pub recurrence: String,
    /// The IANA timezone of the recurrence's local times; the team's when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "Europe/Paris")]
    pub timezone: Option<String>,
    /// Whether it starts runs; true when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// What each run gets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<ScheduleRunBody>,
}

/// Change a schedule; omitted fields stay as they are, a null `name` removes it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdateSchedule)]
pub struct UpdateScheduleBody {
    /// A new name; null removes it.
    #[serde(
        default,
        deserialize_with = "crate::nullable::present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schema(schema_with = crate::schemas::schedule_name)]
    pub name: Option<Option<String>>,
    /// A new recurrence; counting restarts from now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recurrence: Option<String>,
    /// A new timezone; counting restarts from now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// Turn it on (counting from now) or off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// What each run gets, replaced as a whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<ScheduleRunBody>,
}
