//! `WindowLimiter` on PostgreSQL: one `rate_windows` row per name holds one counter per second
//! of its window. One statement decides an event: it locks the rows of its names in name order
//! (so two decisions sharing names cannot deadlock), rolls and sums their counters, and counts
//! the event in every row when each has room, then commits: exact across server instances,
//! with each row locked for one statement only, and the same cost whatever the limits and the
//! traffic. Rows idle for a whole window are swept by the same statement.

use async_trait::async_trait;
use diesel::QueryableByName;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{Array, BigInt, Bool, Integer, Nullable, Text, Untyped};
use diesel_async::RunQueryDsl;
use procflow_domain::error::{DomainResult, StoreError};
use procflow_domain::ports::WindowLimiter;
use procflow_domain::window::{self, SecondCounts, WindowLimit, WindowsDecision};
use time::{Duration, OffsetDateTime};

use super::PgStore;
use super::seconds::stored_counts;
use crate::error::db_error;

/// Decides one event under the names `$1` (sorted, distinct) with the limits `$2` at second
/// `$3`, over windows of `$4` seconds.
///
/// - `old` locks the names' rows in name order (`FOR UPDATE`; the table is local, never
///   distributed: docs/scaling.md). Under READ COMMITTED a locking read that waited for a
///   concurrent writer returns the row as that writer left it.
/// - `rolled` moves each row's counters to the event's second (or to the row's newest, when
///   this caller's clock lags) and sums them; `decided` admits the event when every name has a
///   row (`complete`) and room.
/// - `written` counts the event in every row when admitted (the rows are already locked);
///   a refusal writes nothing.
/// - `swept` deletes up to 100 other rows idle for a whole window, skipping locked ones.
/// - Names without a row: nothing is decided (`complete` false); the caller makes the rows
///   and runs the statement again.
const DECIDE: &str = "\
WITH want AS ( \
    SELECT w.name, w.lim FROM unnest($1::text[], $2::bigint[]) AS w(name, lim) \
), old AS MATERIALIZED ( \
    SELECT r.name, r.second, r.counts FROM rate_windows AS r \
    WHERE r.name = ANY($1::text[]) ORDER BY r.name FOR UPDATE \
), rolled AS MATERIALIZED ( \
    SELECT want.name, want.lim, s.newest, s.counts, \
           (SELECT coalesce(sum(c), 0) FROM unnest(s.counts) AS c) AS total, \
           greatest(1, $4 + $3 - s.newest)::int AS at \
    FROM want JOIN old USING (name) \
    CROSS JOIN LATERAL ( \
        SELECT greatest(old.second, $3) AS newest, \
               ARRAY(SELECT coalesce(CASE WHEN x > old.second - cardinality(old.counts) \
                                           AND x <= old.second \
                                      THEN old.counts[(x - old.second \
                                                       + cardinality(old.counts))::int] \
                                      END, 0) \
                     FROM generate_series(greatest(old.second, $3) - $4 + 1, \
                                          greatest(old.second, $3)) AS x \
                     ORDER BY x) AS counts \
    ) AS s \
), decided AS ( \
    SELECT count(*) = cardinality($1::text[]) AS complete, \
           count(*) = cardinality($1::text[]) AND coalesce(bool_and(total < lim), false) \
               AS allowed \
    FROM rolled \
), after AS ( \
    SELECT rolled.name, rolled.newest, \
           CASE WHEN decided.allowed \
                THEN counts[:at - 1] || (counts[at] + 1) || counts[at + 1:] \
                ELSE counts END AS counts \
    FROM rolled, decided \
), written AS ( \
    UPDATE rate_windows AS r SET second = after.newest, counts = after.counts \
    FROM after, decided \
    WHERE r.name = after.name AND decided.allowed \
), swept AS ( \
    DELETE FROM rate_windows WHERE name IN ( \
        SELECT name FROM rate_windows \
        WHERE second <= $3 - $4 AND name <> ALL($1::text[]) \
        ORDER BY second LIMIT 100 FOR UPDATE SKIP LOCKED) \
) \
SELECT after.name, after.newest AS second, after.counts, decided.allowed, decided.complete \
FROM after, decided";

/// Makes the rows of names that have none, empty, dated at `$2`.
const CREATE_ROWS: &str = "\
INSERT INTO rate_windows (name, second) SELECT unnest($1::text[]), $2 \
ON CONFLICT (name) DO NOTHING";

/// How often the statement is tried when names have no row yet.
const ATTEMPTS: usize = 3;

/// The statement with its binds, prepared once per connection (a static query id).
#[derive(Debug)]
struct DecideQuery<'a> {
    names: &'a [String],
    lims: &'a [i64],
    second: i64,
    seconds: i64,
}

impl QueryId for DecideQuery<'_> {
    type QueryId = DecideQuery<'static>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl Query for DecideQuery<'_> {
    type SqlType = Untyped;
}

impl QueryFragment<Pg> for DecideQuery<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> diesel::QueryResult<()> {
        // The binds are numbered in the order they are pushed, so each `$n` of DECIDE is
        // pushed where it stands (a name used twice is bound twice).
        let mut parts = DECIDE.split('$');
        out.push_sql(parts.next().unwrap_or_default());
        for part in parts {
            let (number, rest) = (
                part.get(..1).unwrap_or_default(),
                part.get(1..).unwrap_or_default(),
            );
            match number {
                "1" => out.push_bind_param::<Array<Text>, _>(&self.names)?,
                "2" => out.push_bind_param::<Array<BigInt>, _>(&self.lims)?,
                "3" => out.push_bind_param::<BigInt, _>(&self.second)?,
                "4" => out.push_bind_param::<BigInt, _>(&self.seconds)?,
                _ => {
                    return Err(diesel::result::Error::QueryBuilderError(
                        format!("unexpected ${number} in the window statement").into(),
                    ));
                }
            }
            out.push_sql(rest);
        }
        Ok(())
    }
}

/// One name's counters after the decision.
#[derive(QueryableByName)]
struct Decided {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = BigInt)]
    second: i64,
    #[diesel(sql_type = Array<Nullable<Integer>>)]
    counts: Vec<Option<i32>>,
    #[diesel(sql_type = Bool)]
    allowed: bool,
    #[diesel(sql_type = Bool)]
    complete: bool,
}

#[async_trait]
impl WindowLimiter for PgStore {
    async fn decide_all(
        &self,
        limits: &[WindowLimit],
        now: OffsetDateTime,
        window: Duration,
    ) -> DomainResult<WindowsDecision> {
        let mut distinct = limits.to_vec();
        distinct.sort();
        distinct.dedup_by(|a, b| a.name == b.name);
        let names: Vec<String> = distinct.iter().map(|l| l.name.clone()).collect();
        let lims: Vec<i64> = distinct.iter().map(|l| i64::from(l.limit)).collect();
        let second = window::second_of(now);
        let mut conn = self.conn().await?;
        for _ in 0..ATTEMPTS {
            let query = DecideQuery {
                names: &names,
                lims: &lims,
                second,
                seconds: i64::try_from(window::seconds_of(window)).unwrap_or(60),
            };
            let rows: Vec<Decided> = query.load(&mut conn).await.map_err(db_error)?;
            let complete = rows.len() == names.len() && rows.iter().all(|row| row.complete);
            if complete {
                let allowed = rows.iter().all(|row| row.allowed);
                let mut after = Vec::with_capacity(limits.len());
                for limit in limits {
                    let row = rows
                        .iter()
                        .find(|row| row.name == limit.name)
                        .ok_or_else(|| StoreError::Other("a window row went missing".into()))?;
                    after.push(SecondCounts {
                        newest: row.second,
                        counts: stored_counts(&row.counts)?,
                    });
                }
                let refs: Vec<&SecondCounts> = after.iter().collect();
                return Ok(window::decide(&refs, allowed, limits, now, window));
            }
            diesel::sql_query(CREATE_ROWS)
                .bind::<Array<Text>, _>(&names)
                .bind::<BigInt, _>(second)
                .execute(&mut conn)
                .await
                .map_err(db_error)?;
        }
        Err(StoreError::Other("window rows could not be created or read".into()).into())
    }
}

#[cfg(test)]
mod tests {
    use super::DECIDE;

    #[test]
    fn the_window_statement_names_only_its_four_binds() {
        let numbers: Vec<&str> = DECIDE.split('$').skip(1).map(|part| &part[..1]).collect();
        assert!(numbers.iter().all(|n| ["1", "2", "3", "4"].contains(n)));
        for n in ["1", "2", "3", "4"] {
            assert!(numbers.contains(&n), "${n} is used");
        }
    }
}
