//! What a task's thread of comments and attachments hangs on: the run, for its title, and the
//! task, for whether it may take a comment or a file.

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use futures_util::future::join;
use procflow_domain::error::{DomainResult, Resource};
use procflow_domain::ids::{RunId, TaskId, TeamId};

use super::not_found;
use super::one_task::{OneTask, Shared, Unlocked};
use crate::error::db_error;
use crate::rows::run::BareTaskRow;
use crate::schema::runs;

/// The run's title, or `NotFound(Run)`.
async fn run_title(mut conn: &AsyncPgConnection, team: TeamId, run: RunId) -> DomainResult<String> {
    runs::table
        .filter(runs::team_id.eq(team.as_uuid()))
        .filter(runs::id.eq(run.as_uuid()))
        .select(runs::title)
        .first(&mut conn)
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
        OneTask::<Shared, BareTaskRow>::new(team, run, task)
            .get_result(&mut conn)
            .await
    } else {
        OneTask::<Unlocked, BareTaskRow>::new(team, run, task)
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
