//! Test support for the statements written by hand (`task_page`, `locked_task`, `run_page`,
//! `inbox_page`): each is compared with the statement diesel's DSL builds for the same query,
//! text and binds, as `debug_query` writes them.

use diesel::pg::Pg;
use diesel::query_builder::QueryFragment;

/// The statement as diesel's query builder writes it, binds shown.
pub(super) fn shown<Q: QueryFragment<Pg>>(query: &Q) -> String {
    diesel::debug_query::<Pg, _>(query).to_string()
}
