//! The one statement builder of the leased queues (webhook deliveries, emails, and whatever
//! outbound work comes next): claim (taking over what a holder stopped renewing), renewal by
//! holder, fenced settle, release, backlog and sweep, parameterised by table and status names,
//! with the binds they share.
//!
//! A held row's `due_at` is when its lease runs out, `holder` the worker process holding it and
//! `lease` the claim's fence token. The holder renews `due_at` of all its rows in flight in one
//! `UPDATE` (by the partial index of held rows); a claim takes due pending rows and held rows
//! whose `due_at` passed, and tells which were held (a takeover) and by whom, from the row it
//! locked. The renewal and the claim's `UPDATE` each re-check their condition on the row they
//! change, so a renewal and a takeover racing for one row cannot both win.
//!
//! Shape, for PostgreSQL and for a distributed (Citus) layout alike, with the same statements:
//! every row a statement changes is named by `(team_id, id)`, and a join (the webhook claim's
//! endpoint) is between tables co-located on `team_id`. The claim takes no row lock on its
//! candidates (a row lock across shards is what Citus refuses): its `UPDATE` checks again that
//! each row is still due, on the row as a concurrent claimer left it, so of two claimers
//! reading the same due row the second finds it held, with a lease running, and leaves it.
//! The lease token then fences every settle: only the claim that holds a row records its
//! outcome. Claims of one queue are taken in turn ([`super::claims`]), so that a claim never
//! reads as due a row an earlier claim took.

use async_trait::async_trait;
use diesel::QueryableByName;
use diesel::deserialize;
use diesel::pg::Pg;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::row::NamedRow;
use diesel::sql_types::{Array, BigInt, Bool, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use procflow_domain::error::DomainResult;
use procflow_domain::ids::HolderId;
use procflow_domain::ports::{Backlog, LeasedQueue};
use procflow_domain::queue::{Claim, Job, Lease, Takeover};
use time::OffsetDateTime;
use uuid::Uuid;

use super::PgStore;
use super::by_text::ByText;
use super::claims::{Claims, in_turn};
use super::sweep::delete_in_batches;
use crate::error::db_error;

/// A queue's table and the names of its statuses (`pending` and `failed` are every queue's).
pub(super) struct QueueTable {
    /// The table, aliased `q` in every statement.
    pub(super) table: &'static str,
    /// A row held by a worker (`delivering`, `sending`).
    pub(super) held: &'static str,
    /// A row done (`delivered`, `sent`).
    pub(super) done: &'static str,
    /// Its claim lock.
    pub(super) claims: Claims,
}

/// A column a queue's settle carries beside the shared ones: `$8` onwards, in order.
pub(super) struct Column {
    /// Its name in the input (`i.name`).
    pub(super) name: &'static str,
    /// Its array type (`int4[]`).
    pub(super) array: &'static str,
    /// Whether the row's column of that name is set from it (else it is only carried to
    /// `RETURNING`).
    pub(super) set: bool,
}

/// How a queue's claim joins and what it answers.
pub(super) struct ClaimShape {
    /// Further tables, each `, table alias` (co-located on `team_id`).
    pub(super) join: &'static str,
    /// The join's conditions, each `AND ...`.
    pub(super) on: &'static str,
    /// The `RETURNING` list.
    pub(super) returning: &'static str,
}

/// A queue's statements, built once.
pub(super) struct Statements {
    /// The lock its claims are taken in turn under.
    pub(super) claims: Claims,
    /// `$1` now, `$2` limit, `$3` lease token, `$4` lease until, `$5` holder; answers the
    /// queue's `RETURNING` list and `taken_over`, `taken_from`.
    pub(super) claim: String,
    /// `$1` holder, `$2` until.
    pub(super) renew: String,
    /// `$1`..`$7` the shared arrays ([`bind_settled`]), then the queue's [`Column`]s; usable
    /// as a CTE's body.
    pub(super) settle: String,
    /// `$1` holder, `$2` now.
    pub(super) release: String,
    /// `count` and `oldest`.
    pub(super) backlog: String,
    /// `$1` before, `$2` the batch ([`delete_in_batches`]).
    pub(super) sweep: String,
}

impl QueueTable {
    /// The statements of this queue; its settle `RETURNING q.id` and `returning`.
    pub(super) fn statements(
        &self,
        claim: &ClaimShape,
        extra: &[Column],
        returning: &str,
    ) -> Statements {
        let Self {
            table,
            held,
            done,
            claims,
        } = self;
        let waiting = format!("status IN ('pending', '{held}') AND due_at <= $1");
        // `due` is read before the `UPDATE` changes the rows, so it still says whether each
        // was held, and by whom, as the claim's snapshot saw it (only a report reads it).
        let claim = format!(
            "WITH due AS ( \
               SELECT team_id, id, status = '{held}' AS taken_over, holder AS taken_from \
               FROM {table} WHERE {waiting} \
               ORDER BY due_at LIMIT $2) \
             UPDATE {table} q \
             SET status = '{held}', attempts = q.attempts + 1, lease = $3, due_at = $4, \
                 last_attempt_at = $1, holder = $5 \
             FROM due{join} \
             WHERE q.team_id = due.team_id AND q.id = due.id \
               AND q.status IN ('pending', '{held}') AND q.due_at <= $1 {on} \
             RETURNING {returning_claim}, due.taken_over, due.taken_from",
            join = claim.join,
            on = claim.on,
            returning_claim = claim.returning,
        );
        let sets: String = extra
            .iter()
            .filter(|c| c.set)
            .map(|c| format!(", {0} = i.{0}", c.name))
            .collect();
        let arrays: String = extra
            .iter()
            .enumerate()
            .map(|(n, c)| format!(", ${}::{}", n + 8, c.array))
            .collect();
        let names: String = extra.iter().map(|c| format!(", {}", c.name)).collect();
        let settle = format!(
            "UPDATE {table} q \
             SET status = i.status, error = i.error, last_attempt_at = i.attempted_at, \
                 due_at = coalesce(i.next_attempt_at, q.due_at), lease = NULL, \
                 holder = NULL{sets} \
             FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], \
                         $6::timestamptz[], $7::timestamptz[]{arrays}) \
                  AS i(team_id, id, lease, status, error, attempted_at, next_attempt_at{names}) \
             WHERE q.team_id = i.team_id AND q.id = i.id AND q.lease = i.lease \
               AND q.status = '{held}' \
             RETURNING q.id{returning}"
        );
        Statements {
            claims: *claims,
            claim,
            renew: format!(
                "UPDATE {table} SET due_at = $2 WHERE holder = $1 AND status = '{held}'"
            ),
            settle,
            release: format!(
                "UPDATE {table} SET status = 'pending', due_at = $2, attempts = attempts - 1, \
                     lease = NULL, holder = NULL \
                 WHERE holder = $1 AND status = '{held}'"
            ),
            backlog: format!(
                "SELECT count(*) AS count, min(created_at) AS oldest FROM {table} \
                 WHERE status IN ('pending', '{held}')"
            ),
            sweep: format!(
                "DELETE FROM {table} WHERE (team_id, id) IN ( \
                   SELECT team_id, id FROM {table} \
                   WHERE created_at < $1 AND status IN ('{done}', 'failed') LIMIT $2)"
            ),
        }
    }
}

/// Binds a claim's `$1`..`$5`.
pub(super) fn bind_claim(
    claim: &str,
    limit: usize,
    now: OffsetDateTime,
    lease: &Lease,
) -> BoxedSqlQuery<'static, Pg, SqlQuery> {
    diesel::sql_query(claim.to_owned())
        .into_boxed()
        .bind::<Timestamptz, _>(now)
        .bind::<BigInt, _>(i64::try_from(limit).unwrap_or(i64::MAX))
        .bind::<SqlUuid, _>(lease.token)
        .bind::<Timestamptz, _>(lease.until)
        .bind::<SqlUuid, _>(lease.holder.as_uuid())
}

/// A claimed row, with whether it was taken over and from whom.
pub(super) struct ClaimedRow<R> {
    row: R,
    taken_over: bool,
    taken_from: Option<Uuid>,
}

// By hand: the derive cannot embed a generic row.
impl<R: QueryableByName<Pg>> QueryableByName<Pg> for ClaimedRow<R> {
    fn build<'a>(row: &impl NamedRow<'a, Pg>) -> deserialize::Result<Self> {
        Ok(Self {
            row: R::build(row)?,
            taken_over: NamedRow::get::<Bool, bool>(row, "taken_over")?,
            taken_from: NamedRow::get::<Nullable<SqlUuid>, Option<Uuid>>(row, "taken_from")?,
        })
    }
}

/// What every queue's settle records of one outcome.
pub(super) struct SettledRow<'a> {
    pub(super) team_id: Uuid,
    pub(super) id: Uuid,
    pub(super) lease: Uuid,
    pub(super) status: &'static str,
    pub(super) error: Option<&'a str>,
    pub(super) attempted_at: OffsetDateTime,
    pub(super) next_attempt_at: Option<OffsetDateTime>,
}

/// Binds a settle's shared `$1`..`$7`; the queue binds its own columns after them.
pub(super) fn bind_settled<'f>(
    settle: &str,
    rows: &[SettledRow<'f>],
) -> BoxedSqlQuery<'f, Pg, SqlQuery> {
    let column = |f: fn(&SettledRow<'_>) -> Uuid| rows.iter().map(f).collect::<Vec<_>>();
    diesel::sql_query(settle.to_owned())
        .into_boxed()
        .bind::<Array<SqlUuid>, _>(column(|r| r.team_id))
        .bind::<Array<SqlUuid>, _>(column(|r| r.id))
        .bind::<Array<SqlUuid>, _>(column(|r| r.lease))
        .bind::<Array<Text>, _>(rows.iter().map(|r| r.status).collect::<Vec<_>>())
        .bind::<Array<Nullable<Text>>, _>(rows.iter().map(|r| r.error).collect::<Vec<_>>())
        .bind::<Array<Timestamptz>, _>(rows.iter().map(|r| r.attempted_at).collect::<Vec<_>>())
        .bind::<Array<Nullable<Timestamptz>>, _>(
            rows.iter().map(|r| r.next_attempt_at).collect::<Vec<_>>(),
        )
}

/// A row a settle recorded (`RETURNING q.id`).
#[derive(QueryableByName)]
pub(super) struct Settled {
    #[diesel(sql_type = SqlUuid)]
    pub(super) id: Uuid,
}

/// Whether each outcome of `keys` (in order) is among the rows a settle recorded.
pub(super) fn recorded(keys: impl Iterator<Item = Uuid>, done: &[Settled]) -> Vec<bool> {
    keys.map(|id| done.iter().any(|row| row.id == id)).collect()
}

/// A job kept in a PostgreSQL table: its statements, how a claimed row reads, and what its
/// settle records of an outcome.
#[async_trait]
pub(super) trait PgJob: Job {
    /// The row a claim answers.
    type Row: QueryableByName<Pg> + Send + 'static;

    /// The queue's statements.
    fn statements() -> &'static Statements;

    /// A claimed row, held under `lease`.
    fn claimed(row: Self::Row, lease: Uuid) -> DomainResult<Self::Claimed>;

    /// What every queue's settle records of `settlement`.
    fn settled_row<'a>(claimed: &Self::Claimed, settlement: &'a Self::Settlement)
    -> SettledRow<'a>;

    /// Records outcomes: the shared settle, unless the job records more with them.
    async fn settle(
        store: &PgStore,
        settled: &[(Self::Claimed, Self::Settlement)],
    ) -> DomainResult<Vec<bool>> {
        if settled.is_empty() {
            return Ok(Vec::new());
        }
        let rows: Vec<SettledRow<'_>> = settled
            .iter()
            .map(|(c, s)| Self::settled_row(c, s))
            .collect();
        let mut conn = store.conn().await?;
        let done: Vec<Settled> = ByText(bind_settled(&Self::statements().settle, &rows))
            .load(&mut conn)
            .await
            .map_err(db_error)?;
        Ok(recorded(rows.iter().map(|row| row.id), &done))
    }
}

/// Runs `statement`, a renewal or a release (`$1` the holder, `$2` a time), over a holder's
/// rows: how many it changed.
async fn of_holder(
    store: &PgStore,
    statement: &str,
    holder: HolderId,
    at: OffsetDateTime,
) -> DomainResult<u64> {
    let mut conn = store.conn().await?;
    let changed = ByText(
        diesel::sql_query(statement)
            .bind::<SqlUuid, _>(holder.as_uuid())
            .bind::<Timestamptz, _>(at),
    )
    .execute(&mut conn)
    .await
    .map_err(db_error)?;
    Ok(changed as u64)
}

#[async_trait]
impl<J: PgJob> LeasedQueue<J> for PgStore {
    async fn claim_due(
        &self,
        limit: usize,
        now: OffsetDateTime,
        lease: &Lease,
    ) -> DomainResult<Claim<J>> {
        let mut conn = self.conn().await?;
        let statements = J::statements();
        let claim = bind_claim(&statements.claim, limit, now, lease);
        let rows: Vec<ClaimedRow<J::Row>> = in_turn(&mut conn, statements.claims, claim).await?;
        let taken_from: Vec<Option<HolderId>> = rows
            .iter()
            .filter(|row| row.taken_over)
            .map(|row| row.taken_from.map(HolderId::from_uuid))
            .collect();
        let jobs = rows
            .into_iter()
            .map(|row| J::claimed(row.row, lease.token))
            .collect::<DomainResult<Vec<_>>>()?;
        Ok(Claim {
            jobs,
            taken_over: Takeover::tally(taken_from),
        })
    }

    async fn renew(&self, holder: HolderId, until: OffsetDateTime) -> DomainResult<u64> {
        of_holder(self, &J::statements().renew, holder, until).await
    }

    async fn settle(&self, settled: &[(J::Claimed, J::Settlement)]) -> DomainResult<Vec<bool>> {
        <J as PgJob>::settle(self, settled).await
    }

    async fn release(&self, holder: HolderId, now: OffsetDateTime) -> DomainResult<u64> {
        of_holder(self, &J::statements().release, holder, now).await
    }

    async fn backlog(&self) -> DomainResult<Backlog> {
        let mut conn = self.conn().await?;
        let waiting: Waiting = ByText(diesel::sql_query(J::statements().backlog.as_str()))
            .get_result(&mut conn)
            .await
            .map_err(db_error)?;
        Ok(Backlog {
            pending: u64::try_from(waiting.count).unwrap_or(0),
            oldest: waiting.oldest,
        })
    }

    async fn sweep(&self, before: OffsetDateTime) -> DomainResult<u64> {
        let mut conn = self.conn().await?;
        delete_in_batches(&mut conn, J::statements().sweep.as_str(), before).await
    }
}

#[derive(QueryableByName)]
struct Waiting {
    #[diesel(sql_type = BigInt)]
    count: i64,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    oldest: Option<OffsetDateTime>,
}
