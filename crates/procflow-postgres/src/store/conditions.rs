//! Conditions of statements written as fixed text, nested as diesel's query builder nests a
//! chain of `.filter`s: `((c1 AND c2) AND c3)`. The writer opens one parenthesis per condition
//! after the first ([`open`]), writes the first bare, and each later one closes its own
//! ([`and`]).

use diesel::QueryResult;
use diesel::pg::Pg;
use diesel::query_builder::AstPass;
use diesel::serialize::ToSql;
use diesel::sql_types::HasSqlType;

/// The parentheses of a chain of `conditions` conditions.
pub(super) fn open(out: &mut AstPass<'_, '_, Pg>, conditions: usize) {
    for _ in 1..conditions {
        out.push_sql("(");
    }
}

/// One more condition of the chain, `(<lhs>$n)`, closing the parenthesis opened for it.
pub(super) fn and<'b, T, U>(
    out: &mut AstPass<'_, 'b, Pg>,
    lhs: &'static str,
    value: &'b U,
) -> QueryResult<()>
where
    Pg: HasSqlType<T>,
    U: ToSql<T, Pg> + ?Sized,
{
    out.push_sql(" AND ");
    out.push_sql(lhs);
    out.push_bind_param::<T, U>(value)?;
    out.push_sql("))");
    Ok(())
}
