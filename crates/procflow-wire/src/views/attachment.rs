//! Files attached to tasks (API contract 14.2).

use procflow_domain::actor::Actor;
use procflow_domain::attachment::Attachment;
use procflow_domain::ids::{AttachmentId, RunId, TaskId};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::events::Person;

/// A file attached to a task. Its bytes are at `url`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = Attachment)]
pub struct AttachmentView {
    #[schema(value_type = String, format = "uuid")]
    pub id: AttachmentId,
    #[schema(value_type = String, format = "uuid")]
    pub run_id: RunId,
    #[schema(value_type = String, format = "uuid")]
    pub task_id: TaskId,
    /// The uploader's filename for display only: no path parts, no control characters. Show
    /// it as text, never as HTML.
    #[schema(min_length = 1, max_length = 255)]
    pub filename: String,
    /// The content type the uploader declared (`application/octet-stream` when none or not
    /// one); the download is served as it only when it is on a short safe list.
    pub content_type: String,
    /// Its size in bytes.
    #[schema(minimum = 0)]
    pub size: u64,
    /// The SHA-256 of its bytes, lower-case hex.
    #[schema(pattern = "^[0-9a-f]{64}$")]
    pub sha256: String,
    /// Who uploaded it (as in events): a member, the API (null id and email), or the guest.
    pub uploaded_by: Person,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// Where its bytes are: `GET` it with the same API key.
    pub url: String,
}

/// The path of an attachment's bytes.
#[must_use]
pub fn content_path(id: AttachmentId) -> String {
    format!("/api/v1/attachments/{id}/content")
}

impl From<&Attachment> for AttachmentView {
    fn from(attachment: &Attachment) -> Self {
        Self {
            id: attachment.id,
            run_id: attachment.run_id,
            task_id: attachment.task_id,
            filename: attachment.filename.clone(),
            content_type: attachment.content_type.clone(),
            size: attachment.size,
            sha256: attachment.sha256_hex(),
            uploaded_by: Person {
                user_id: attachment.uploaded_by.user().map(|user| user.to_string()),
                email: attachment.uploader_email.as_ref().map(ToString::to_string),
                is_guest: attachment.uploaded_by == Actor::Guest,
            },
            created_at: attachment.created_at,
            url: content_path(attachment.id),
        }
    }
}
