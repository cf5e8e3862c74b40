//! One event appended to the outbox: `INSERT ... VALUES` of one row, as text written once.
//!
//! Most changes raise one event (a task completed, a run created). The outbox's insert of many
//! (`unnest::InsertOutbox`) binds each column as an array, and diesel writes an array element
//! by element into buffers of its own: for one event that was 16,500 of a task update's
//! 480,000 instructions (callgrind, `docs/performance.md`, "A task update's writes"). Here
//! the seven values are bound as they are, under a static query id, so that each connection
//! keeps the statement prepared; the test below holds the text to the one diesel writes for
//! the same single-row insert.

use diesel::QueryResult;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};

use crate::rows::outbox::NewOutboxRow;

/// The statement up to its first bind.
const INSERT: &str = "INSERT INTO \"outbox\" (\"id\", \"team_id\", \"kind\", \"payload\", \
\"occurred_at\", \"due_at\", \"webhook_event\") VALUES (";

/// `INSERT INTO outbox (...) VALUES (...)` of one event's row.
#[derive(Debug)]
pub(super) struct InsertEvent<'a>(pub(super) &'a NewOutboxRow);

impl QueryId for InsertEvent<'_> {
    type QueryId = InsertEvent<'static>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl QueryFragment<Pg> for InsertEvent<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let row = self.0;
        out.push_sql(INSERT);
        out.push_bind_param::<SqlUuid, _>(&row.id)?;
        out.push_sql(", ");
        out.push_bind_param::<SqlUuid, _>(&row.team_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(&row.kind)?;
        out.push_sql(", ");
        out.push_bind_param::<Jsonb, _>(&row.payload)?;
        out.push_sql(", ");
        out.push_bind_param::<Timestamptz, _>(&row.occurred_at)?;
        out.push_sql(", ");
        out.push_bind_param::<Timestamptz, _>(&row.due_at)?;
        out.push_sql(", ");
        out.push_bind_param::<Nullable<Text>, _>(&row.webhook_event)?;
        out.push_sql(")");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use time::OffsetDateTime;
    use uuid::Uuid;

    use super::*;
    use crate::rows::json::JsonText;
    use crate::schema::outbox;
    use crate::store::shown::text as sql;

    fn row(webhook_event: Option<&'static str>) -> NewOutboxRow {
        NewOutboxRow {
            id: Uuid::now_v7(),
            team_id: Uuid::now_v7(),
            kind: "task_completed",
            payload: JsonText("{}".into()),
            occurred_at: OffsetDateTime::UNIX_EPOCH,
            due_at: OffsetDateTime::UNIX_EPOCH,
            webhook_event,
        }
    }

    /// The same text as diesel's own insert of the row, whichever event it is: an event no
    /// webhook names binds NULL where diesel's `Insertable` would write `DEFAULT` (the
    /// column's default is NULL), so the one text serves both.
    #[test]
    fn the_text_is_diesels_single_row_insert() {
        let named = row(Some("process_step.completed"));
        let diesels = sql(&diesel::insert_into(outbox::table).values(&named));
        assert_eq!(sql(&InsertEvent(&named)), diesels);
        assert_eq!(sql(&InsertEvent(&row(None))), diesels);
    }
}
