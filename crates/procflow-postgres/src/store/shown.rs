//! Test support for the statements written by hand (`task_page`, `locked_task`, `run_page`,
//! `inbox_page`, `event_insert`, `comment_insert`, `task_write`, `keyed_update`): each is
//! compared with the statement diesel's DSL builds for the same query, text and binds, as
//! `debug_query` writes them, or with the text it must have.

use diesel::pg::Pg;
use diesel::query_builder::QueryFragment;

/// The statement as diesel's query builder writes it, binds shown.
pub(super) fn shown<Q: QueryFragment<Pg>>(query: &Q) -> String {
    diesel::debug_query::<Pg, _>(query).to_string()
}

/// The statement's SQL text alone, without its binds.
pub(super) fn text<Q: QueryFragment<Pg>>(query: &Q) -> String {
    let shown = shown(query);
    shown
        .split(" -- binds:")
        .next()
        .unwrap_or_default()
        .to_owned()
}
