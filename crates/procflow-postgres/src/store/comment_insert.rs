//! One comment inserted: `INSERT ... VALUES` of one row, as text written once.
//!
//! diesel's insert of an `Insertable` row writes its twelve quoted columns' text again on every
//! execution before it looks for the prepared statement: the larger part of the 21,000
//! instructions a comment's POST spent building its two inserts' text (`docs/performance.md`,
//! "A comment's decision without the task's elements"). Here the values are bound as they are,
//! under a static query id, so that each connection keeps the statement prepared; the test
//! below holds the text and the binds to those of diesel's insert of the same row.

use diesel::QueryResult;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{Array, Bool, Nullable, Text, Timestamptz, Uuid as SqlUuid};

use crate::rows::comment::CommentRow;

/// The statement up to its first bind.
const INSERT: &str = "INSERT INTO \"task_comments\" (\"team_id\", \"id\", \"run_id\", \
\"task_id\", \"author\", \"author_email\", \"body\", \"mentions\", \"deleted\", \"created_at\", \
\"edited_at\", \"attachment_ids\") VALUES (";

/// `INSERT INTO task_comments (...) VALUES (...)` of one comment's row.
#[derive(Debug)]
pub(super) struct InsertComment<'a>(pub(super) &'a CommentRow);

impl QueryId for InsertComment<'_> {
    type QueryId = InsertComment<'static>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl QueryFragment<Pg> for InsertComment<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let row = self.0;
        out.push_sql(INSERT);
        out.push_bind_param::<SqlUuid, _>(&row.team_id)?;
        out.push_sql(", ");
        out.push_bind_param::<SqlUuid, _>(&row.id)?;
        out.push_sql(", ");
        out.push_bind_param::<SqlUuid, _>(&row.run_id)?;
        out.push_sql(", ");
        out.push_bind_param::<SqlUuid, _>(&row.task_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(&row.author)?;
        out.push_sql(", ");
        out.push_bind_param::<Nullable<Text>, _>(&row.author_email)?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(&row.body)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Nullable<SqlUuid>>, _>(&row.mentions)?;
        out.push_sql(", ");
        out.push_bind_param::<Bool, _>(&row.deleted)?;
        out.push_sql(", ");
        out.push_bind_param::<Timestamptz, _>(&row.created_at)?;
        out.push_sql(", ");
        out.push_bind_param::<Nullable<Timestamptz>, _>(&row.edited_at)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Nullable<SqlUuid>>, _>(&row.attachment_ids)?;
        out.push_sql(")");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use diesel::query_builder::QueryFragment;
    use time::OffsetDateTime;
    use uuid::Uuid;

    use super::*;
    use crate::schema::task_comments;
    use crate::store::shown::shown;

    fn row(author_email: Option<&str>, edited: bool, ids: usize) -> CommentRow {
        CommentRow {
            team_id: Uuid::now_v7(),
            id: Uuid::now_v7(),
            run_id: Uuid::now_v7(),
            task_id: Uuid::now_v7(),
            author: "api".into(),
            author_email: author_email.map(str::to_owned),
            body: "Please check clause 4".into(),
            mentions: (0..ids).map(|_| Some(Uuid::now_v7())).collect(),
            deleted: false,
            created_at: OffsetDateTime::UNIX_EPOCH,
            edited_at: edited.then_some(OffsetDateTime::UNIX_EPOCH),
            attachment_ids: (0..ids).map(|_| Some(Uuid::now_v7())).collect(),
        }
    }

    /// Text and binds as diesel's own insert of the row, whichever of its optional values
    /// are there: diesel writes `None` as a NULL bind for this row (not `DEFAULT`), so the one
    /// text serves every comment.
    #[test]
    fn the_text_and_binds_are_diesels_single_row_insert() {
        for comment in [row(None, false, 0), row(Some("ada@example.org"), true, 2)] {
            assert_eq!(
                shown(&InsertComment(&comment)),
                shown(&diesel::insert_into(task_comments::table).values(&comment))
            );
        }
    }

    #[test]
    fn the_statement_is_kept_prepared() {
        let comment = row(None, false, 0);
        assert!(
            InsertComment(&comment)
                .is_safe_to_cache_prepared(&Pg)
                .unwrap()
        );
        assert!(InsertComment::query_id().is_some());
    }
}
