//! The first page of a task's thread, as text written once, as a run's first page of tasks is
//! (`task_page.rs`): its boxed query's text was built, quoted and hashed on every request, 3 %
//! of the instructions of a page of 20 comments (`docs/performance.md`, "A thread's comments
//! and the schedules written field by field"). A page after a cursor, rarer, stays a query of
//! diesel's DSL. The test below builds diesel's query for the same page and compares.

use diesel::QueryResult;
use diesel::dsl;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use uuid::Uuid;

use super::columns::comment_columns;
use super::fixed_text::push_ids_then_limit;
use crate::rows::comment::CommentRow;

/// The text before the team, then after each bind (the run, the task, the limit).
const FIRST: (&str, [&str; 3]) = (
    concat!(
        "SELECT ",
        comment_columns!(),
        " FROM \"task_comments\" WHERE (((\"task_comments\".\"team_id\" = "
    ),
    [
        ") AND (\"task_comments\".\"run_id\" = ",
        ")) AND (\"task_comments\".\"task_id\" = ",
        ")) ORDER BY \"task_comments\".\"id\" LIMIT ",
    ],
);

/// The SQL types of the columns selected: those of the same selection in diesel's DSL.
type Selected = dsl::SqlTypeOf<dsl::AsSelect<CommentRow, Pg>>;

/// The first `limit` comments of the thread of the task `task` of the run `run` of `team`,
/// oldest first. Load it as [`CommentRow`].
#[derive(Debug)]
pub(super) struct FirstComments {
    team: Uuid,
    run: Uuid,
    task: Uuid,
    limit: i64,
}

impl FirstComments {
    pub(super) fn new(team: Uuid, run: Uuid, task: Uuid, limit: i64) -> Self {
        Self {
            team,
            run,
            task,
            limit,
        }
    }
}

impl QueryId for FirstComments {
    type QueryId = Self;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl Query for FirstComments {
    type SqlType = Selected;
}

impl QueryFragment<Pg> for FirstComments {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let (select, [run, task, limit]) = FIRST;
        let ids = [(&self.team, run), (&self.run, task), (&self.task, limit)];
        push_ids_then_limit(&mut out, select, &ids, &self.limit)
    }
}

#[cfg(test)]
mod tests {
    use diesel::prelude::*;

    use super::*;
    use crate::schema::task_comments;
    use crate::store::shown::shown;

    #[test]
    fn the_first_page_is_the_text_diesel_writes_for_the_same_query() {
        let (team, run, task) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
        let dsl = task_comments::table
            .filter(task_comments::team_id.eq(team))
            .filter(task_comments::run_id.eq(run))
            .filter(task_comments::task_id.eq(task))
            .into_boxed()
            .order(task_comments::id)
            .limit(21)
            .select(CommentRow::as_select());
        assert_eq!(shown(&FirstComments::new(team, run, task, 21)), shown(&dsl));
    }

    #[test]
    fn the_first_page_is_kept_prepared_under_an_id_of_its_own() {
        let first = FirstComments::new(Uuid::nil(), Uuid::nil(), Uuid::nil(), 1);
        assert!(first.is_safe_to_cache_prepared(&Pg).unwrap());
        assert!(FirstComments::query_id().is_some());
    }
}
