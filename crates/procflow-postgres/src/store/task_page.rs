//! A page of a run's tasks by position (List run tasks), as text written once.
//!
//! diesel-async builds a statement's SQL text again on every execution, and a boxed query
//! (the page's, whose cursor is optional) is keyed in its statement cache by that text, hashed
//! each time: building, quoting and hashing 23 columns was about 3 % of the server's
//! instructions for a page of 50 tasks (`docs/performance.md`, "A run's tasks as text written
//! once"). The two texts here (the first page, a page after a cursor) are the ones diesel's
//! query builder writes for the same queries, which the tests below build and compare, so the
//! rows load as they did and the bench's floor still runs the service's statement.

use diesel::QueryResult;
use diesel::dsl;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Uuid as SqlUuid};
use uuid::Uuid;

use super::columns::run_task_columns;
use super::fixed_text::{ONE_ROW, push_ids_then_limit};
use crate::rows::run::ListedTaskRow;

/// Up to the first bind (the team), shared by both pages but for the parenthesis the cursor's
/// condition opens.
macro_rules! select_tasks_where {
    ($open:literal) => {
        concat!(
            "SELECT ",
            run_task_columns!(),
            " FROM \"run_tasks\" WHERE ",
            $open,
            "(\"run_tasks\".\"team_id\" = "
        )
    };
}

/// The first page: the text before the team, then after each bind (the run, the limit).
const FIRST: (&str, [&str; 2]) = (
    select_tasks_where!("("),
    [
        ") AND (\"run_tasks\".\"run_id\" = ",
        ")) ORDER BY \"run_tasks\".\"position\" LIMIT ",
    ],
);

/// A page after the task `c`: the text before the team, then after each bind (the run; the
/// cursor's team, run and task; its subquery's limit; the page's limit).
const AFTER: (&str, [&str; 6]) = (
    select_tasks_where!("(("),
    [
        ") AND (\"run_tasks\".\"run_id\" = ",
        ")) AND (\"run_tasks\".\"position\" > (SELECT \"c\".\"position\" FROM \"run_tasks\" \
AS \"c\" WHERE (((\"c\".\"team_id\" = ",
        ") AND (\"c\".\"run_id\" = ",
        ")) AND (\"c\".\"id\" = ",
        ")) LIMIT ",
        "))) ORDER BY \"run_tasks\".\"position\" LIMIT ",
    ],
);

/// The SQL types of the columns both texts select: those of the same selection in diesel's DSL.
type Selected = dsl::SqlTypeOf<dsl::AsSelect<ListedTaskRow, Pg>>;

/// The first `limit` tasks of the run `run` of `team`, by position. Load it as
/// [`ListedTaskRow`].
#[derive(Debug)]
pub(super) struct FirstTasks {
    team: Uuid,
    run: Uuid,
    limit: i64,
}

impl FirstTasks {
    pub(super) fn new(team: Uuid, run: Uuid, limit: i64) -> Self {
        Self { team, run, limit }
    }
}

/// The `limit` tasks of the run `run` of `team` after the task `after`, by position; none when
/// `after` is not one of the run's tasks. Load it as [`ListedTaskRow`].
#[derive(Debug)]
pub(super) struct TasksAfter {
    team: Uuid,
    run: Uuid,
    after: Uuid,
    limit: i64,
}

impl TasksAfter {
    pub(super) fn new(team: Uuid, run: Uuid, after: Uuid, limit: i64) -> Self {
        Self {
            team,
            run,
            after,
            limit,
        }
    }
}

impl QueryId for FirstTasks {
    type QueryId = Self;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl QueryId for TasksAfter {
    type QueryId = Self;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl Query for FirstTasks {
    type SqlType = Selected;
}

impl Query for TasksAfter {
    type SqlType = Selected;
}

impl QueryFragment<Pg> for FirstTasks {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let (select, [run, limit]) = FIRST;
        push_ids_then_limit(
            &mut out,
            select,
            &[(&self.team, run), (&self.run, limit)],
            &self.limit,
        )
    }
}

impl QueryFragment<Pg> for TasksAfter {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let (select, [run, c_team, c_run, c_task, c_limit, limit]) = AFTER;
        out.push_sql(select);
        out.push_bind_param::<SqlUuid, _>(&self.team)?;
        out.push_sql(run);
        out.push_bind_param::<SqlUuid, _>(&self.run)?;
        out.push_sql(c_team);
        out.push_bind_param::<SqlUuid, _>(&self.team)?;
        out.push_sql(c_run);
        out.push_bind_param::<SqlUuid, _>(&self.run)?;
        out.push_sql(c_task);
        out.push_bind_param::<SqlUuid, _>(&self.after)?;
        out.push_sql(c_limit);
        out.push_bind_param::<BigInt, _>(&ONE_ROW)?;
        out.push_sql(limit);
        out.push_bind_param::<BigInt, _>(&self.limit)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use diesel::prelude::*;

    use super::*;
    use crate::schema::run_tasks;
    use crate::store::shown::shown;

    fn of_run(team: Uuid, run: Uuid) -> run_tasks::BoxedQuery<'static, Pg> {
        run_tasks::table
            .filter(run_tasks::team_id.eq(team))
            .filter(run_tasks::run_id.eq(run))
            .into_boxed()
    }

    #[test]
    fn the_first_page_is_the_text_diesel_writes_for_the_same_query() {
        let (team, run) = (Uuid::now_v7(), Uuid::now_v7());
        let dsl = of_run(team, run)
            .order(run_tasks::position)
            .limit(51)
            .select(ListedTaskRow::as_select());
        assert_eq!(shown(&FirstTasks::new(team, run, 51)), shown(&dsl));
    }

    #[test]
    fn a_page_after_a_cursor_is_the_text_diesel_writes_for_the_same_query() {
        let (team, run, after) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
        let c = diesel::alias!(run_tasks as c);
        let position = c
            .filter(c.field(run_tasks::team_id).eq(team))
            .filter(c.field(run_tasks::run_id).eq(run))
            .filter(c.field(run_tasks::id).eq(after))
            .select(c.field(run_tasks::position))
            .single_value();
        let dsl = of_run(team, run)
            .filter(run_tasks::position.nullable().gt(position))
            .order(run_tasks::position)
            .limit(21)
            .select(ListedTaskRow::as_select());
        assert_eq!(shown(&TasksAfter::new(team, run, after, 21)), shown(&dsl));
    }

    #[test]
    fn both_statements_are_kept_prepared_under_ids_of_their_own() {
        let (first, after) = (
            FirstTasks::new(Uuid::nil(), Uuid::nil(), 1),
            TasksAfter::new(Uuid::nil(), Uuid::nil(), Uuid::nil(), 1),
        );
        assert!(first.is_safe_to_cache_prepared(&Pg).unwrap());
        assert!(after.is_safe_to_cache_prepared(&Pg).unwrap());
        // diesel-async's cache keys a statement of static id by that id alone.
        assert_ne!(FirstTasks::query_id(), TasksAfter::query_id());
        assert!(FirstTasks::query_id().is_some());
    }
}
