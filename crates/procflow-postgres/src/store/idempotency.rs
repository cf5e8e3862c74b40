//! `IdempotencyStore` on PostgreSQL: one row per team and `Idempotency-Key` in
//! `idempotency_keys`, claimed by an insert that only one of any number of concurrent calls
//! wins, so a key is held across server instances.

use async_trait::async_trait;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{Binary, Bool, Text, Timestamptz, Untyped, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use procflow_domain::error::{DomainResult, StoreError};
use procflow_domain::ids::TeamId;
use procflow_domain::ports::{IdempotencyBegin, IdempotencyStore, KeyLifetimes, StoredResponse};
use time::OffsetDateTime;
use uuid::Uuid;

use super::PgStore;
use super::sweep::delete_in_batches;
use crate::error::{corrupt, db_error};
use crate::schema::idempotency_keys;

/// Claims a key, with the binds `team_id`, `key`, `request_hash`, `now`, `since` =
/// `now - answered`, `stale` = `now - in_flight`.
///
/// - No row: the insert creates one, in flight (no response yet), and answers `started`.
/// - A row older than its lifetime (`created_at < since`, or in flight and
///   `created_at < stale`: its request died with its instance) counts as absent: the update
///   replaces it with this request's, in flight, and answers `started`.
/// - A live row: the update's `WHERE` refuses and no row is answered; the caller then reads
///   the row (this statement's snapshot cannot see a row a concurrent call inserted).
///
/// Concurrent calls are serialised on the key: an insert that meets an uncommitted insert of
/// the same key waits for it, and an update that meets a locked row re-checks its `WHERE` on
/// the row as the winner left it (fresh by then). So exactly one call answers `started`.
///
/// One `INSERT ... VALUES ... ON CONFLICT` whose every value is a bind (no CTE): on Citus it
/// is routed whole to the team's shard (a CTE of the binds would be planned apart from the
/// `ON CONFLICT` clause sent to the shard, which could not see it).
const CLAIM_INSERT: &str = "\
INSERT INTO idempotency_keys AS k (team_id, key, request_hash, created_at) VALUES (";

/// After the insert's values: the conflict's update, its `WHERE` bound to `since` and `stale`.
const CLAIM_ON_CONFLICT: [&str; 3] = [
    ") ON CONFLICT (team_id, key) DO UPDATE \
     SET request_hash = EXCLUDED.request_hash, response_status = NULL, response_body = NULL, \
         created_at = EXCLUDED.created_at, completed_at = NULL \
     WHERE k.created_at < ",
    " OR (k.response_status IS NULL AND k.created_at < ",
    ") RETURNING true AS started",
];

/// How often a claim is tried when the row it lost to disappears before it is read (its
/// request failed and released the key, or it expired in between).
const ATTEMPTS: usize = 3;

/// The claim with its binds, a fixed SQL text so that diesel keeps it prepared on each
/// connection (a static query id).
#[derive(Debug)]
struct ClaimQuery<'a> {
    team_id: Uuid,
    key: &'a str,
    request_hash: &'a [u8],
    now: OffsetDateTime,
    since: OffsetDateTime,
    stale: OffsetDateTime,
}

impl QueryId for ClaimQuery<'_> {
    type QueryId = ClaimQuery<'static>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl Query for ClaimQuery<'_> {
    type SqlType = Untyped;
}

impl QueryFragment<Pg> for ClaimQuery<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> diesel::QueryResult<()> {
        out.push_sql(CLAIM_INSERT);
        out.push_bind_param::<SqlUuid, _>(&self.team_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(&self.key)?;
        out.push_sql(", ");
        out.push_bind_param::<Binary, _>(&self.request_hash)?;
        out.push_sql(", ");
        out.push_bind_param::<Timestamptz, _>(&self.now)?;
        out.push_sql(CLAIM_ON_CONFLICT[0]);
        out.push_bind_param::<Timestamptz, _>(&self.since)?;
        out.push_sql(CLAIM_ON_CONFLICT[1]);
        out.push_bind_param::<Timestamptz, _>(&self.stale)?;
        out.push_sql(CLAIM_ON_CONFLICT[2]);
        Ok(())
    }
}

#[derive(QueryableByName)]
struct Claimed {
    #[diesel(sql_type = Bool)]
    #[expect(dead_code, reason = "only its presence matters")]
    started: bool,
}

/// A key's row as another request left it.
#[derive(Queryable, Selectable)]
#[diesel(table_name = idempotency_keys, check_for_backend(Pg))]
struct KeyRow {
    request_hash: Vec<u8>,
    response_status: Option<i32>,
    response_body: Option<Vec<u8>>,
    created_at: OffsetDateTime,
}

impl KeyRow {
    /// Whether `begin` still counts the row (see [`CLAIM_INSERT`]).
    fn live(&self, since: OffsetDateTime, stale: OffsetDateTime) -> bool {
        let born_after = match self.response_status {
            Some(_) => since,
            None => stale.max(since),
        };
        self.created_at >= born_after
    }

    /// Where a request hashing to `request_hash` stands against this live row.
    fn outcome(self, request_hash: &[u8; 32]) -> DomainResult<IdempotencyBegin> {
        if self.request_hash.as_slice() != request_hash.as_slice() {
            return Ok(IdempotencyBegin::Mismatch);
        }
        let Some(status) = self.response_status else {
            return Ok(IdempotencyBegin::InFlight);
        };
        let status = u16::try_from(status).map_err(|e| corrupt("idempotent response status", e))?;
        Ok(IdempotencyBegin::Replay(StoredResponse {
            status,
            body: self.response_body.unwrap_or_default(),
        }))
    }
}

#[async_trait]
impl IdempotencyStore for PgStore {
    async fn begin(
        &self,
        team: TeamId,
        key: &str,
        request_hash: &[u8; 32],
        now: OffsetDateTime,
        lifetimes: KeyLifetimes,
    ) -> DomainResult<IdempotencyBegin> {
        let mut conn = self.conn().await?;
        let (since, stale) = (now - lifetimes.answered, now - lifetimes.in_flight);
        for _ in 0..ATTEMPTS {
            let claim = ClaimQuery {
                team_id: team.as_uuid(),
                key,
                request_hash,
                now,
                since,
                stale,
            };
            let claimed: Vec<Claimed> = claim.load(&mut conn).await.map_err(db_error)?;
            if !claimed.is_empty() {
                return Ok(IdempotencyBegin::Started);
            }
            let row: Option<KeyRow> = idempotency_keys::table
                .filter(idempotency_keys::team_id.eq(team.as_uuid()))
                .filter(idempotency_keys::key.eq(key))
                .select(KeyRow::as_select())
                .first(&mut conn)
                .await
                .optional()
                .map_err(db_error)?;
            match row {
                Some(row) if row.live(since, stale) => return row.outcome(request_hash),
                // Released or expired since the claim: claim again.
                _ => {}
            }
        }
        Err(StoreError::Other("idempotency key could not be claimed or read".into()).into())
    }

    async fn finish(
        &self,
        team: TeamId,
        key: &str,
        response: &StoredResponse,
        now: OffsetDateTime,
    ) -> DomainResult<()> {
        let mut conn = self.conn().await?;
        let updated = diesel::update(idempotency_keys::table)
            .filter(idempotency_keys::team_id.eq(team.as_uuid()))
            .filter(idempotency_keys::key.eq(key))
            .filter(idempotency_keys::response_status.is_null())
            .set((
                idempotency_keys::response_status.eq(i32::from(response.status)),
                idempotency_keys::response_body.eq(&response.body),
                idempotency_keys::completed_at.eq(now),
            ))
            .execute(&mut conn)
            .await
            .map_err(db_error)?;
        if updated == 0 {
            tracing::warn!(team.id = %team, "an idempotency key was no longer in flight at finish");
        }
        Ok(())
    }

    async fn abandon(&self, team: TeamId, key: &str) -> DomainResult<()> {
        let mut conn = self.conn().await?;
        diesel::delete(idempotency_keys::table)
            .filter(idempotency_keys::team_id.eq(team.as_uuid()))
            .filter(idempotency_keys::key.eq(key))
            .filter(idempotency_keys::response_status.is_null())
            .execute(&mut conn)
            .await
            .map(|_| ())
            .map_err(db_error)
    }

    async fn sweep_keys(&self, now: OffsetDateTime, lifetimes: KeyLifetimes) -> DomainResult<u64> {
        let mut conn = self.conn().await?;
        // Answered records past their day, then abandoned in-flight ones past their lease,
        // each through its index on created_at.
        let expired = delete_in_batches(&mut conn, SWEEP_EXPIRED, now - lifetimes.answered).await?;
        let stale = delete_in_batches(&mut conn, SWEEP_STALE, now - lifetimes.in_flight).await?;
        Ok(expired + stale)
    }
}

// Each sweep states its condition twice. The subquery picks a batch; the outer `WHERE` is
// what PostgreSQL checks again on a row that a concurrent request changed while the sweep
// waited for it (a claim taking over the key: `created_at` now, in flight), and only there: a
// key in the batch alone would delete that new claim, its answer would then be recorded
// nowhere, and its retry would run again.
const SWEEP_EXPIRED: &str = "\
DELETE FROM idempotency_keys WHERE (team_id, key) IN ( \
    SELECT team_id, key FROM idempotency_keys WHERE created_at < $1 LIMIT $2) \
  AND created_at < $1";

const SWEEP_STALE: &str = "\
DELETE FROM idempotency_keys WHERE (team_id, key) IN ( \
    SELECT team_id, key FROM idempotency_keys \
    WHERE response_status IS NULL AND created_at < $1 LIMIT $2) \
  AND response_status IS NULL AND created_at < $1";
