//! One task of a run read by its ids, unlocked or share-locked, whole or its assignee alone,
//! as text written once: a comment's or an attachment's write reads its task twice (for its
//! assignee, then locked in the write's transaction), and diesel built these quoted columns'
//! text again on every execution, about 20,000 instructions for the whole row, a tenth of a
//! comment's POST (`docs/performance.md`, "A task read by its ids as fixed text"). The tests
//! below build diesel's query for the same reads and compare.

use std::marker::PhantomData;

use diesel::dsl;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{Nullable, Text};
use diesel::{QueryResult, Selectable};
use uuid::Uuid;

use super::columns::run_task_columns;
use super::fixed_text::{ONE_ROW, push_ids_then_limit};
use crate::rows::run::RunTaskRow;

/// The text after the columns, up to the team's bind, then after each bind (the run, the
/// task, the limit).
const FROM: (&str, [&str; 3]) = (
    " FROM \"run_tasks\" WHERE (((\"run_tasks\".\"team_id\" = ",
    [
        ") AND (\"run_tasks\".\"run_id\" = ",
        ")) AND (\"run_tasks\".\"id\" = ",
        ")) LIMIT ",
    ],
);

/// What the read selects of the task: the columns' text, as diesel writes it, and their SQL
/// types.
pub(super) trait Columns: 'static {
    /// The columns, quoted and separated as diesel writes them.
    const TEXT: &'static str;
    /// Their SQL types: those of the same selection in diesel's DSL.
    type SqlType;
}

/// The whole row, loaded as `R`: a [`RunTaskRow`] of any form of its elements (the text is
/// the same, as the columns are).
#[derive(Debug)]
pub(super) struct Whole<R>(PhantomData<R>);

impl<R: Selectable<Pg> + 'static> Columns for Whole<R>
where
    R::SelectExpression: QueryId,
{
    const TEXT: &'static str = run_task_columns!();
    type SqlType = dsl::SqlTypeOf<dsl::AsSelect<R, Pg>>;
}

/// The assignee alone, loaded as `Option<String>`.
#[derive(Debug)]
pub(super) struct AssigneeColumn;

impl Columns for AssigneeColumn {
    const TEXT: &'static str = "\"run_tasks\".\"assignee\"";
    type SqlType = Nullable<Text>;
}

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

/// The columns `C` of the task `task` of the run `run` of `team`, locked as `L` says.
#[derive(Debug)]
pub(super) struct OneTask<L: Lock, C: Columns = Whole<RunTaskRow>> {
    team: Uuid,
    run: Uuid,
    task: Uuid,
    read: PhantomData<(L, C)>,
}

impl<L: Lock, C: Columns> OneTask<L, C> {
    pub(super) fn new(team: Uuid, run: Uuid, task: Uuid) -> Self {
        Self {
            team,
            run,
            task,
            read: PhantomData,
        }
    }
}

impl<L: Lock, C: Columns> QueryId for OneTask<L, C> {
    type QueryId = Self;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<L: Lock, C: Columns> Query for OneTask<L, C> {
    type SqlType = C::SqlType;
}

impl<L: Lock, C: Columns> QueryFragment<Pg> for OneTask<L, C> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("SELECT ");
        out.push_sql(C::TEXT);
        let (from, [run, task, limit]) = FROM;
        let ids = [(&self.team, run), (&self.run, task), (&self.task, limit)];
        push_ids_then_limit(&mut out, from, &ids, &ONE_ROW)?;
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
        assert_eq!(
            shown(&OneTask::<Unlocked, AssigneeColumn>::new(team, run, task)),
            shown(
                &run_tasks::table
                    .filter(run_tasks::team_id.eq(team))
                    .filter(run_tasks::run_id.eq(run))
                    .filter(run_tasks::id.eq(task))
                    .select(run_tasks::assignee)
                    .limit(1)
            )
        );
    }

    #[test]
    fn the_statements_are_kept_prepared_each_under_its_own_id() {
        let unlocked = OneTask::<Unlocked>::new(Uuid::nil(), Uuid::nil(), Uuid::nil());
        let shared = OneTask::<Shared>::new(Uuid::nil(), Uuid::nil(), Uuid::nil());
        let assignee =
            OneTask::<Unlocked, AssigneeColumn>::new(Uuid::nil(), Uuid::nil(), Uuid::nil());
        assert!(unlocked.is_safe_to_cache_prepared(&Pg).unwrap());
        assert!(shared.is_safe_to_cache_prepared(&Pg).unwrap());
        assert!(assignee.is_safe_to_cache_prepared(&Pg).unwrap());
        let ids = [
            OneTask::<Unlocked>::query_id(),
            OneTask::<Shared>::query_id(),
            OneTask::<Unlocked, AssigneeColumn>::query_id(),
        ];
        assert!(ids.iter().all(Option::is_some));
        assert!(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2]);
    }
}
