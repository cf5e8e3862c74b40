//! Request bodies as the API reads them (strictly: unknown fields are refused) and as a
//! client writes them. Text stays text here: `procflow-http` parses each field into the
//! domain's validated types, so that a refusal names the field at fault; a client sends what
//! it has. Optional fields a client leaves `None` are not sent.

mod batch;
mod comments;
mod schedules;
mod webhooks;

pub use batch::{TaskUpdateBody, UpdateTasksBody};
pub use comments::{CreateCommentBody, UpdateCommentBody};
pub use schedules::{CreateScheduleBody, ScheduleInviteBody, ScheduleRunBody, UpdateScheduleBody};
pub use webhooks::{CreateWebhookBody, TestWebhookBody, UpdateWebhookBody};

use procflow_domain::run::Decision;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Create a run (spec 4.6).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateRun)]
pub struct CreateRunBody {
    /// The template to run; it must be published.
    #[schema(format = "uuid")]
    pub template_id: String,
    /// The run's title; the template's title when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Another name for `name` (spec 4.6); give one of the two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// An RFC 3339 timestamp, or a `YYYY-MM-DD` date (midnight UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due_date: Option<String>,
    /// The email of an active team member to attribute the run to; `api` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor_email: Option<String>,
    /// Values pre-filled into form fields of the template's tasks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub custom_elements: Vec<PrefillBody>,
}

/// A value pre-filled into a form field when a run starts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Prefill)]
pub struct PrefillBody {
    /// A template task id.
    #[schema(format = "uuid")]
    pub task_id: String,
    /// The id of an input element of that task.
    #[schema(format = "uuid")]
    pub element_id: String,
    /// A value of the element type's kind (spec 2.7).
    pub value: Value,
}

/// Update a task (spec 4.11, API contract 6): every field optional, several per request.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdateTask)]
pub struct UpdateTaskBody {
    /// True completes the task (approves an approval task), false reopens it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed: Option<bool>,
    /// True skips a task that is not essential; not with `completed: true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<bool>,
    /// A member's user id or email, or any other email (an external assignee); null
    /// unassigns.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::nullable::present"
    )]
    #[schema(value_type = Option<String>)]
    pub assignee: Option<Option<String>>,
    /// Who acts: `completed_by` becomes that member's user id, else `api`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor_email: Option<String>,
    /// Values written to input elements; `value: null` clears one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub custom_elements: Vec<ElementWriteBody>,
    /// Only on approval tasks: `approved` completes it, `rejected` leaves it open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    /// Recorded with the decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

/// A value written to a form field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ElementWrite)]
pub struct ElementWriteBody {
    /// The element's id.
    #[schema(format = "uuid")]
    pub id: String,
    /// A value of the element type's kind (spec 2.7), or null to clear it.
    pub value: Value,
}

/// Share a run with a guest (spec 4.7); `{}` is valid.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Invite)]
pub struct InviteBody {
    /// The guest's email: an invitation with the link is sent to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = Email)]
    pub email: Option<String>,
    /// Remind a guest who has not opened the link; only with `email`. False when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_reminders: Option<bool>,
    /// Days before the reminder; 7 when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 365)]
    pub reminder_days: Option<i64>,
}

/// Publish or unpublish a template (API contract 5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Publish)]
pub struct PublishBody {
    /// `true` publishes, `false` unpublishes.
    pub published: bool,
}
