//! One task of a run read by its ids, unlocked or share-locked, as text written once: a
//! comment's or an attachment's write reads its task twice (for its assignee, then locked in
//! the write's transaction), and diesel built these 23 quoted columns' text again on every
//! execution, about 20,000 instructions each, a tenth of a comment's POST
//! (`docs/performance.md`, "A task read by its ids as fixed text"). The tests below build
//! diesel's query for the same read and compare.

use std::marker::PhantomData;

use diesel::dsl;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::{QueryResult, Selectable};
use uuid::Uuid;

use super::columns::run_task_columns;
use super::fixed_text::push_ids_then_limit;
use crate::rows::run::RunTaskRow;

/// The text before the team, then after each bind (the run, the task, the limit).
const SELECT: (&str, [&str; 3]) = (
    concat!(
        "SELECT ",
        run_task_columns!(),
        " FROM \"run_tasks\" WHERE (((\"run_tasks\".\"team_id\" = "
    ),
    [
        ") AND (\"run_tasks\".\"run_id\" = ",
        ")) AND (\"run_tasks\".\"id\" = ",
        ")) LIMIT ",
    ],
);

/// How the read locks the task's row: the text after the statement's limit.
pub(super) trait Lock: 'static {
    /// The locking clause, or nothing.
    const CLAUSE: &'static str;
}

/// Read without a lock.
#[derive(Debug)]
pub(super) struct Unlocked;

impl Lock for Unlocked {
    const CLAUSE: &'static str = "";
}

/// Share-locked for the rest of the transaction: a change of the task waits for it.
#[derive(Debug)]
pub(super) struct Shared;

impl Lock for Shared {
    const CLAUSE: &'static str = " FOR SHARE";
}

/// The task `task` of the run `run` of `team`, locked as `L` says, loaded as `R`: a
/// [`RunTaskRow`] of any form of its elements (the text is the same, as the columns are).
#[derive(Debug)]
pub(super) struct OneTask<L: Lock, R = RunTaskRow> {
    team: Uuid,
    run: Uuid,
    task: Uuid,
    lock: PhantomData<(L, R)>,
}

impl<L: Lock, R> OneTask<L, R> {
    pub(super) fn new(team: Uuid, run: Uuid, task: Uuid) -> Self {
        Self {
            team,
            run,
            task,
            lock: PhantomData,
        }
    }
}

/// The one row the statement may answer (a bind, as in diesel's own `first`).
const LIMIT: i64 = 1;

impl<L: Lock, R: 'static> QueryId for OneTask<L, R> {
    type QueryId = Self;
    const HAS_STATIC_QUERY_ID: bool = true;
}

/// The SQL types of the columns selected: those of the same selection in diesel's DSL.
impl<L: Lock, R: Selectable<Pg>> Query for OneTask<L, R>
where
    R::SelectExpression: QueryId,
{
    type SqlType = dsl::SqlTypeOf<dsl::AsSelect<R, Pg>>;
}

impl<L: Lock, R> QueryFragment<Pg> for OneTask<L, R> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let (select, [run, task, limit]) = SELECT;
        let ids = [(&self.team, run), (&self.run, task), (&self.task, limit)];
        push_ids_then_limit(&mut out, select, &ids, &LIMIT)?;
        out.push_sql(L::CLAUSE);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use diesel::prelude::*;

    use super::*;
    use crate::rows::elements::Elements;
    use crate::schema::run_tasks;
    use crate::store::shown::shown;

    #[test]
    fn the_texts_are_the_ones_diesel_writes_for_the_same_reads_with_the_same_binds() {
        let (team, run, task) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
        let dsl = || {
            run_tasks::table
                .filter(run_tasks::team_id.eq(team))
                .filter(run_tasks::run_id.eq(run))
                .filter(run_tasks::id.eq(task))
                .select(RunTaskRow::<Elements>::as_select())
                .limit(1)
        };
        assert_eq!(
            shown(&OneTask::<Unlocked>::new(team, run, task)),
            shown(&dsl())
        );
        assert_eq!(
            shown(&OneTask::<Shared>::new(team, run, task)),
            shown(&dsl().for_share())
        );
    }

    #[test]
    fn both_statements_are_kept_prepared_each_under_its_own_id() {
        let unlocked = OneTask::<Unlocked>::new(Uuid::nil(), Uuid::nil(), Uuid::nil());
        let shared = OneTask::<Shared>::new(Uuid::nil(), Uuid::nil(), Uuid::nil());
        assert!(unlocked.is_safe_to_cache_prepared(&Pg).unwrap());
        assert!(shared.is_safe_to_cache_prepared(&Pg).unwrap());
        assert!(OneTask::<Unlocked>::query_id().is_some());
        assert_ne!(
            OneTask::<Unlocked>::query_id(),
            OneTask::<Shared>::query_id()
        );
    }
}
