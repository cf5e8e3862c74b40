//! Claims of one queue taken one at a time, by every instance: each in a transaction that
//! first takes the queue's advisory lock, so that its statement's snapshot is taken after the
//! claim before it committed.
//!
//! Why: a claim reads its due rows, then updates them, re-checking each. A claim whose read
//! ran while another claim was taking the same rows finds them taken; PostgreSQL still keeps
//! the lock it took on each to re-check it, until the claim commits. Such a claim then waited
//! for the settle of another row of the other holder, while that settle waited for one of the
//! rows it had re-checked: a deadlock, which PostgreSQL ended by failing one of the two
//! (`make bench` saw hundreds draining one burst of 20,000 deliveries, and each failed settle
//! had its jobs sent again a lease later). With claims in turn, a claim never reads a row as due
//! that an earlier claim took: it takes no lock that a settle can wait for, and it finds
//! `limit` rows whenever there are. Only a takeover (a row whose lease ran out) still meets
//! rows another holder may be settling.
//!
//! The lock is the coordinator's on Citus, so it works the same there; it is held while the
//! claim runs (a few milliseconds), never while jobs are sent. Between the claim and its
//! `COMMIT` the session is idle in its transaction for a round trip: should the instance
//! vanish there without its connection closing (power lost, network cut), the session would
//! keep the lock, and every claim of the queue would wait, until TCP keepalives give up (hours).
//! The transaction therefore sets `idle_in_transaction_session_timeout`, which ends such a
//! session, and frees the lock, after [`IDLE_LIMIT_MS`].

use diesel::QueryableByName;
use diesel::pg::Pg;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::sql_types::{Integer, Text};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use procflow_domain::error::DomainResult;

use super::by_text::ByText;
use super::transaction::Transaction;
use crate::error::{Failure, db_error};

/// The first key of every claim lock: "pf" (procflow), so that it cannot be taken for another
/// purpose's two-key advisory lock by mistake.
const CLASS: i32 = 0x7066;

/// How long a claim's session may wait for its `COMMIT` before PostgreSQL ends it: the
/// lease's length, far beyond a round trip.
const IDLE_LIMIT_MS: &str = "5000";

/// A queue whose claims are taken in turn; its value is the lock's second key.
#[derive(Clone, Copy, Debug)]
pub(super) enum Claims {
    /// `outbox`.
    Outbox = 1,
    /// `webhook_deliveries`.
    Deliveries = 2,
    /// `emails`.
    Mails = 3,
}

/// Runs `claim` in a transaction that first waits for the queue's claim lock. The lock's
/// statement goes out with the transaction's `BEGIN`; both statements stay prepared.
pub(super) async fn in_turn<R>(
    conn: &mut AsyncPgConnection,
    queue: Claims,
    claim: BoxedSqlQuery<'static, Pg, SqlQuery>,
) -> DomainResult<Vec<R>>
where
    R: QueryableByName<Pg> + Send + 'static,
{
    let (transaction, ()) = Transaction::begin_with(conn, async |mut conn: &AsyncPgConnection| {
        ByText(
            diesel::sql_query(
                "SELECT set_config('idle_in_transaction_session_timeout', $1, true), \
                            pg_advisory_xact_lock($2, $3)",
            )
            .bind::<Text, _>(IDLE_LIMIT_MS)
            .bind::<Integer, _>(CLASS)
            .bind::<Integer, _>(queue as i32),
        )
        .execute(&mut conn)
        .await
        .map(|_| ())
        .map_err(db_error)
    })
    .await?;
    let mut claiming = transaction.conn();
    let claimed = ByText(claim)
        .load(&mut claiming)
        .await
        .map_err(Failure::from);
    Ok(transaction.end(claimed).await?)
}
