//! What a task's thread of comments and attachments hangs on: the run, for its title, and the
//! task, for whether it may take a comment or a file.

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::Text;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use futures_util::future::join;
use procflow_domain::error::{DomainResult, Resource};
use procflow_domain::ids::{RunId, TaskId, TeamId};
use uuid::Uuid;

use super::fixed_text::{ONE_ROW, push_ids_then_limit};
use super::not_found;
use super::one_task::{OneTask, Shared, Unlocked, Whole};
use crate::error::db_error;
use crate::rows::run::BareTaskRow;

/// The text before the team's bind, then after each bind (the run, the limit).
const TITLE: (&str, [&str; 2]) = (
    "SELECT \"runs\".\"title\" FROM \"runs\" WHERE ((\"runs\".\"team_id\" = ",
    [") AND (\"runs\".\"id\" = ", ")) LIMIT "],
);

/// The title of the run `run` of `team`, as text written once (diesel's DSL wrote it again
/// for every comment): the test below compares it with diesel's.
#[derive(Debug)]
struct RunTitle {
    team: Uuid,
    run: Uuid,
}

impl QueryId for RunTitle {
    type QueryId = Self;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl Query for RunTitle {
    type SqlType = Text;
}

impl QueryFragment<Pg> for RunTitle {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let (select, [run, limit]) = TITLE;
        push_ids_then_limit(
            &mut out,
            select,
            &[(&self.team, run), (&self.run, limit)],
            &ONE_ROW,
        )
    }
}

/// The run's title, or `NotFound(Run)`.
async fn run_title(mut conn: &AsyncPgConnection, team: TeamId, run: RunId) -> DomainResult<String> {
    RunTitle {
        team: team.as_uuid(),
        run: run.as_uuid(),
    }
    .get_result(&mut conn)
    .await
    .optional()
    .map_err(db_error)?
    .ok_or(not_found(Resource::Run))
}

/// The task without its elements (the decisions on a thread read none), share-locked when
/// `lock`: a change of it (hiding it) waits for the comment's transaction, and the comment for
/// the change's.
async fn task(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    run: RunId,
    task: TaskId,
    lock: bool,
) -> DomainResult<BareTaskRow> {
    let (team, run, task) = (team.as_uuid(), run.as_uuid(), task.as_uuid());
    let found = if lock {
        OneTask::<Shared, Whole<BareTaskRow>>::new(team, run, task)
            .get_result(&mut conn)
            .await
    } else {
        OneTask::<Unlocked, Whole<BareTaskRow>>::new(team, run, task)
            .get_result(&mut conn)
            .await
    };
    found
        .optional()
        .map_err(db_error)?
        .ok_or(not_found(Resource::Task))
}

/// The run's title and the task (share-locked when `lock`), read together: one round trip.
/// A missing run answers as such before a missing task.
pub(super) async fn thread_of(
    conn: &AsyncPgConnection,
    team: TeamId,
    run: RunId,
    task_id: TaskId,
    lock: bool,
) -> DomainResult<(String, BareTaskRow)> {
    let (title, found) = join(
        run_title(conn, team, run),
        task(conn, team, run, task_id, lock),
    )
    .await;
    Ok((title?, found?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::runs;
    use crate::store::shown::shown;

    #[test]
    fn the_runs_title_is_read_with_diesels_text_and_binds() {
        let (team, run) = (Uuid::now_v7(), Uuid::now_v7());
        let dsl = runs::table
            .filter(runs::team_id.eq(team))
            .filter(runs::id.eq(run))
            .select(runs::title)
            .limit(1);
        assert_eq!(shown(&RunTitle { team, run }), shown(&dsl));
        assert!(
            RunTitle { team, run }
                .is_safe_to_cache_prepared(&Pg)
                .unwrap()
        );
    }
}
