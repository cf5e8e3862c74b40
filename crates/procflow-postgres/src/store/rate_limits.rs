//! `RateLimiter` on PostgreSQL: the key looked up by its hash and, for an active team, the
//! request counted in a rolling-window log of the key's accepted requests (one row per key in
//! `rate_limits`), all in one statement: one round trip admits a request. The count is decided
//! and written under the row's lock, so the limit is exact across server instances.
//!
//! The statement commits asynchronously (`synchronous_commit` off for its own transaction
//! only): it does not wait for its WAL to reach the disk, which on a read request is the only
//! disk wait there is. What that risks is bounded and harmless: if PostgreSQL itself crashes,
//! the counts of the last few hundred milliseconds (3 x `wal_writer_delay` at most) may be
//! forgotten, letting a key make that many more requests once; no other data is involved, and
//! every later synchronous commit flushes these records too.

use async_trait::async_trait;
use diesel::QueryableByName;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{
    BigInt, Bool, Bytea, Integer, Nullable, Text, Timestamptz, Untyped, Uuid as SqlUuid,
};
use diesel_async::RunQueryDsl;
use procflow_domain::error::{DomainResult, StoreError};
use procflow_domain::ports::{Admission, RateDecision, RateLimiter};
use procflow_domain::team::{ApiKey, Subscription, Team};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use super::PgStore;
use crate::error::db_error;
use crate::rows::team::{ApiKeyRow, TeamRow};
use crate::rows::to_u32;

/// Looks the key up, then decides and records one request, in one statement.
///
/// - `k` is the unrevoked key with the hash `$1` and its team; no row, no key.
/// - `args` is made of `k` (only when its team's subscription is `$5`, active) and the binds
///   `now` (`$2`), `since` = `now - window` (`$3`) and `lim` (`$4`). It also turns
///   `synchronous_commit` off for this statement's transaction (see the module docs): being in
///   `args`, which the always-run `inserted` reads, it is evaluated exactly when something may
///   be written.
/// - `old` locks the key's rate row (`FOR UPDATE`). Under READ COMMITTED a locking read that
///   waited for a concurrent writer returns the row as that writer left it, so every decision
///   sees every request accepted before it: concurrent calls for one key are serialised here.
/// - `counted` keeps the hits still in the window (`> now - window`), the newest `lim` of
///   them: all that can matter for this limit, so a row never holds more than `lim` hits.
/// - `decided` accepts when fewer than `lim` are counted and then appends `now`; a refused
///   request is not recorded. The array is kept in ascending order.
/// - `updated` writes the row only when it changed (accepted, or old hits pruned).
/// - `inserted` creates the row on a key's first request. When another call created it since
///   this statement's snapshot, `ON CONFLICT DO NOTHING` answers no row: the key comes back
///   with no decision and the caller runs the statement again (it now sees the row); nothing
///   was decided or written.
const ADMIT: &str = "\
WITH k AS ( \
    SELECT api_keys.team_id, api_keys.id AS key_id, api_keys.name AS key_name, \
           api_keys.prefix, api_keys.key_hash, api_keys.created_by, \
           api_keys.created_at AS key_created_at, api_keys.revoked_at, api_keys.scope, \
           teams.name AS team_name, teams.base_url, teams.timezone, teams.subscription, \
           teams.created_at AS team_created_at \
    FROM api_keys JOIN teams ON teams.id = api_keys.team_id \
    WHERE api_keys.key_hash = $1 AND api_keys.revoked_at IS NULL \
), args AS ( \
    SELECT k.team_id, k.key_id AS api_key_id, $2 AS now, $3 AS since, $4 AS lim, \
           set_config('synchronous_commit', 'off', true) AS async_commit \
    FROM k WHERE k.subscription = $5 \
), old AS ( \
    SELECT r.hits FROM rate_limits AS r JOIN args USING (team_id, api_key_id) \
    FOR UPDATE OF r \
), counted AS MATERIALIZED ( \
    SELECT old.hits AS before, args.now, args.lim, \
           ARRAY(SELECT h FROM unnest(old.hits) AS h WHERE h > args.since \
                 ORDER BY h DESC LIMIT args.lim) AS hits \
    FROM old, args \
), decided AS ( \
    SELECT before, \
           cardinality(hits) < lim AS allowed, \
           ARRAY(SELECT h \
                 FROM unnest(CASE WHEN cardinality(hits) < lim THEN hits || now ELSE hits END) \
                     AS h \
                 ORDER BY h) AS hits \
    FROM counted \
), updated AS ( \
    UPDATE rate_limits AS r SET hits = decided.hits \
    FROM decided, args \
    WHERE r.team_id = args.team_id AND r.api_key_id = args.api_key_id \
      AND (decided.allowed OR decided.hits IS DISTINCT FROM decided.before) \
), inserted AS ( \
    INSERT INTO rate_limits (team_id, api_key_id, hits) \
    SELECT team_id, api_key_id, CASE WHEN lim > 0 THEN ARRAY[now] ELSE '{}' END \
    FROM args \
    WHERE NOT EXISTS (SELECT FROM old) \
    ON CONFLICT (team_id, api_key_id) DO NOTHING \
    RETURNING hits \
), decision AS ( \
    SELECT allowed, cardinality(hits) AS counted, hits[1] AS oldest FROM decided \
    UNION ALL \
    SELECT cardinality(hits) > 0, cardinality(hits), hits[1] FROM inserted \
) \
SELECT k.*, decision.allowed, decision.counted, decision.oldest \
FROM k LEFT JOIN decision ON true";

/// How often the statement is tried when it loses the race to create a key's row. Once the
/// row exists the statement always answers, so the second try does.
const ATTEMPTS: usize = 3;

/// The statement with its binds. Unlike `sql_query`, its SQL is fixed, so diesel keeps it
/// prepared on each connection (a static query id): PostgreSQL parses it once per connection
/// and soon plans it once too, which is most of the cost of so short a statement.
#[derive(Debug)]
struct AdmitQuery<'a> {
    key_hash: &'a [u8],
    now: OffsetDateTime,
    since: OffsetDateTime,
    lim: i64,
    /// The subscription whose requests are counted.
    active: &'static str,
}

impl QueryId for AdmitQuery<'_> {
    type QueryId = AdmitQuery<'static>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl Query for AdmitQuery<'_> {
    type SqlType = Untyped;
}

impl QueryFragment<Pg> for AdmitQuery<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> diesel::QueryResult<()> {
        // The binds are numbered in the order they are pushed; ADMIT names them $1 to $5.
        let mut parts = ADMIT.split('$');
        out.push_sql(parts.next().unwrap_or_default());
        for part in parts {
            let (number, rest) = (
                part.get(..1).unwrap_or_default(),
                part.get(1..).unwrap_or_default(),
            );
            match number {
                "1" => out.push_bind_param::<Bytea, _>(&self.key_hash)?,
                "2" => out.push_bind_param::<Timestamptz, _>(&self.now)?,
                "3" => out.push_bind_param::<Timestamptz, _>(&self.since)?,
                "4" => out.push_bind_param::<BigInt, _>(&self.lim)?,
                "5" => out.push_bind_param::<Text, _>(self.active)?,
                _ => {
                    return Err(diesel::result::Error::QueryBuilderError(
                        format!("unexpected ${number} in the admission statement").into(),
                    ));
                }
            }
            out.push_sql(rest);
        }
        Ok(())
    }
}

/// A key, its team and the decision, as the statement answers them.
#[derive(QueryableByName)]
struct Admitted {
    #[diesel(sql_type = SqlUuid)]
    team_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    key_id: Uuid,
    #[diesel(sql_type = Nullable<Text>)]
    key_name: Option<String>,
    #[diesel(sql_type = Text)]
    prefix: String,
    #[diesel(sql_type = Bytea)]
    key_hash: Vec<u8>,
    #[diesel(sql_type = SqlUuid)]
    created_by: Uuid,
    #[diesel(sql_type = Timestamptz)]
    key_created_at: OffsetDateTime,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    revoked_at: Option<OffsetDateTime>,
    #[diesel(sql_type = Text)]
    scope: String,
    #[diesel(sql_type = Text)]
    team_name: String,
    #[diesel(sql_type = Text)]
    base_url: String,
    #[diesel(sql_type = Text)]
    timezone: String,
    #[diesel(sql_type = Text)]
    subscription: String,
    #[diesel(sql_type = Timestamptz)]
    team_created_at: OffsetDateTime,
    /// `None` for an inactive team, or when the statement lost the race to create the rate
    /// row (then it runs again).
    #[diesel(sql_type = Nullable<Bool>)]
    allowed: Option<bool>,
    /// Hits counted in the window after this request.
    #[diesel(sql_type = Nullable<Integer>)]
    counted: Option<i32>,
    /// The oldest of them; `None` also with a limit of 0.
    #[diesel(sql_type = Nullable<Timestamptz>)]
    oldest: Option<OffsetDateTime>,
}

impl Admitted {
    fn key_and_team(self) -> DomainResult<(ApiKey, Team)> {
        let key = ApiKeyRow {
            team_id: self.team_id,
            id: self.key_id,
            name: self.key_name,
            prefix: self.prefix,
            key_hash: self.key_hash,
            created_by: self.created_by,
            created_at: self.key_created_at,
            revoked_at: self.revoked_at,
            scope: self.scope,
        };
        let team = TeamRow {
            id: self.team_id,
            name: self.team_name,
            base_url: self.base_url,
            timezone: self.timezone,
            subscription: self.subscription,
            created_at: self.team_created_at,
        };
        Ok((key.into_domain()?, team.into_domain()?))
    }
}

#[async_trait]
impl RateLimiter for PgStore {
    async fn admit(
        &self,
        key_hash: &[u8; 32],
        now: OffsetDateTime,
        limit: u32,
        window: Duration,
    ) -> DomainResult<Option<Admission>> {
        let mut conn = self.conn().await?;
        for _ in 0..ATTEMPTS {
            let query = AdmitQuery {
                key_hash: key_hash.as_slice(),
                now,
                since: now - window,
                lim: i64::from(limit),
                active: Subscription::Active.as_str(),
            };
            let rows: Vec<Admitted> = query.load(&mut conn).await.map_err(db_error)?;
            let Some(row) = rows.into_iter().next() else {
                return Ok(None);
            };
            let decided = row.allowed.zip(row.counted);
            let oldest = row.oldest;
            let (key, team) = row.key_and_team()?;
            if !team.is_active() {
                return Ok(Some(Admission {
                    key,
                    team,
                    rate: None,
                }));
            }
            if let Some((allowed, counted)) = decided {
                let counted = to_u32("rate limit hits", counted)?;
                let rate = RateDecision {
                    allowed,
                    remaining: limit.saturating_sub(counted),
                    // Accepted: when the oldest counted hit leaves the window and a slot frees
                    // up. Refused: the same moment, the first at which a request can be
                    // accepted again (no hit leaves the window before it).
                    reset_at: oldest.unwrap_or(now) + window,
                };
                return Ok(Some(Admission {
                    key,
                    team,
                    rate: Some(rate),
                }));
            }
        }
        Err(StoreError::Other("rate limit row could not be created or read".into()).into())
    }
}

#[cfg(test)]
mod tests {
    use super::ADMIT;

    #[test]
    fn the_admission_statement_names_its_five_binds_once_each_in_order() {
        let numbers: Vec<&str> = ADMIT.split('$').skip(1).map(|part| &part[..1]).collect();
        assert_eq!(numbers, ["1", "2", "3", "4", "5"]);
    }
}
