//! One connection of a pool shared by the statements that commit alone (the admission, the
//! reads of single resources and lists), so that the requests in flight on a worker send
//! theirs together, pipelined, instead of each on a connection of its own.
//!
//! A read's request runs two such statements at once (the admission beside the read,
//! `procflow-http` `auth`), and two or more requests are in flight on a worker under load: on
//! connections of their own, each statement cost PostgreSQL a backend woken, a message read
//! and an answer written, and the server a write and a read of its own. On one connection,
//! tokio-postgres writes whatever statements are waiting in one go, and one backend answers
//! them in turn (`docs/performance.md`, "Reads and admissions on one connection").
//!
//! Every statement sent here must commit alone: no transaction can begin on a shared
//! connection (diesel-async runs none through a `&AsyncPgConnection`). These statements take
//! no lock longer than an admission's row update, but one may wait for a lock held elsewhere
//! (a table locked by a migration or a stuck session), and the statements sent behind it would
//! wait with it. So a shared connection waits for a lock [`SHARED_LOCK_TIMEOUT`] at most; a
//! statement that waited that long runs again on a connection of its own, where it waits as
//! long as any statement may (the pool's `lock_timeout`), holding up no one. And as a safety
//! net, statements not answered within the pool's checkout timeout fail `Unavailable`, as a
//! request that waited that long for a connection of its own would. A connection stops being
//! shared when it fails, and is closed rather than given back to the pool once its users are
//! done (its lock timeout is not the pool's, and its backend may still be working through what
//! was sent). A pool of one connection shares nothing: its only connection must stay free for
//! transactions.

use std::ops::Deref;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use diesel_async::pooled_connection::PoolableConnection;
use diesel_async::{
    AnsiTransactionManager, AsyncPgConnection, SimpleAsyncConnection, TransactionManager,
};
use procflow_domain::error::{DomainError, DomainResult, StoreError};

use super::PgStore;
use crate::checkout::Checkout;
use crate::error::{LOCK_TIMEOUT, db_error};
use crate::pool::set_lock_timeout;

type Pooled = Arc<Lease>;

/// How long a statement on a shared connection waits for a lock held elsewhere before it is
/// run again on a connection of its own: an admission's row lock, held by another admission of
/// the same key, is held for well under this.
pub(super) const SHARED_LOCK_TIMEOUT: Duration = Duration::from_millis(50);

/// A connection taken from the pool: given back when its last user is done, but marked broken
/// first when it was shared (its lock timeout is not the pool's, and its backend may still be
/// working through statements given up), so that the pool closes it rather than give it out
/// again.
struct Lease {
    conn: Checkout,
    close: bool,
}

impl Lease {
    fn new(conn: Checkout, close: bool) -> Self {
        Self { conn, close }
    }

    fn conn_mut(&mut self) -> &mut AsyncPgConnection {
        &mut self.conn
    }
}

impl Deref for Lease {
    type Target = AsyncPgConnection;

    fn deref(&self) -> &AsyncPgConnection {
        &self.conn
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if self.close {
            AnsiTransactionManager::transaction_manager_status_mut(self.conn_mut()).set_in_error();
        }
    }
}

/// The connection a store shares, once one was taken from its pool.
pub(super) struct Shared {
    /// Whether the pool has two connections or more: fixed with the pool, so the hot path
    /// reads it rather than asking the pool.
    enabled: bool,
    /// How long a statement may go unanswered: the pool's checkout timeout.
    patience: Duration,
    slot: Mutex<Option<Pooled>>,
    /// Held while a connection is taken from the pool to share, so that the requests that
    /// find none shared take one between them, not one each.
    taking: tokio::sync::Mutex<()>,
}

impl Shared {
    /// Sharing for a pool of `max_size` connections (none below two) whose checkouts wait
    /// `patience` at most.
    pub(super) fn for_pool(max_size: usize, patience: Duration) -> Self {
        Self {
            enabled: max_size >= 2,
            patience,
            slot: Mutex::default(),
            taking: tokio::sync::Mutex::default(),
        }
    }

    /// The connection shared now, if any. One that nobody uses and that broke (its socket
    /// closed) is given back first.
    fn current(&self) -> Option<Pooled> {
        let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(conn) = slot.as_mut()
            && let Some(alone) = Arc::get_mut(conn)
            && PoolableConnection::is_broken(alone.conn_mut())
        {
            *slot = None;
        }
        slot.clone()
    }

    /// Shares `fresh`.
    fn share(&self, fresh: Pooled) {
        *self.slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(fresh);
    }

    /// Stops sharing `failed`, if it is still the one shared: its users keep it until they
    /// are done, then the pool takes it back (and drops it if it broke).
    fn forget(&self, failed: &Pooled) {
        let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.as_ref().is_some_and(|conn| Arc::ptr_eq(conn, failed)) {
            *slot = None;
        }
    }
}

/// A connection for statements that commit alone: the store's shared one, or one of the pool
/// of its own when the pool holds a single connection (`home` is then `None`).
pub(super) struct SharedConn {
    conn: Pooled,
    home: Option<Arc<Shared>>,
    /// When the statements must have been answered: the pool's checkout timeout after the
    /// connection was asked for, so that waiting for one and then on it never adds up to more.
    deadline: tokio::time::Instant,
}

impl Deref for SharedConn {
    type Target = AsyncPgConnection;

    fn deref(&self) -> &AsyncPgConnection {
        &self.conn
    }
}

/// Runs the statements `$statements` makes of a connection `$conn` (they commit alone) on
/// `$store`'s shared connection, and again on a connection of the pool's own when they waited
/// there for a lock held elsewhere (see the module's documentation). Evaluates to their result.
macro_rules! on_shared {
    ($store:expr, |$conn:ident| $statements:expr) => {{
        let shared = $store.shared_conn().await?;
        let result = {
            let $conn: &diesel_async::AsyncPgConnection = &shared;
            shared.run($statements).await
        };
        match result {
            Err(error) if shared.waited_for_lock(&error) => {
                drop(shared);
                let own = $store.conn().await?;
                let $conn: &diesel_async::AsyncPgConnection = &own;
                $statements.await
            }
            result => result,
        }
    }};
}
pub(super) use on_shared;

impl SharedConn {
    /// Whether `error`, of statements run on this connection, is a shared connection's short
    /// wait for a lock ([`SHARED_LOCK_TIMEOUT`]) running out.
    pub(super) fn waited_for_lock(&self, error: &DomainError) -> bool {
        self.home.is_some()
            && matches!(error, DomainError::Store(StoreError::Unavailable(cause)) if cause.contains(LOCK_TIMEOUT))
    }

    /// Runs `statements` on this connection and passes their result on. On a shared
    /// connection they fail `Unavailable` when unanswered within the pool's checkout timeout
    /// (counted from when the connection was asked for); a shared connection that failed them
    /// (lost, given up, or any other reason the store calls it unavailable, but a short wait
    /// for a lock) is no longer shared, so that the next statements go to another.
    pub(super) async fn run<T>(
        &self,
        statements: impl Future<Output = DomainResult<T>>,
    ) -> DomainResult<T> {
        let Some(home) = &self.home else {
            return statements.await;
        };
        let result = match tokio::time::timeout_at(self.deadline, statements).await {
            Ok(result) => result,
            Err(_) => {
                tracing::warn!(
                    patience_ms = home.patience.as_millis() as u64,
                    "a statement on the shared database connection went unanswered: the \
                     connection is closed and the next statements take another"
                );
                Err(StoreError::Unavailable(format!(
                    "no answer within {} ms on a connection shared with other requests",
                    home.patience.as_millis()
                ))
                .into())
            }
        };
        // A statement that gave up its short wait for a lock leaves a sound connection.
        if let Err(error @ DomainError::Store(StoreError::Unavailable(_))) = &result
            && !self.waited_for_lock(error)
        {
            tracing::warn!("a shared database connection failed: the next statements take another");
            home.forget(&self.conn);
        }
        result
    }
}

impl PgStore {
    /// The connection for statements that commit alone (see the module's documentation).
    ///
    /// # Errors
    /// `Unavailable` when the pool has no connection to give in time.
    pub(super) async fn shared_conn(&self) -> DomainResult<SharedConn> {
        let deadline = tokio::time::Instant::now() + self.shared.patience;
        if !self.shared.enabled {
            let own = self.conn().await?;
            return Ok(SharedConn {
                conn: Arc::new(Lease::new(own, false)),
                home: None,
                deadline,
            });
        }
        let conn = match self.shared.current() {
            Some(conn) => conn,
            None => {
                let _taking = self.shared.taking.lock().await;
                match self.shared.current() {
                    Some(conn) => conn,
                    None => {
                        let mut fresh = self.conn().await?;
                        fresh
                            .batch_execute(&set_lock_timeout(SHARED_LOCK_TIMEOUT))
                            .await
                            .map_err(db_error)?;
                        if let Some(counter) = &self.config.statement_counter {
                            counter.uncount_setup();
                        }
                        let fresh = Arc::new(Lease::new(fresh, true));
                        self.shared.share(fresh.clone());
                        fresh
                    }
                }
            }
        };
        Ok(SharedConn {
            conn,
            home: Some(self.shared.clone()),
            deadline,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use diesel::dsl::sql;
    use diesel::sql_types::Integer;
    use diesel_async::{AsyncConnection, RunQueryDsl, SimpleAsyncConnection};
    use futures_util::future::join_all;
    use procflow_domain::ids::TeamId;
    use procflow_domain::ports::{RateLimiter, RunStore};
    use procflow_domain::run::RunFilter;
    use procflow_domain::values::{Limit, PageRequest};
    use time::OffsetDateTime;
    use uuid::Uuid;

    use super::*;
    use crate::PoolConfig;
    use crate::testing::{lock_runs, migrated_database};

    fn store(url: &str, max_size: usize) -> PgStore {
        PgStore::new(&PoolConfig {
            max_size,
            // A request that waits for a connection the shared one kept fails fast.
            timeout: Duration::from_millis(500),
            ..PoolConfig::new(url)
        })
        .expect("pool")
    }

    /// A read that commits alone: a page of an unknown team's runs (empty).
    async fn read(store: &PgStore) -> DomainResult<usize> {
        let page = PageRequest {
            limit: Limit::default(),
            cursor: None,
        };
        let team = TeamId::from_uuid(Uuid::new_v4());
        let runs = store.list_runs(team, RunFilter::default(), page).await?;
        Ok(runs.items.len())
    }

    /// An admission of an unknown key (no one admitted).
    async fn admit(store: &PgStore) -> DomainResult<bool> {
        let admission = store
            .admit(
                &[7; 32],
                OffsetDateTime::now_utc(),
                10,
                time::Duration::MINUTE,
            )
            .await?;
        Ok(admission.is_some())
    }

    async fn backend_of(conn: &AsyncPgConnection) -> i32 {
        diesel::select(sql::<Integer>("pg_backend_pid()"))
            .get_result(&mut &*conn)
            .await
            .expect("backend")
    }

    async fn terminate(url: &str, backend: i32) {
        let mut admin = AsyncPgConnection::establish(url).await.expect("connect");
        let done: bool = diesel::select(sql::<diesel::sql_types::Bool>(&format!(
            "pg_terminate_backend({backend}, 5000)"
        )))
        .get_result(&mut admin)
        .await
        .expect("terminate");
        assert!(done, "backend {backend} terminated");
    }

    #[tokio::test]
    async fn reads_and_admissions_in_flight_together_share_one_connection() {
        let db = migrated_database().await;
        let store = store(db.url(), 4);
        let reads = join_all((0..8).map(|_| read(&store))).await;
        let admissions = join_all((0..8).map(|_| admit(&store))).await;
        let both = futures_util::future::join(read(&store), admit(&store)).await;
        assert!(reads.iter().all(|r| matches!(r, Ok(0))), "{reads:?}");
        assert!(
            admissions.iter().all(|a| matches!(a, Ok(false))),
            "{admissions:?}"
        );
        assert!(matches!(both, (Ok(0), Ok(false))), "{both:?}");
        // On connections of their own, eight reads at once would have opened all four.
        let status = store.status();
        assert_eq!((status.size, status.available), (1, 0), "{status:?}");
    }

    #[tokio::test]
    async fn a_pool_of_one_shares_nothing_and_keeps_its_connection_free_for_transactions() {
        let db = migrated_database().await;
        let store = store(db.url(), 1);
        assert_eq!(read(&store).await.expect("read"), 0);
        assert!(!admit(&store).await.expect("admission"));
        let status = store.status();
        assert_eq!((status.size, status.available), (1, 1), "{status:?}");
        // A write's transaction gets the pool's connection.
        let mut conn = store.conn().await.expect("the only connection");
        conn.transaction::<_, diesel::result::Error, _>(async |conn| {
            diesel::sql_query("SELECT 1").execute(conn).await
        })
        .await
        .expect("transaction");
    }

    #[tokio::test]
    async fn a_shared_connection_that_failed_a_statement_is_replaced_for_the_next() {
        let db = migrated_database().await;
        let store = store(db.url(), 2);
        let held = store.shared_conn().await.expect("shared");
        let backend = backend_of(&held).await;
        terminate(db.url(), backend).await;
        // The connection is still held here, so it cannot be found broken while unused: the
        // statement that fails on it is what stops its sharing.
        let failed = read(&store).await;
        assert!(
            matches!(failed, Err(DomainError::Store(StoreError::Unavailable(_)))),
            "{failed:?}"
        );
        assert_eq!(read(&store).await.expect("read on another"), 0);
        let next = store.shared_conn().await.expect("shared");
        assert_ne!(backend_of(&next).await, backend);
        drop(held);
    }

    #[tokio::test]
    async fn a_shared_connection_found_broken_while_unused_is_replaced_before_a_statement_fails() {
        let db = migrated_database().await;
        let store = store(db.url(), 2);
        let backend = backend_of(&store.shared_conn().await.expect("shared")).await;
        terminate(db.url(), backend).await;
        // The connection's task notices the closed socket on its own: wait for that event, no
        // statement sent meanwhile (up to 10 s).
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        let broken = || {
            let mut slot = store.shared.slot.lock().unwrap();
            let lease = Arc::get_mut(slot.as_mut().expect("shared")).expect("unused");
            PoolableConnection::is_broken(lease.conn_mut())
        };
        while !broken() {
            assert!(tokio::time::Instant::now() < deadline, "never seen closed");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(read(&store).await.expect("read"), 0);
        let next = store.shared_conn().await.expect("shared");
        assert_ne!(backend_of(&next).await, backend);
    }

    #[tokio::test]
    async fn a_read_waiting_for_a_lock_holds_up_no_one_and_waits_on_a_connection_of_its_own() {
        let db = migrated_database().await;
        let store = PgStore::new(&PoolConfig {
            max_size: 3,
            lock_timeout: Duration::from_secs(2),
            ..PoolConfig::new(db.url())
        })
        .expect("pool");
        // A session holds the runs table, as a migration or a stuck transaction would.
        let mut locker = lock_runs(db.url()).await;
        let started = std::time::Instant::now();
        // The read waits for the lock; the admission, which needs none held elsewhere, is sent
        // behind it on the shared connection.
        let admitted = async {
            let admitted = admit(&store).await;
            (admitted, started.elapsed())
        };
        let (blocked, (admitted, admitted_after)) =
            futures_util::future::join(read(&store), admitted).await;
        let read_after = started.elapsed();
        assert!(matches!(admitted, Ok(false)), "{admitted:?}");
        assert!(
            admitted_after < Duration::from_secs(1),
            "the admission waited {admitted_after:?} behind the read"
        );
        // On a connection of its own the read waited the pool's lock timeout, as before.
        assert!(
            matches!(&blocked, Err(DomainError::Store(StoreError::Unavailable(cause))) if cause.contains(LOCK_TIMEOUT)),
            "{blocked:?}"
        );
        assert!(read_after >= Duration::from_secs(2), "{read_after:?}");
        locker.batch_execute("ROLLBACK").await.expect("unlock");
        assert_eq!(read(&store).await.expect("read"), 0);
    }

    #[tokio::test]
    async fn statements_unanswered_within_the_timeout_fail_and_their_connection_is_closed() {
        let db = migrated_database().await;
        // Checkouts time out after 500 ms.
        let store = store(db.url(), 2);
        let shared = store.shared_conn().await.expect("shared");
        let given_up = backend_of(&shared).await;
        let started = std::time::Instant::now();
        let slept = shared
            .run(async {
                diesel::sql_query("SELECT pg_sleep(3)")
                    .execute(&mut &*shared)
                    .await
                    .map_err(crate::error::db_error)
            })
            .await;
        assert!(
            matches!(slept, Err(DomainError::Store(StoreError::Unavailable(_)))),
            "{slept:?}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
        drop(shared);
        // The next statements go to another connection, and the one given up, back in the pool
        // (the other slot is the new shared one), is not given out again.
        assert_eq!(read(&store).await.expect("read"), 0);
        assert_ne!(
            backend_of(&store.shared_conn().await.expect("shared")).await,
            given_up
        );
        let conn = store.conn().await.expect("checkout");
        assert_ne!(backend_of(&conn).await, given_up);
    }
}
