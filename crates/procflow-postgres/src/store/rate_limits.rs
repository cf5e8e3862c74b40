//! `RateLimiter` on PostgreSQL: a rolling-window log of each key's accepted requests, one row
//! per key in `rate_limits`, decided and written in one statement under the row's lock, so the
//! limit is exact across server instances.

use async_trait::async_trait;
use diesel::QueryableByName;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Bool, Integer, Nullable, Timestamptz, Untyped, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use procflow_domain::error::{DomainResult, StoreError};
use procflow_domain::ids::{ApiKeyId, TeamId};
use procflow_domain::ports::{RateDecision, RateLimiter};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use super::PgStore;
use crate::error::db_error;
use crate::rows::to_u32;

/// Decides and records one request, in one statement; follows the `args` CTE made of the
/// binds (`team_id`, `api_key_id`, `now`, `since` = `now - window`, `lim`).
///
/// - `old` locks the key's row (`FOR UPDATE`). Under READ COMMITTED a locking read that waited
///   for a concurrent writer returns the row as that writer left it, so every decision sees
///   every request accepted before it: concurrent calls for one key are serialised here.
/// - `counted` keeps the hits still in the window (`> now - window`), the newest `lim` of
///   them: all that can matter for this limit, so a row never holds more than `lim` hits.
/// - `decided` accepts when fewer than `lim` are counted and then appends `now`; a refused
///   request is not recorded. The array is kept in ascending order.
/// - `updated` writes the row only when it changed (accepted, or old hits pruned).
/// - `inserted` creates the row on a key's first request. When another call created it since
///   this statement's snapshot, `ON CONFLICT DO NOTHING` answers no row and the caller runs
///   the statement again (it now sees the row); nothing was decided or written.
const HIT_AFTER_ARGS: &str = "\
, old AS ( \
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
) \
SELECT allowed, cardinality(hits) AS counted, hits[1] AS oldest FROM decided \
UNION ALL \
SELECT cardinality(hits) > 0, cardinality(hits), hits[1] FROM inserted";

/// How often the statement is tried when it loses the race to create a key's row. Once the
/// row exists the statement always answers, so the second try does.
const ATTEMPTS: usize = 3;

/// The statement with its binds. Unlike `sql_query`, its SQL is fixed, so diesel keeps it
/// prepared on each connection (a static query id): PostgreSQL parses it once per connection
/// and soon plans it once too, which is most of the cost of so short a statement.
#[derive(Debug)]
struct HitQuery {
    team_id: Uuid,
    api_key_id: Uuid,
    now: OffsetDateTime,
    since: OffsetDateTime,
    lim: i64,
}

impl QueryId for HitQuery {
    type QueryId = Self;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl Query for HitQuery {
    type SqlType = Untyped;
}

impl QueryFragment<Pg> for HitQuery {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> diesel::QueryResult<()> {
        out.push_sql("WITH args AS (SELECT ");
        out.push_bind_param::<SqlUuid, _>(&self.team_id)?;
        out.push_sql(" AS team_id, ");
        out.push_bind_param::<SqlUuid, _>(&self.api_key_id)?;
        out.push_sql(" AS api_key_id, ");
        out.push_bind_param::<Timestamptz, _>(&self.now)?;
        out.push_sql(" AS now, ");
        out.push_bind_param::<Timestamptz, _>(&self.since)?;
        out.push_sql(" AS since, ");
        out.push_bind_param::<BigInt, _>(&self.lim)?;
        out.push_sql(" AS lim)");
        out.push_sql(HIT_AFTER_ARGS);
        Ok(())
    }
}

#[derive(QueryableByName)]
struct Hit {
    #[diesel(sql_type = Bool)]
    allowed: bool,
    /// Hits counted in the window after this request.
    #[diesel(sql_type = Integer)]
    counted: i32,
    /// The oldest of them; `None` only with a limit of 0.
    #[diesel(sql_type = Nullable<Timestamptz>)]
    oldest: Option<OffsetDateTime>,
}

#[async_trait]
impl RateLimiter for PgStore {
    async fn hit(
        &self,
        team: TeamId,
        key: ApiKeyId,
        now: OffsetDateTime,
        limit: u32,
        window: Duration,
    ) -> DomainResult<RateDecision> {
        let mut conn = self.conn().await?;
        for _ in 0..ATTEMPTS {
            let query = HitQuery {
                team_id: team.as_uuid(),
                api_key_id: key.as_uuid(),
                now,
                since: now - window,
                lim: i64::from(limit),
            };
            let rows: Vec<Hit> = query.load(&mut conn).await.map_err(db_error)?;
            if let Some(hit) = rows.into_iter().next() {
                let counted = to_u32("rate limit hits", hit.counted)?;
                return Ok(RateDecision {
                    allowed: hit.allowed,
                    remaining: limit.saturating_sub(counted),
                    // Accepted: when the oldest counted hit leaves the window and a slot frees
                    // up. Refused: the same moment, the first at which a request can be
                    // accepted again (no hit leaves the window before it).
                    reset_at: hit.oldest.unwrap_or(now) + window,
                });
            }
        }
        Err(StoreError::Other("rate limit row could not be created or read".into()).into())
    }
}
