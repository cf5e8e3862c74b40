//! The body of a batch update of a run's tasks (API contract 11): each item the fields of a
//! single task PATCH with the task's `id`.

use procflow_domain::run::Decision;
use serde::{Deserialize, Serialize};

use super::ElementWriteBody;

/// Update several tasks of one run at once, all or nothing.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdateTasks)]
pub struct UpdateTasksBody {
    /// The tasks and their changes, applied in this order; each task at most once.
    #[schema(min_items = 1, max_items = 100)]
    pub tasks: Vec<TaskUpdateBody>,
    /// Who acts, for the items that do not give their own `actor_email`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor_email: Option<String>,
}

// The fields are declared again rather than flattened from `UpdateTaskBody` because serde
// does not combine `flatten` with `deny_unknown_fields`. (Not a doc comment: the doc comment
// is the schema's description.)
/// One task of a batch: its id and the fields of a single task update.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = TaskUpdate)]
pub struct TaskUpdateBody {
    /// The run task's id.
    #[schema(format = "uuid")]
    pub id: String,
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
    /// Who acts on this task; the batch's `actor_email` when omitted.
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
