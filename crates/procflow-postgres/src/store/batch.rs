//! A batch of task changes on one run (`RunStore::update_tasks`), in set-based statements: the
//! run locked and the batch's tasks read (pipelined), then every changed task in one `UPDATE
//! ... FROM unnest(...)`, the run header and the events (pipelined), whatever the batch's size.

use std::collections::HashMap;

use diesel::QueryResult;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{Array, Bool, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use futures_util::TryFutureExt;
use futures_util::future::{try_join, try_join4};
use procflow_domain::error::DomainResult;
use procflow_domain::ids::{RunId, TaskId, TeamId};
use procflow_domain::ports::TasksDecision;
use procflow_domain::run::{RunTask, TasksChange};
use time::OffsetDateTime;
use uuid::Uuid;

use super::append_events;
use super::flags::write_flags;
use super::plans::Plans;
use super::runs::{locked_header, with_plan, write_run};
use crate::error::{Failure, db_error};
use crate::rows::elements::Elements;
use crate::rows::run::{RunTaskChanges, RunTaskRow};
use crate::schema::run_tasks;

/// Runs the batch: see [`RunStore::update_tasks`](procflow_domain::ports::RunStore::update_tasks).
pub(super) async fn update_tasks(
    conn: &mut AsyncPgConnection,
    plans: &Plans,
    team: TeamId,
    run: RunId,
    tasks: &[TaskId],
    decide: &TasksDecision<'_>,
) -> DomainResult<TasksChange> {
    conn.transaction::<_, Failure, _>(async |conn| {
        let c: &AsyncPgConnection = conn;
        // Pipelined, and run in order: the tasks are read once the run's lock is held, so they
        // are as the last writer under that lock left them.
        let (header, rows) =
            try_join(locked_header(c, team, run), read_tasks(c, team, run, tasks)).await?;
        let before = with_plan(c, plans, header).await?;
        let mut by_id: HashMap<Uuid, RunTaskRow> = rows.into_iter().map(|r| (r.id, r)).collect();
        let current = tasks
            .iter()
            .filter_map(|id| by_id.remove(&id.as_uuid()))
            .map(RunTaskRow::into_domain)
            .collect::<DomainResult<Vec<RunTask>>>()?;
        let change = decide(&before, &current)?;
        if change.changed.is_empty() {
            append_events(c, &change.events).await?;
            return Ok(change);
        }
        let changed = change
            .tasks
            .iter()
            .filter(|task| change.changed.contains(&task.id));
        let update = UpdateRunTasks::of(team, run, changed);
        let mut to_tasks = c;
        // Independent writes under the run's lock, pipelined: one round trip.
        try_join4(
            update.execute(&mut to_tasks).map_err(db_error),
            write_run(c, &change.run, Some(&before)),
            write_flags(c, team, run, &change.flags),
            append_events(c, &change.events),
        )
        .await?;
        Ok(change)
    })
    .await
    .map_err(Into::into)
}

/// The run's tasks among `ids`, in no particular order: one statement whatever their number.
async fn read_tasks(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    run: RunId,
    ids: &[TaskId],
) -> DomainResult<Vec<RunTaskRow>> {
    let ids: Vec<Uuid> = ids.iter().map(|id| id.as_uuid()).collect();
    run_tasks::table
        .filter(run_tasks::team_id.eq(team.as_uuid()))
        .filter(run_tasks::run_id.eq(run.as_uuid()))
        .filter(run_tasks::id.eq_any(ids))
        .select(RunTaskRow::as_select())
        .load(&mut conn)
        .await
        .map_err(db_error)
}

/// `UPDATE run_tasks ... FROM unnest(...)`: the changing columns of many tasks of one run in
/// one statement whose SQL does not depend on their number (prepared afresh each time, unlike
/// the inserts of `unnest`: see `walk_ast`).
#[derive(Debug, Default)]
struct UpdateRunTasks {
    team: Uuid,
    run: Uuid,
    id: Vec<Uuid>,
    state: Vec<String>,
    completed_at: Vec<Option<OffsetDateTime>>,
    completed_by: Vec<Option<String>>,
    assignee: Vec<Option<String>>,
    decision: Vec<Option<String>>,
    comment: Vec<Option<String>>,
    custom_elements: Vec<Elements>,
    hidden: Vec<bool>,
    blocked: Vec<bool>,
}

impl UpdateRunTasks {
    fn of<'a>(team: TeamId, run: RunId, tasks: impl Iterator<Item = &'a RunTask>) -> Self {
        let mut update = Self {
            team: team.as_uuid(),
            run: run.as_uuid(),
            ..Self::default()
        };
        for task in tasks {
            let changes = RunTaskChanges::from_domain(task);
            update.id.push(task.id.as_uuid());
            update.state.push(changes.state);
            update.completed_at.push(changes.completed_at);
            update.completed_by.push(changes.completed_by);
            update.assignee.push(changes.assignee);
            update.decision.push(changes.decision);
            update.comment.push(changes.comment);
            update.custom_elements.push(changes.custom_elements);
            update.hidden.push(changes.hidden);
            update.blocked.push(changes.blocked);
        }
        update
    }
}

impl QueryId for UpdateRunTasks {
    type QueryId = Self;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl QueryFragment<Pg> for UpdateRunTasks {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        // Prepared afresh each time, never cached: PostgreSQL plans a cached statement generically
        // once it has run five times, and Citus cannot route a generic plan of an `UPDATE ...
        // FROM unnest(...)` by its team bind (not a fast-path query), so that execution ran on
        // every shard (bench/citus.sh found it, docs/scaling.md). A fresh statement is always
        // planned with its binds: one shard.
        out.unsafe_to_cache_prepared();
        out.push_sql(
            "UPDATE run_tasks AS t SET state = u.state, completed_at = u.completed_at, \
             completed_by = u.completed_by, assignee = u.assignee, decision = u.decision, \
             comment = u.comment, custom_elements = u.custom_elements, hidden = u.hidden, \
             blocked = u.blocked FROM unnest(",
        );
        out.push_bind_param::<Array<SqlUuid>, _>(&self.id)?;
        out.push_sql("::uuid[], ");
        out.push_bind_param::<Array<Text>, _>(&self.state)?;
        out.push_sql("::text[], ");
        out.push_bind_param::<Array<Nullable<Timestamptz>>, _>(&self.completed_at)?;
        out.push_sql("::timestamptz[], ");
        out.push_bind_param::<Array<Nullable<Text>>, _>(&self.completed_by)?;
        out.push_sql("::text[], ");
        out.push_bind_param::<Array<Nullable<Text>>, _>(&self.assignee)?;
        out.push_sql("::text[], ");
        out.push_bind_param::<Array<Nullable<Text>>, _>(&self.decision)?;
        out.push_sql("::text[], ");
        out.push_bind_param::<Array<Nullable<Text>>, _>(&self.comment)?;
        out.push_sql("::text[], ");
        out.push_bind_param::<Array<Jsonb>, _>(&self.custom_elements)?;
        out.push_sql("::jsonb[], ");
        out.push_bind_param::<Array<Bool>, _>(&self.hidden)?;
        out.push_sql("::bool[], ");
        out.push_bind_param::<Array<Bool>, _>(&self.blocked)?;
        out.push_sql(
            "::bool[]) AS u(id, state, completed_at, completed_by, assignee, decision, \
             comment, custom_elements, hidden, blocked) WHERE t.team_id = ",
        );
        out.push_bind_param::<SqlUuid, _>(&self.team)?;
        out.push_sql(" AND t.run_id = ");
        out.push_bind_param::<SqlUuid, _>(&self.run)?;
        out.push_sql(" AND t.id = u.id");
        Ok(())
    }
}
