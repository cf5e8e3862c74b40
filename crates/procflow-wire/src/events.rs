//! The events a webhook posts and the feed lists: the envelope `{id, event, timestamp, test,
//! data}` and the data of each event. The domain builds them (`procflow_domain::webhook`);
//! these types describe them in the OpenAPI document and read them in a client.

use procflow_domain::webhook::WebhookEvent;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `{user_id, email, is_guest}`: who started a run or completed a task (null id and email
/// for the API).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Person {
    #[schema(value_type = Option<String>, format = "uuid", required = true)]
    pub user_id: Option<String>,
    #[schema(value_type = Option<String>, format = Email, required = true)]
    pub email: Option<String>,
    pub is_guest: bool,
}

/// The data of `process_run.created`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RunCreatedData {
    #[schema(format = "uuid")]
    pub instance_id: String,
    #[schema(format = "uuid")]
    pub template_id: String,
    pub title: String,
    pub started_by: Person,
    #[schema(format = DateTime)]
    pub started_at: String,
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub due_date: Option<String>,
    pub is_shared: bool,
    #[schema(minimum = 0)]
    pub task_count: u32,
}

/// The data of `process_run.completed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RunCompletedData {
    #[schema(format = "uuid")]
    pub instance_id: String,
    #[schema(format = "uuid")]
    pub template_id: String,
    pub title: String,
    pub started_by: Person,
    #[schema(format = DateTime)]
    pub started_at: String,
    #[schema(format = DateTime)]
    pub completed_at: String,
}

/// The data of `process_step.completed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StepCompletedData {
    #[schema(format = "uuid")]
    pub task_id: String,
    #[schema(format = "uuid")]
    pub instance_id: String,
    #[schema(format = "uuid")]
    pub template_task_id: String,
    #[schema(format = "uuid")]
    pub section_id: String,
    pub title: String,
    #[schema(format = DateTime)]
    pub completed_at: String,
    pub completed_by: Person,
}

/// The data of `process_step.unblocked`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StepUnblockedData {
    #[schema(format = "uuid")]
    pub task_id: String,
    #[schema(format = "uuid")]
    pub instance_id: String,
    #[schema(format = "uuid")]
    pub template_task_id: String,
    pub title: String,
    /// A member's user id, the email of someone outside the team, or null.
    #[schema(value_type = Option<String>, required = true)]
    pub assignee: Option<String>,
}

/// The data of `task.comment_created`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CommentCreatedData {
    #[schema(format = "uuid")]
    pub comment_id: String,
    #[schema(format = "uuid")]
    pub task_id: String,
    #[schema(format = "uuid")]
    pub instance_id: String,
    pub author: Person,
    /// At most 200 characters of the comment's text (plain text).
    #[schema(max_length = 200)]
    pub text_excerpt: String,
}

/// The data of `schedule.failed`: a schedule's occurrence that started no run (the template
/// unpublished or archived, or the pre-fill no longer fitting it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ScheduleFailedData {
    #[schema(format = "uuid")]
    pub schedule_id: String,
    #[schema(format = "uuid")]
    pub template_id: String,
    /// The occurrence that started no run.
    #[schema(format = DateTime)]
    pub occurrence_at: String,
    /// The error code, as the schedule's `last_error.code`.
    pub code: String,
    /// What went wrong, as the schedule's `last_error.message`.
    pub message: String,
}

/// The data of `task.attachment_added`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AttachmentAddedData {
    #[schema(format = "uuid")]
    pub attachment_id: String,
    #[schema(format = "uuid")]
    pub task_id: String,
    #[schema(format = "uuid")]
    pub instance_id: String,
    /// Its display name (plain text).
    pub filename: String,
    /// Its size in bytes.
    #[schema(minimum = 0)]
    pub size: u64,
}

/// The data of an event: one of the seven shapes, by `event`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum EventData {
    /// `process_run.created`
    RunCreated(RunCreatedData),
    /// `process_run.completed`
    RunCompleted(RunCompletedData),
    /// `process_step.completed`
    StepCompleted(StepCompletedData),
    /// `process_step.unblocked`
    StepUnblocked(StepUnblockedData),
    /// `task.comment_created`
    CommentCreated(CommentCreatedData),
    /// `schedule.failed`
    ScheduleFailed(ScheduleFailedData),
    /// `task.attachment_added`
    AttachmentAdded(AttachmentAddedData),
}

/// `{id, event, timestamp, test, data}`: what a webhook posts and the feed lists. `id` is the
/// event's (the `webhook-id` header), the same for every endpoint, attempt and redelivery.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    #[schema(format = "uuid")]
    pub id: String,
    pub event: WebhookEvent,
    #[schema(format = DateTime)]
    pub timestamp: String,
    /// True on a sample sent by `POST /webhooks/{id}/test`.
    pub test: bool,
    pub data: EventData,
}
