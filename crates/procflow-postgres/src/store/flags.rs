//! The `hidden` and `blocked` flags of the tasks a change did not write itself but whose
//! flags it turned (process logic, issue 19): one `UPDATE ... FROM unnest(...)` whose SQL does
//! not depend on their number, sent with the change's other writes.

use diesel::QueryResult;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{Array, Bool, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use procflow_domain::error::DomainResult;
use procflow_domain::ids::{RunId, TaskId, TeamId};
use procflow_domain::run::TaskFlags;
use uuid::Uuid;

use crate::error::db_error;

/// Writes `flags` to their tasks of `run`; nothing is sent when there are none.
pub(super) async fn write_flags(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    run: RunId,
    flags: &[(TaskId, TaskFlags)],
) -> DomainResult<()> {
    if flags.is_empty() {
        return Ok(());
    }
    UpdateFlags {
        team: team.as_uuid(),
        run: run.as_uuid(),
        id: flags.iter().map(|(id, _)| id.as_uuid()).collect(),
        hidden: flags.iter().map(|(_, f)| f.hidden).collect(),
        blocked: flags.iter().map(|(_, f)| f.blocked).collect(),
    }
    .execute(&mut conn)
    .await
    .map(|_| ())
    .map_err(db_error)
}

#[derive(Debug)]
struct UpdateFlags {
    team: Uuid,
    run: Uuid,
    id: Vec<Uuid>,
    hidden: Vec<bool>,
    blocked: Vec<bool>,
}

impl QueryId for UpdateFlags {
    type QueryId = Self;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl QueryFragment<Pg> for UpdateFlags {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        // Prepared afresh each time, never cached: PostgreSQL plans a cached statement generically
        // once it has run five times, and Citus cannot route a generic plan of an `UPDATE ...
        // FROM unnest(...)` by its team bind (not a fast-path query), so that execution ran on
        // every shard (bench/citus.sh found it, docs/scaling.md). A fresh statement is always
        // planned with its binds: one shard.
        out.unsafe_to_cache_prepared();
        out.push_sql(
            "UPDATE run_tasks AS t SET hidden = u.hidden, blocked = u.blocked FROM unnest(",
        );
        out.push_bind_param::<Array<SqlUuid>, _>(&self.id)?;
        out.push_sql("::uuid[], ");
        out.push_bind_param::<Array<Bool>, _>(&self.hidden)?;
        out.push_sql("::bool[], ");
        out.push_bind_param::<Array<Bool>, _>(&self.blocked)?;
        out.push_sql("::bool[]) AS u(id, hidden, blocked) WHERE t.team_id = ");
        out.push_bind_param::<SqlUuid, _>(&self.team)?;
        out.push_sql(" AND t.run_id = ");
        out.push_bind_param::<SqlUuid, _>(&self.run)?;
        out.push_sql(" AND t.id = u.id");
        Ok(())
    }
}
