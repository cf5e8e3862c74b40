//! `RateLimiter` on PostgreSQL: the key looked up by its hash and, for an active team, the
//! request counted in the key's row of `rate_limits` (one counter per second of the window,
//! API contract 3), all in one statement: one round trip admits a request. The count is
//! decided and written by one `UPDATE` of the key's row, under that row's lock for the length
//! of the statement, so the limit is exact across server instances, and a request costs the
//! same whatever the limit and the key's traffic (60 counters, not one timestamp per request).
//!
//! The statement commits asynchronously (`synchronous_commit` off for its own transaction
//! only): it does not wait for its WAL to reach the disk, which on a read request is the only
//! disk wait there is. What that risks is bounded and harmless: if PostgreSQL itself crashes,
//! the counts of the last few hundred milliseconds (3 x `wal_writer_delay` at most) may be
//! forgotten, letting a key make that many more requests once; no other data is involved, and
//! every later synchronous commit flushes these records too.

use std::sync::LazyLock;

use async_trait::async_trait;
use diesel::QueryableByName;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{
    Array, BigInt, Bool, Bytea, Integer, Nullable, Text, Timestamptz, Untyped, Uuid as SqlUuid,
};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use procflow_domain::error::{DomainResult, StoreError};
use procflow_domain::ports::{Admission, RateLimiter};
use procflow_domain::team::{ApiKey, Subscription, Team};
use procflow_domain::window::{self, SecondCounts, WindowLimit};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use super::PgStore;
use super::seconds::stored_counts;
use crate::error::db_error;
use crate::rows::team::{ApiKeyRow, TeamRow};

/// Looks the key up, then decides and records one request, in one statement.
///
/// - `k` is the unrevoked key with the hash `$1` and its team `$6`, the team the token
///   directory names for that hash (store/directory.rs); no row, no key. Every table is
///   named with `team_id = $6`, so on Citus the whole statement runs on that team's shard.
/// - `args` is `k` when its team's subscription is `$5` (active). It also turns
///   `synchronous_commit` off for this statement's transaction (see the module docs): being in
///   `args`, which the `UPDATE` reads, it is evaluated exactly when something may be written.
/// - `counted` is one `UPDATE ... RETURNING` of the key's row (made with the key): no
///   `FOR UPDATE`, no `INSERT`, so the statement stays routable to one shard. Under READ
///   COMMITTED an `UPDATE` that waited for a concurrent writer evaluates its `SET` on the row as
///   that writer left it, so every decision sees every request accepted before it. The `SET`
///   rolls the counters to the request's second `$2` (or to the row's newest second, when this
///   caller's clock lags: `newest`), keeping the `$4` seconds of the window (nothing to roll
///   for a busy key's second request in a second, the common case), sums them
///   (`total`), and adds the request to its second's counter (`at`) when fewer than `$3` are
///   counted. `admitted` records that decision, because `RETURNING` sees only the new row.
///   A refused request writes the rolled counters back (the same size as always).
/// - No row returned with an active team means the key has no rate row (a key written by hand):
///   the caller creates it and runs the statement again.
const ADMIT: &str = "\
WITH k AS ( \
    SELECT api_keys.team_id, api_keys.id AS key_id, api_keys.name AS key_name, \
           api_keys.prefix, api_keys.key_hash, api_keys.created_by, \
           api_keys.created_at AS key_created_at, api_keys.revoked_at, api_keys.scope, \
           teams.name AS team_name, teams.base_url, teams.timezone, teams.subscription, \
           teams.created_at AS team_created_at \
    FROM api_keys JOIN teams ON teams.id = api_keys.team_id \
    WHERE api_keys.team_id = $6 AND teams.id = $6 AND api_keys.key_hash = $1 \
      AND api_keys.revoked_at IS NULL \
), args AS ( \
    SELECT k.team_id, k.key_id AS api_key_id, \
           set_config('synchronous_commit', 'off', true) AS async_commit \
    FROM k WHERE k.subscription = $5 \
), counted AS ( \
    UPDATE rate_limits AS r \
    SET (second, counts, admitted) = ( \
        SELECT d.newest, \
               CASE WHEN d.total < $3 \
                    THEN d.counts[:d.at - 1] || (d.counts[d.at] + 1) || d.counts[d.at + 1:] \
                    ELSE d.counts END, \
               d.total < $3 \
        FROM ( \
            SELECT s.newest, s.counts, \
                   (SELECT coalesce(sum(c), 0) FROM unnest(s.counts) AS c) AS total, \
                   greatest(1, $4 + $2 - s.newest)::int AS at \
            FROM ( \
                SELECT greatest(r.second, $2) AS newest, \
                       CASE WHEN r.second >= $2 AND cardinality(r.counts) = $4 THEN r.counts \
                       ELSE ARRAY(SELECT coalesce(CASE WHEN x > r.second - cardinality(r.counts) \
                                                        AND x <= r.second \
                                                   THEN r.counts[(x - r.second \
                                                                  + cardinality(r.counts))::int] \
                                                   END, 0) \
                                  FROM generate_series(greatest(r.second, $2) - $4 + 1, \
                                                       greatest(r.second, $2)) AS x \
                                  ORDER BY x) END AS counts \
            ) AS s \
        ) AS d \
    ) \
    FROM args \
    WHERE r.team_id = $6 AND r.team_id = args.team_id AND r.api_key_id = args.api_key_id \
    RETURNING r.second, r.counts, r.admitted \
) \
SELECT k.*, counted.second, counted.counts, counted.admitted \
FROM k LEFT JOIN counted ON true";

/// Creates the rate row of a key that has none (a key written outside the store).
const CREATE_ROW: &str = "\
INSERT INTO rate_limits (team_id, api_key_id) VALUES ($1, $2) \
ON CONFLICT (team_id, api_key_id) DO NOTHING";

/// How often the statement is tried when the key has no rate row yet. Once the row exists
/// the statement always answers, so the second try does.
const ATTEMPTS: usize = 3;

/// The statement with its binds. Unlike `sql_query`, its SQL is fixed, so diesel keeps it
/// prepared on each connection (a static query id): PostgreSQL parses it once per connection
/// and soon plans it once too, which is most of the cost of so short a statement.
#[derive(Debug)]
struct AdmitQuery<'a> {
    key_hash: &'a [u8],
    /// The request's second, in Unix seconds.
    second: i64,
    lim: i64,
    /// The window's seconds: the counters a row keeps.
    seconds: i64,
    /// The subscription whose requests are counted.
    active: &'static str,
    /// The team the directory names for the key.
    team: Uuid,
}

impl QueryId for AdmitQuery<'_> {
    type QueryId = AdmitQuery<'static>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl Query for AdmitQuery<'_> {
    type SqlType = Untyped;
}

/// A piece of `ADMIT` as it is sent: text, or the bind of one of its six `$n`.
#[derive(Debug, PartialEq, Eq)]
enum Piece {
    Sql(String),
    Bind(u8),
}

/// `ADMIT` cut at its binds, once. Each of its `$n` is bound once, where it first appears: the
/// statement goes out with its parameters numbered in that order, and every later `$n` is
/// written as the number its bind was given. Binding each appearance (17 for six values) cost
/// a twentieth of the admission's instructions and sent PostgreSQL eleven copies of them.
/// Consecutive text is one piece: the statement's text goes in seven pushes.
static ADMIT_PIECES: LazyLock<Vec<Piece>> = LazyLock::new(|| {
    let mut parts = ADMIT.split('$');
    let mut pieces = vec![Piece::Sql(parts.next().unwrap_or_default().to_owned())];
    let mut order: Vec<u8> = Vec::new();
    let text = |pieces: &mut Vec<Piece>, more: &str| match pieces.last_mut() {
        Some(Piece::Sql(sql)) => sql.push_str(more),
        _ => pieces.push(Piece::Sql(more.to_owned())),
    };
    for part in parts {
        let digits = part
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(part.len());
        let (number, rest) = part.split_at(digits);
        // ADMIT names $1 to $6 alone (a test checks it); anything else stays text and fails
        // at PostgreSQL, as a typo in the statement would.
        let Some(n) = number.parse::<u8>().ok() else {
            text(&mut pieces, &format!("${number}"));
            text(&mut pieces, rest);
            continue;
        };
        match order.iter().position(|seen| *seen == n) {
            Some(at) => text(&mut pieces, &format!("${}", at + 1)),
            None => {
                order.push(n);
                pieces.push(Piece::Bind(n));
            }
        }
        text(&mut pieces, rest);
    }
    pieces
});

impl QueryFragment<Pg> for AdmitQuery<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> diesel::QueryResult<()> {
        // diesel numbers the binds in the order they are pushed, which is the order
        // ADMIT_PIECES numbered them in.
        for piece in &*ADMIT_PIECES {
            match piece {
                Piece::Sql(sql) => out.push_sql(sql),
                Piece::Bind(1) => out.push_bind_param::<Bytea, _>(&self.key_hash)?,
                Piece::Bind(2) => out.push_bind_param::<BigInt, _>(&self.second)?,
                Piece::Bind(3) => out.push_bind_param::<BigInt, _>(&self.lim)?,
                Piece::Bind(4) => out.push_bind_param::<BigInt, _>(&self.seconds)?,
                Piece::Bind(5) => out.push_bind_param::<Text, _>(self.active)?,
                Piece::Bind(6) => out.push_bind_param::<SqlUuid, _>(&self.team)?,
                Piece::Bind(number) => {
                    return Err(diesel::result::Error::QueryBuilderError(
                        format!("unexpected ${number} in the admission statement").into(),
                    ));
                }
            }
        }
        Ok(())
    }

    // Its text is fixed: no need to walk it to find out.
    fn is_safe_to_cache_prepared(&self, _backend: &Pg) -> diesel::QueryResult<bool> {
        Ok(true)
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
    /// The key's newest second counted; `None` for an inactive team, or when the key has no
    /// rate row yet (then it is made and the statement runs again).
    #[diesel(sql_type = Nullable<BigInt>)]
    second: Option<i64>,
    /// The key's counters after this request, oldest second first.
    #[diesel(sql_type = Nullable<Array<Nullable<Integer>>>)]
    counts: Option<Vec<Option<i32>>>,
    /// Whether this request was counted.
    #[diesel(sql_type = Nullable<Bool>)]
    admitted: Option<bool>,
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
        // Each statement commits alone: on the connection the reads beside it share.
        super::shared::on_shared!(self, |conn| self
            .admit_on(conn, key_hash, now, limit, window))
    }
}

impl PgStore {
    /// The admission's statements on `conn`, each committing alone.
    async fn admit_on(
        &self,
        mut conn: &AsyncPgConnection,
        key_hash: &[u8; 32],
        now: OffsetDateTime,
        limit: u32,
        window: Duration,
    ) -> DomainResult<Option<Admission>> {
        let Some(team) = self
            .known_tokens
            .api_key_team(conn, key_hash)
            .await
            .map_err(db_error)?
        else {
            return Ok(None);
        };
        let limits = [WindowLimit {
            name: String::new(),
            limit,
        }];
        for _ in 0..ATTEMPTS {
            let query = AdmitQuery {
                key_hash: key_hash.as_slice(),
                second: window::second_of(now),
                lim: i64::from(limit),
                seconds: i64::try_from(window::seconds_of(window)).unwrap_or(60),
                active: Subscription::Active.as_str(),
                team,
            };
            let rows: Vec<Admitted> = query.load(&mut conn).await.map_err(db_error)?;
            let Some(row) = rows.into_iter().next() else {
                return Ok(None);
            };
            let decided = match (row.second, row.counts.as_ref(), row.admitted) {
                (Some(newest), Some(counts), Some(admitted)) => Some((
                    SecondCounts {
                        newest,
                        counts: stored_counts(counts)?,
                    },
                    admitted,
                )),
                _ => None,
            };
            let (team_id, key_id) = (row.team_id, row.key_id);
            let (key, team) = row.key_and_team()?;
            if !team.is_active() {
                return Ok(Some(Admission {
                    key,
                    team,
                    rate: None,
                }));
            }
            if let Some((counts, admitted)) = decided {
                let rate = window::decide(&[&counts], admitted, &limits, now, window).decision;
                return Ok(Some(Admission {
                    key,
                    team,
                    rate: Some(rate),
                }));
            }
            diesel::sql_query(CREATE_ROW)
                .bind::<SqlUuid, _>(team_id)
                .bind::<SqlUuid, _>(key_id)
                .execute(&mut conn)
                .await
                .map_err(db_error)?;
        }
        Err(StoreError::Other("rate limit row could not be created or read".into()).into())
    }
}

#[cfg(test)]
mod tests {
    use diesel::pg::Pg;
    use uuid::Uuid;

    use super::{ADMIT, ADMIT_PIECES, AdmitQuery, Piece};

    /// The statement sent binds each of its six values once, and is ADMIT: with each `$k` it
    /// sends read as the value bound `k`-th, it is ADMIT with each `$n` read as value `n`.
    #[test]
    fn the_admission_sends_each_value_once_in_the_statement_it_names() {
        let query = AdmitQuery {
            key_hash: &[],
            second: 222,
            lim: 333,
            seconds: 444,
            active: "active",
            team: Uuid::from_u128(0x666),
        };
        let values = [
            "[]",
            "222",
            "333",
            "444",
            "\"active\"",
            "00000000-0000-0000-0000-000000000666",
        ];
        let shown = diesel::debug_query::<Pg, _>(&query).to_string();
        let (sql, binds) = shown
            .split_once(" -- binds: ")
            .expect("debug_query shows its binds");
        let binds: Vec<&str> = binds
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split(", ")
            .collect();
        assert_eq!(binds.len(), 6, "{binds:?}");
        let read = |sql: &str, value: &dyn Fn(usize) -> String| {
            let mut parts = sql.split('$');
            let mut out = parts.next().unwrap_or_default().to_owned();
            for part in parts {
                let digits = part
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(part.len());
                let (number, rest) = part.split_at(digits);
                out.push_str(&value(number.parse().expect("a bind number")));
                out.push_str(rest);
            }
            out
        };
        assert_eq!(
            read(sql, &|k| binds[k - 1].to_owned()),
            read(ADMIT, &|n| values[n - 1].to_owned())
        );
        let texts = ADMIT_PIECES
            .iter()
            .filter(|p| matches!(p, Piece::Sql(_)))
            .count();
        assert_eq!(texts, 7, "text between the six binds, and before the first");
    }

    #[test]
    fn the_admission_statement_names_only_its_six_binds_each_at_least_once() {
        let numbers: Vec<&str> = ADMIT.split('$').skip(1).map(|part| &part[..1]).collect();
        assert!(
            numbers
                .iter()
                .all(|n| ["1", "2", "3", "4", "5", "6"].contains(n))
        );
        for n in ["1", "2", "3", "4", "5", "6"] {
            assert!(numbers.contains(&n), "${n} is used");
        }
    }

    /// The admission of the bench's SQL floor (`bench/sql/admission.sql`) is this statement,
    /// its binds written as pgbench variables and the second taken from PostgreSQL's clock:
    /// a floor that ran another statement would measure something the service does not do.
    #[test]
    fn the_bench_floor_sends_this_admission() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/sql/admission.sql");
        let script = std::fs::read_to_string(path).expect("bench/sql/admission.sql is readable");
        let statement: String = script
            .lines()
            .filter(|line| !line.starts_with("--") && !line.starts_with('\\'))
            .collect::<Vec<_>>()
            .join("\n");
        let floor = [
            (
                "sha256(convert_to('pf_live_bench_' || :key_tag || '_' || :k, 'UTF8'))",
                "$1",
            ),
            (
                "floor(extract(epoch FROM statement_timestamp()))::bigint",
                "$2",
            ),
            (":limit", "$3"),
            (":window", "$4"),
            (":active", "$5"),
            (":team", "$6"),
        ]
        .iter()
        .fold(statement, |sql, (pgbench, bind)| sql.replace(pgbench, bind));
        assert_eq!(squeezed(&floor), squeezed(ADMIT));
    }

    /// The statement with its whitespace reduced to what SQL needs: one space between words,
    /// none beside punctuation, no final semicolon.
    fn squeezed(sql: &str) -> String {
        fn tight(c: char) -> bool {
            "()[],:;".contains(c)
        }
        let spaced = sql.split_whitespace().collect::<Vec<_>>().join(" ");
        let chars: Vec<char> = spaced.chars().collect();
        let mut out = String::with_capacity(spaced.len());
        for (i, &c) in chars.iter().enumerate() {
            let beside_punctuation = out.chars().last().is_some_and(tight)
                || chars.get(i + 1).copied().is_some_and(tight);
            if c == ' ' && beside_punctuation {
                continue;
            }
            out.push(c);
        }
        out.trim_end_matches(';').to_owned()
    }
}
