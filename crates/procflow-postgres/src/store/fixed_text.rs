//! The shape most statements of fixed text share (`one_task`, `thread`'s run title,
//! `thread_page`, `locked_task`, `task_page`): their text up to the first bind, then ids, each
//! followed by the text after it, then a limit. Each statement's test compares the whole with
//! diesel's own text.

use diesel::QueryResult;
use diesel::pg::Pg;
use diesel::query_builder::AstPass;
use diesel::sql_types::{BigInt, Uuid as SqlUuid};
use uuid::Uuid;

/// The limit of a statement that reads one row (a bind, as in diesel's own `first`), and of a
/// subquery that finds one row.
pub(super) const ONE_ROW: i64 = 1;

/// Pushes `head`, then each id's bind and the text after it, then the limit's bind.
pub(super) fn push_ids_then_limit<'b>(
    out: &mut AstPass<'_, 'b, Pg>,
    head: &str,
    ids: &[(&'b Uuid, &str)],
    limit: &'b i64,
) -> QueryResult<()> {
    out.push_sql(head);
    for (id, after) in ids {
        out.push_bind_param::<SqlUuid, _>(*id)?;
        out.push_sql(after);
    }
    out.push_bind_param::<BigInt, _>(limit)
}
