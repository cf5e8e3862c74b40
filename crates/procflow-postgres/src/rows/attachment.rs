//! Rows of `task_attachments`.

use diesel::prelude::*;
use procflow_domain::attachment::Attachment;
use procflow_domain::error::DomainError;
use procflow_domain::ids::{AttachmentId, RunId, TaskId, TeamId};
use time::OffsetDateTime;
use uuid::Uuid;

use super::parse;
use crate::error::corrupt;
use crate::schema::task_attachments;

// `None` written as NULL rather than DEFAULT (the column has none): the insert's text is then
// the same for every row, so it is prepared once per connection instead of at every upload.
#[derive(Queryable, Selectable, Insertable, Debug)]
#[diesel(
    table_name = task_attachments,
    check_for_backend(diesel::pg::Pg),
    treat_none_as_default_value = false
)]
pub(crate) struct AttachmentRow {
    pub team_id: Uuid,
    pub id: Uuid,
    pub run_id: Uuid,
    pub task_id: Uuid,
    pub filename: String,
    pub content_type: String,
    pub size: i64,
    pub sha256: String,
    pub author: String,
    pub author_email: Option<String>,
    pub created_at: OffsetDateTime,
}

fn unhex(text: &str) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    hex::decode_to_slice(text, &mut out).ok().map(|()| out)
}

impl AttachmentRow {
    pub(crate) fn from_domain(attachment: &Attachment) -> Self {
        Self {
            team_id: attachment.team_id.as_uuid(),
            id: attachment.id.as_uuid(),
            run_id: attachment.run_id.as_uuid(),
            task_id: attachment.task_id.as_uuid(),
            filename: attachment.filename.clone(),
            content_type: attachment.content_type.clone(),
            size: i64::try_from(attachment.size).unwrap_or(i64::MAX),
            sha256: hex::encode(attachment.sha256),
            author: attachment.uploaded_by.to_string(),
            author_email: attachment.uploader_email.as_ref().map(ToString::to_string),
            created_at: attachment.created_at,
        }
    }

    pub(crate) fn into_domain(self) -> Result<Attachment, DomainError> {
        Ok(Attachment {
            id: AttachmentId::from_uuid(self.id),
            team_id: TeamId::from_uuid(self.team_id),
            run_id: RunId::from_uuid(self.run_id),
            task_id: TaskId::from_uuid(self.task_id),
            filename: self.filename,
            content_type: self.content_type,
            size: u64::try_from(self.size).map_err(|e| corrupt("attachment size", e))?,
            sha256: unhex(&self.sha256)
                .ok_or_else(|| corrupt("attachment sha256", "not 64 hex digits"))?,
            uploaded_by: parse("attachment uploader", &self.author)?,
            uploader_email: self
                .author_email
                .as_deref()
                .map(|email| parse("attachment uploader's email", email))
                .transpose()?,
            created_at: self.created_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attachment_without_an_author_email_is_inserted_by_a_statement_kept_prepared() {
        use diesel::pg::Pg;
        use diesel::query_builder::QueryFragment;
        let row = AttachmentRow {
            team_id: Uuid::nil(),
            id: Uuid::nil(),
            run_id: Uuid::nil(),
            task_id: Uuid::nil(),
            filename: "a.pdf".into(),
            content_type: "application/pdf".into(),
            size: 1,
            sha256: "00".repeat(32),
            author: "api".into(),
            author_email: None,
            created_at: OffsetDateTime::UNIX_EPOCH,
        };
        let insert = diesel::insert_into(task_attachments::table).values(row);
        assert!(QueryFragment::<Pg>::is_safe_to_cache_prepared(&insert, &Pg).unwrap());
    }

    #[test]
    fn a_digest_reads_back_as_written() {
        let digest: [u8; 32] = std::array::from_fn(|i| u8::try_from(i * 7).unwrap());
        assert_eq!(unhex(&hex::encode(digest)), Some(digest));
        assert_eq!(unhex("zz"), None);
    }
}
