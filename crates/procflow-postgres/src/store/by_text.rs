//! Statements of fixed text that diesel would prepare afresh at every execution, kept
//! prepared on each connection under their text.
//!
//! diesel treats every `sql_query` and every `UPDATE` as unsafe to keep prepared (their text
//! may change from call to call), so each execution costs a `Parse` and a `Close` and a round
//! trip more, and PostgreSQL parses and plans the statement again. The worker's claims and the
//! `NOTIFY` paid that on every event (`docs/performance.md`, "Statements of fixed text").
//! [`ByText`] tells diesel that the statement it wraps is safe to keep: with no query id of its
//! own, diesel-async's cache then keys it by its SQL text and its binds' types.
//!
//! Wrap only statements whose text is a constant, is built once per process, or is one of a
//! small fixed set: every distinct text stays prepared for the life of the connection.

use diesel::QueryResult;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};

/// `query`, kept prepared under its text. See the module's documentation for what it may wrap.
#[derive(Debug)]
pub(super) struct ByText<Q>(pub(super) Q);

impl<Q> QueryId for ByText<Q> {
    type QueryId = ();
    // No static id: diesel-async's statement cache then keys the statement by its text.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: Query> Query for ByText<Q> {
    type SqlType = Q::SqlType;
}

impl<Q: QueryFragment<Pg>> QueryFragment<Pg> for ByText<Q> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }

    fn is_safe_to_cache_prepared(&self, _backend: &Pg) -> QueryResult<bool> {
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use diesel::sql_types::Integer;
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};

    use super::*;
    use crate::testing::{migrated_database, prepared_statements};

    #[derive(diesel::QueryableByName, Debug, PartialEq)]
    struct Value {
        #[diesel(sql_type = Integer)]
        v: i32,
    }

    #[tokio::test]
    async fn a_wrapped_statement_is_prepared_once_and_answers_as_before() {
        let db = migrated_database().await;
        let mut conn = AsyncPgConnection::establish(db.url())
            .await
            .expect("connect");
        let text = "SELECT $1::int + 1 AS v";
        for n in 0..3 {
            let plain: Value = diesel::sql_query(text)
                .bind::<Integer, _>(n)
                .get_result(&mut conn)
                .await
                .expect("plain");
            let kept: Value = ByText(diesel::sql_query(text).bind::<Integer, _>(n))
                .get_result(&mut conn)
                .await
                .expect("kept");
            assert_eq!(plain, kept);
            assert_eq!(kept.v, n + 1);
        }
        // diesel's own prepared an unnamed statement each time, closed at once. (The text holds
        // no `%` or `_`: as a pattern it matches itself alone.)
        assert_eq!(prepared_statements(&mut conn, text).await, 1);
    }

    #[test]
    fn diesel_would_not_keep_the_statement_unwrapped() {
        let query = diesel::sql_query("SELECT 1");
        assert!(!query.is_safe_to_cache_prepared(&Pg).unwrap());
        assert!(ByText(query).is_safe_to_cache_prepared(&Pg).unwrap());
    }
}
