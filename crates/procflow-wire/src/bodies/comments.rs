//! Bodies of the comment operations (API contract 14.1).

use serde::{Deserialize, Serialize};

/// Write a comment on a task.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateComment)]
pub struct CreateCommentBody {
    /// Plain text, 1 to 10,000 characters, never rendered as HTML. `@<email>` of an active
    /// team member mentions them: they are emailed.
    #[schema(min_length = 1, max_length = 10000)]
    pub text: String,
    /// The email of an active team member who writes it; text that names no active member
    /// (not an address, an outsider's) writes it as the API, as `actor_email` does on every
    /// write (spec 4.6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor_email: Option<String>,
    /// Attachments of the task to show with it (their ids).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(schema_with = crate::schemas::attachment_ids)]
    pub attachment_ids: Vec<String>,
}

/// Replace a comment's text.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdateComment)]
pub struct UpdateCommentBody {
    /// The new text, as for a new comment; mentions it adds are not emailed.
    #[schema(min_length = 1, max_length = 10000)]
    pub text: String,
}
