//! The connection pool: bounded, with timeouts, and optionally counting statements.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use deadpool::Runtime;
use deadpool::managed::WeakPool;
use diesel::connection::{Instrumentation, InstrumentationEvent};
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::pooled_connection::{
    AsyncDieselConnectionManager, ManagerConfig, RecyclingMethod,
};
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};
use futures_util::FutureExt;
use procflow_domain::error::StoreError;

pub(crate) type PgPool = Pool<AsyncPgConnection>;
pub(crate) type WeakPgPool = WeakPool<AsyncDieselConnectionManager<AsyncPgConnection>>;

/// How to reach PostgreSQL.
#[derive(Clone, Debug)]
pub struct PoolConfig {
    /// `postgres://...`
    pub url: String,
    /// Connections at most.
    pub max_size: usize,
    /// How long a request waits for a free connection of the pool (or for a pooled one to be
    /// checked) before the store answers `Unavailable`.
    pub timeout: Duration,
    /// How long opening a new connection may take before the store answers `Unavailable`.
    /// Apart from `timeout` because the two fail differently: a full pool is a matter of
    /// load and answers at once when shortened, while a connection's set-up (a PostgreSQL
    /// backend forked, authentication) takes longer on a busy machine without anything being
    /// wrong.
    pub connect_timeout: Duration,
    /// How long a statement may wait for a lock before the store answers `Unavailable`
    /// (PostgreSQL's `lock_timeout`, set on each connection). A request blocked on a lock
    /// holds its connection: without a bound, a stuck lock (a migration, a session left in a
    /// transaction) would keep connections until the pool ran dry and the requests hung.
    /// A request that waited for its connection waits for locks only what is left of the
    /// longer of the two timeouts (`checkout.rs`).
    pub lock_timeout: Duration,
    /// Counts the SQL statements sent, when set (tests and benchmarks).
    pub statement_counter: Option<StatementCounter>,
}

impl PoolConfig {
    /// Connections at most unless configured.
    pub const DEFAULT_MAX_SIZE: u16 = 16;
    /// The checkout and the connection timeouts unless configured.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

    /// Defaults for `url`: [`Self::DEFAULT_MAX_SIZE`] connections, [`Self::DEFAULT_TIMEOUT`]
    /// for both timeouts.
    #[must_use]
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            max_size: usize::from(Self::DEFAULT_MAX_SIZE),
            timeout: Self::DEFAULT_TIMEOUT,
            connect_timeout: Self::DEFAULT_TIMEOUT,
            lock_timeout: Self::DEFAULT_TIMEOUT,
            statement_counter: None,
        }
    }
}

/// A shared count of SQL statements sent through a pool, `BEGIN` and `COMMIT` included.
#[derive(Clone, Debug, Default)]
pub struct StatementCounter(Arc<AtomicU64>);

impl StatementCounter {
    /// Statements so far.
    #[must_use]
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }

    /// Takes back the statement just counted of a connection's set-up, which is no statement
    /// of the store's (as the pool's own set-up, run before the counter is installed).
    pub(crate) fn uncount_setup(&self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

struct Counting(StatementCounter);

impl Instrumentation for Counting {
    fn on_connection_event(&mut self, event: InstrumentationEvent<'_>) {
        if let InstrumentationEvent::StartQuery { .. } = event {
            self.0.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// The pool's occupancy, for metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolStatus {
    /// The most connections it may hold.
    pub max_size: usize,
    /// Connections open now.
    pub size: usize,
    /// Open connections not in use.
    pub available: usize,
    /// Requests waiting for a connection.
    pub waiting: usize,
}

/// What each connection of the pool sets for its session, once, when it opens.
///
/// - `lock_timeout`: see [`PoolConfig::lock_timeout`].
/// - `enable_memoize = off`. The store's statements read pages of at most a few hundred rows,
///   where a memo of the inner side of a join saves at most that many index probes, and costs
///   a hash table sized by the planner's guess of distinct keys on every execution. On a team
///   of a million runs the planner put one over the runs of the inbox's page (its sample of
///   `run_tasks.run_id` guessing a tenth of the distinct runs), never hit it, and served the
///   page 15 % slower than a small team's (`docs/performance.md`, "The inbox flat").
fn session_settings(lock_timeout: Duration) -> String {
    format!(
        "{}; SET enable_memoize = off",
        set_lock_timeout(lock_timeout)
    )
}

/// `SET lock_timeout` to `timeout`, in whole milliseconds, at least 1 (0 would mean no limit
/// at all).
pub(crate) fn set_lock_timeout(timeout: Duration) -> String {
    format!("SET lock_timeout = {}", timeout.as_millis().max(1))
}

pub(crate) fn build(config: &PoolConfig) -> Result<PgPool, StoreError> {
    let counter = config.statement_counter.clone();
    let mut manager_config = ManagerConfig::<AsyncPgConnection>::default();
    // "Verified" would send a `SELECT 1` on every checkout. "Fast" still drops a connection
    // whose socket closed (PostgreSQL restarted), so the pool recovers on its own.
    manager_config.recycling_method = RecyclingMethod::Fast;
    let settings = session_settings(config.lock_timeout);
    manager_config.custom_setup = Box::new(move |url| {
        let counter = counter.clone();
        let settings = settings.clone();
        async move {
            let mut conn = AsyncPgConnection::establish(url).await?;
            // Before the counter is installed: the set-up is no statement of the store's.
            conn.batch_execute(&settings)
                .await
                .map_err(|e| diesel::ConnectionError::BadConnection(e.to_string()))?;
            if let Some(counter) = counter {
                conn.set_instrumentation(Counting(counter));
            }
            Ok(conn)
        }
        .boxed()
    });
    let manager = AsyncDieselConnectionManager::new_with_config(config.url.clone(), manager_config);
    Pool::builder(manager)
        .max_size(config.max_size)
        .runtime(Runtime::Tokio1)
        .wait_timeout(Some(config.timeout))
        .create_timeout(Some(config.connect_timeout))
        .recycle_timeout(Some(config.timeout))
        .build()
        .map_err(|e| StoreError::Other(format!("cannot build the connection pool: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{explained, lock_timeout, migrated_database};

    /// A join the planner memoises when it may: 1,000 outer rows over 10 keys, the inner side
    /// an index, hash and merge joins ruled out.
    const MEMO_BAIT: &str = "CREATE TEMP TABLE o AS SELECT g % 10 AS k FROM generate_series(1, 1000) g; \
         CREATE TEMP TABLE i AS SELECT g AS k FROM generate_series(1, 1000) g; \
         CREATE INDEX ON i (k); ANALYZE o; ANALYZE i; \
         SET enable_hashjoin = off; SET enable_mergejoin = off";

    async fn plan(conn: &mut AsyncPgConnection) -> String {
        conn.batch_execute(MEMO_BAIT).await.expect("tables");
        explained(conn, "SELECT * FROM o JOIN i ON i.k = o.k")
            .await
            .join("\n")
    }

    #[tokio::test]
    async fn a_pooled_session_has_its_lock_timeout_and_plans_without_memoising() {
        let db = migrated_database().await;
        let pool = build(&PoolConfig {
            lock_timeout: Duration::from_millis(1234),
            ..PoolConfig::new(db.url())
        })
        .expect("pool");
        let mut pooled = pool.get().await.expect("connection");
        assert_eq!(lock_timeout(&mut pooled).await, "1234ms");
        let without = plan(&mut pooled).await;
        assert!(
            without.contains("Nested Loop") && !without.contains("Memoize"),
            "{without}"
        );
        // The same join on a session of PostgreSQL's defaults: the memo the pool turns off.
        let mut plain = AsyncPgConnection::establish(db.url())
            .await
            .expect("connection");
        let with = plan(&mut plain).await;
        assert!(with.contains("Memoize"), "{with}");
    }
}
