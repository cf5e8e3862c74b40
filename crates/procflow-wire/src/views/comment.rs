//! Comments on tasks (API contract 14.1).

use std::borrow::Cow;

use procflow_domain::actor::Actor;
use procflow_domain::comment::Comment;
use procflow_domain::ids::{CommentId, RunId, TaskId, UserId};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::events::Person;
use crate::views::AttachmentView;

/// A comment on a task; a deleted one stays in its thread with `deleted: true` and no text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = Comment)]
pub struct CommentView<'a> {
    #[schema(value_type = String, format = "uuid")]
    pub id: CommentId,
    #[schema(value_type = String, format = "uuid")]
    pub run_id: RunId,
    #[schema(value_type = String, format = "uuid")]
    pub task_id: TaskId,
    /// Who wrote it (as in events): a member, the API (null id and email), or the guest.
    pub author: Person,
    /// Plain text: show it as text, never as HTML. Empty once deleted.
    pub text: Cow<'a, str>,
    /// The user ids of the active members it mentions.
    #[schema(value_type = Vec<String>)]
    pub mentions: Vec<UserId>,
    /// The attachments of its task it shows; one deleted since is no longer among them.
    pub attachments: Vec<AttachmentView>,
    pub deleted: bool,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When its text last changed (an edit or its deletion).
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub edited_at: Option<OffsetDateTime>,
}

impl<'a> From<&'a Comment> for CommentView<'a> {
    fn from(comment: &'a Comment) -> Self {
        Self {
            id: comment.id,
            run_id: comment.run_id,
            task_id: comment.task_id,
            author: Person {
                user_id: comment.author.user().map(|user| user.to_string()),
                email: comment.author_email.as_ref().map(ToString::to_string),
                is_guest: comment.author == Actor::Guest,
            },
            text: Cow::Borrowed(&comment.text),
            mentions: comment.mentions.clone(),
            attachments: comment
                .attachments
                .iter()
                .map(AttachmentView::from)
                .collect(),
            deleted: comment.deleted,
            created_at: comment.created_at,
            edited_at: comment.edited_at,
        }
    }
}
