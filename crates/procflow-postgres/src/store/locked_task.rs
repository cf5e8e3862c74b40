//! The statement every task update starts with: the run and one of its tasks, read and locked
//! together, as text written once.
//!
//! diesel-async builds a statement's SQL text again on every execution, prepared or not,
//! quoting each identifier as it goes: for this join of 38 columns that was most of the
//! text-building a task update paid (`docs/performance.md`, "Statements of fixed text"). The
//! text here is the one diesel's query builder writes for the same query, which the test
//! below builds and compares, so the rows it answers load as they did.

use diesel::QueryResult;
use diesel::dsl;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use uuid::Uuid;

use super::columns::run_task_columns;
use super::fixed_text::{ONE_ROW, push_ids_then_limit};
use crate::rows::run::{ListedTaskRow, RunHeaderRow};

/// `SELECT <run header>, <task> FROM runs JOIN run_tasks ... FOR UPDATE` up to its first bind;
/// then the team, the run, the task and the limit (1, a bind as in diesel's own `first`), each
/// bind followed by the text of `AFTER` at its position.
const SELECT: &str = concat!(
    "SELECT \"runs\".\"team_id\", \"runs\".\"id\", \"runs\".\"template_id\", \
\"runs\".\"template_version\", \"runs\".\"title\", \"runs\".\"status\", \"runs\".\"started_by\", \
\"runs\".\"timezone\", \"runs\".\"due_date\", \"runs\".\"is_shared\", \"runs\".\"open_tasks\", \
\"runs\".\"created_at\", \"runs\".\"updated_at\", \"runs\".\"completed_at\", \
\"runs\".\"logic_state\", ",
    run_task_columns!(),
    " FROM (\"runs\" INNER JOIN \"run_tasks\" ON ((\"run_tasks\".\"team_id\" = \"runs\".\"team_id\") \
AND (\"run_tasks\".\"run_id\" = \"runs\".\"id\"))) \
WHERE (((\"runs\".\"team_id\" = "
);

/// The text after each bind, in the binds' order.
const AFTER: [&str; 4] = [
    ") AND (\"runs\".\"id\" = ",
    ")) AND (\"run_tasks\".\"id\" = ",
    ")) LIMIT ",
    " FOR UPDATE",
];

/// The SQL types of the columns `TEXT` selects: those of the same selection in diesel's DSL.
type Selected = dsl::SqlTypeOf<(
    dsl::AsSelect<RunHeaderRow, Pg>,
    dsl::AsSelect<ListedTaskRow, Pg>,
)>;

/// The run `run` of `team` and its task `task`, both rows locked for the rest of the
/// transaction. Load it as `(RunHeaderRow, ListedTaskRow)` (the task's elements as stored).
#[derive(Debug)]
pub(super) struct LockedRunAndTask {
    team: Uuid,
    run: Uuid,
    task: Uuid,
}

impl LockedRunAndTask {
    pub(super) fn new(team: Uuid, run: Uuid, task: Uuid) -> Self {
        Self { team, run, task }
    }
}

impl QueryId for LockedRunAndTask {
    type QueryId = Self;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl Query for LockedRunAndTask {
    type SqlType = Selected;
}

impl QueryFragment<Pg> for LockedRunAndTask {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let [team, run, task, end] = AFTER;
        let ids = [(&self.team, team), (&self.run, run), (&self.task, task)];
        push_ids_then_limit(&mut out, SELECT, &ids, &ONE_ROW)?;
        out.push_sql(end);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use diesel::prelude::*;

    use super::*;
    use crate::rows::elements::Elements;
    use crate::rows::run::RunTaskRow;
    use crate::schema::{run_tasks, runs};
    use crate::store::shown::shown;

    #[test]
    fn the_text_is_the_one_diesel_writes_for_the_same_query_with_the_same_binds() {
        let (team, run, task) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
        let dsl = runs::table
            .inner_join(
                run_tasks::table.on(run_tasks::team_id
                    .eq(runs::team_id)
                    .and(run_tasks::run_id.eq(runs::id))),
            )
            .filter(runs::team_id.eq(team))
            .filter(runs::id.eq(run))
            .filter(run_tasks::id.eq(task))
            .select((
                RunHeaderRow::as_select(),
                RunTaskRow::<Elements>::as_select(),
            ))
            .for_update()
            .limit(1);
        assert_eq!(shown(&LockedRunAndTask::new(team, run, task)), shown(&dsl));
    }

    #[test]
    fn the_statement_is_kept_prepared() {
        let query = LockedRunAndTask::new(Uuid::nil(), Uuid::nil(), Uuid::nil());
        assert!(query.is_safe_to_cache_prepared(&Pg).unwrap());
        assert!(LockedRunAndTask::query_id().is_some());
    }
}
