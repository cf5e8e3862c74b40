//! Rows of `task_comments`.

use diesel::prelude::*;
use procflow_domain::attachment::Attachment;
use procflow_domain::comment::Comment;
use procflow_domain::error::DomainError;
use procflow_domain::ids::{CommentId, RunId, TaskId, TeamId, UserId};
use time::OffsetDateTime;
use uuid::Uuid;

use super::parse;
use crate::error::corrupt;
use crate::schema::task_comments;

#[derive(Queryable, Selectable, Insertable, AsChangeset, Debug)]
#[diesel(table_name = task_comments, check_for_backend(diesel::pg::Pg))]
// The key is (team_id, id): diesel then leaves both out of an update's SET, which Citus
// requires (the partition value of a row cannot be written, even to itself). An insert writes
// `None` as NULL, not DEFAULT (the nullable columns have none), so its text stays the same and
// is prepared once per connection.
#[diesel(
    treat_none_as_null = true,
    treat_none_as_default_value = false,
    primary_key(team_id, id)
)]
pub(crate) struct CommentRow {
    pub team_id: Uuid,
    pub id: Uuid,
    pub run_id: Uuid,
    pub task_id: Uuid,
    pub author: String,
    pub author_email: Option<String>,
    pub body: String,
    pub mentions: Vec<Option<Uuid>>,
    pub deleted: bool,
    pub created_at: OffsetDateTime,
    pub edited_at: Option<OffsetDateTime>,
    pub attachment_ids: Vec<Option<Uuid>>,
}

impl CommentRow {
    pub(crate) fn from_domain(comment: &Comment) -> Self {
        Self {
            team_id: comment.team_id.as_uuid(),
            id: comment.id.as_uuid(),
            run_id: comment.run_id.as_uuid(),
            task_id: comment.task_id.as_uuid(),
            author: comment.author.to_string(),
            author_email: comment.author_email.as_ref().map(ToString::to_string),
            body: comment.text.clone(),
            mentions: comment
                .mentions
                .iter()
                .map(|user| Some(user.as_uuid()))
                .collect(),
            deleted: comment.deleted,
            created_at: comment.created_at,
            edited_at: comment.edited_at,
            attachment_ids: comment
                .attachments
                .iter()
                .map(|a| Some(a.id.as_uuid()))
                .collect(),
        }
    }

    /// The attachment ids the row names.
    pub(crate) fn attachment_ids(&self) -> impl Iterator<Item = Uuid> + '_ {
        self.attachment_ids.iter().flatten().copied()
    }

    /// The comment, showing those of `existing` it names, in the order it names them.
    pub(crate) fn into_domain(self, existing: &[Attachment]) -> Result<Comment, DomainError> {
        let attachments = self
            .attachment_ids()
            .filter_map(|id| existing.iter().find(|a| a.id.as_uuid() == id).cloned())
            .collect();
        Ok(Comment {
            attachments,
            id: CommentId::from_uuid(self.id),
            team_id: TeamId::from_uuid(self.team_id),
            run_id: RunId::from_uuid(self.run_id),
            task_id: TaskId::from_uuid(self.task_id),
            author: parse("comment author", &self.author)?,
            author_email: self
                .author_email
                .as_deref()
                .map(|email| parse("comment author's email", email))
                .transpose()?,
            text: self.body,
            mentions: self
                .mentions
                .into_iter()
                .map(|user| {
                    user.map(UserId::from_uuid)
                        .ok_or_else(|| corrupt("comment mentions", "a null user id"))
                })
                .collect::<Result<_, _>>()?,
            deleted: self.deleted,
            created_at: self.created_at,
            edited_at: self.edited_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use diesel::pg::Pg;

    use super::*;

    #[test]
    fn an_update_never_writes_the_distribution_column() {
        let row = CommentRow {
            team_id: Uuid::nil(),
            id: Uuid::nil(),
            run_id: Uuid::nil(),
            task_id: Uuid::nil(),
            author: "api".into(),
            author_email: None,
            body: "text".into(),
            mentions: Vec::new(),
            deleted: false,
            created_at: OffsetDateTime::UNIX_EPOCH,
            edited_at: None,
            attachment_ids: Vec::new(),
        };
        let sql = diesel::debug_query::<Pg, _>(&diesel::update(task_comments::table).set(&row))
            .to_string();
        assert!(sql.contains("\"body\" = $"), "{sql}");
        assert!(!sql.contains("\"team_id\" ="), "{sql}");
        assert!(!sql.contains("\"id\" ="), "{sql}");
    }
}
