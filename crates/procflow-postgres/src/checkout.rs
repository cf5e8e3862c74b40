//! A connection of the pool for one request, whose wait for locks is shortened by its wait for
//! the connection.
//!
//! A request may wait twice: for a free connection (the pool's `timeout`), then, on it, for a
//! lock held elsewhere (the session's `lock_timeout`). When the pool is exhausted *because*
//! its connections wait on a lock (a table locked by a migration or a stuck session), the
//! requests behind them wait for a connection almost the whole checkout timeout and then for
//! the same lock the whole lock timeout: two bounds in a row, 10 s with the defaults
//! (`docs/reliability.md`, `make chaos` scenario 3). So a request's waits share one budget, the
//! longer of the two timeouts: a connection that took a tenth of it or more to get
//! ([`SHORTEN_AFTER_TENTHS`]) waits for locks only what is left of it (at least
//! [`MIN_LOCK_WAIT`]), and has the pool's lock timeout set again before another request gets
//! it. A checkout that waited less sends nothing more.

use std::ops::{Deref, DerefMut};
use std::time::Duration;

use diesel_async::pooled_connection::PoolableConnection;
use diesel_async::pooled_connection::deadpool::Object;
use diesel_async::{AsyncPgConnection, SimpleAsyncConnection};
use procflow_domain::error::DomainResult;
use tokio::time::Instant;

use crate::error::{db_error, pool_error};
use crate::pool::{PgPool, PoolConfig, set_lock_timeout};

/// The tenths of the budget a wait for a connection must reach to shorten the wait for locks:
/// shorter waits leave the lock timeout as it is. A pool under load but sound has checkouts
/// wait a few to a few hundred milliseconds, which should not cost two statements more each
/// (the setting and its restoring, the connection held for the latter); a request overshoots
/// the budget by a tenth of it at most (500 ms with the defaults).
const SHORTEN_AFTER_TENTHS: u32 = 1;

/// The least a request waits for a lock, however long it waited for its connection: enough
/// for a row lock held by another request's short transaction.
const MIN_LOCK_WAIT: Duration = Duration::from_millis(50);

/// A connection taken from the pool for one request; dereferences to the connection.
pub(crate) struct Checkout {
    /// `None` only while it is dropped.
    conn: Option<Object<AsyncPgConnection>>,
    /// Set when this checkout shortened the session's lock timeout: what to set again before
    /// the connection goes back. Nothing else is kept, so that a checkout that waited little
    /// costs no more than the pool's own.
    shortened: Option<Shortened>,
}

/// A checkout's shortened lock timeout, to be set again on drop.
struct Shortened {
    /// The pool's lock timeout.
    restore: Duration,
    /// The pool's statement counter (tests and the bench), which must not count the settings.
    counter: Option<crate::StatementCounter>,
}

impl Shortened {
    /// Takes back the statement just counted: a setting of the session, no statement of the
    /// store's.
    fn uncount(&self) {
        if let Some(counter) = &self.counter {
            counter.uncount_setup();
        }
    }
}

/// The lock timeout for a request whose checkout took `waited`, when it must be shorter than
/// the pool's: what is left of the longer of the two timeouts, at least [`MIN_LOCK_WAIT`].
fn shortened(config: &PoolConfig, waited: Duration) -> Option<Duration> {
    let budget = config.timeout.max(config.lock_timeout);
    if waited < budget * SHORTEN_AFTER_TENTHS / 10 {
        return None;
    }
    let left = budget.saturating_sub(waited).max(MIN_LOCK_WAIT);
    (left < config.lock_timeout).then_some(left)
}

/// A connection of `pool`, configured by `config`, for one request (see the module's
/// documentation).
///
/// # Errors
/// `Unavailable` when the pool has none to give in time, or the lock timeout cannot be set.
pub(crate) async fn checkout(pool: &PgPool, config: &PoolConfig) -> DomainResult<Checkout> {
    let asked = Instant::now();
    let conn = pool.get().await.map_err(|e| pool_error(&e))?;
    let mut checkout = Checkout {
        conn: Some(conn),
        shortened: None,
    };
    if let Some(timeout) = shortened(config, asked.elapsed()) {
        tracing::debug!(
            lock_timeout_ms = timeout.as_millis() as u64,
            "a request that waited for its connection waits less for locks"
        );
        // Restored on drop even when this fails: the setting may have taken effect.
        checkout.shortened = Some(Shortened {
            restore: config.lock_timeout,
            counter: config.statement_counter.clone(),
        });
        checkout
            .batch_execute(&set_lock_timeout(timeout))
            .await
            .map_err(db_error)?;
        if let Some(shortened) = &checkout.shortened {
            shortened.uncount();
        }
    }
    Ok(checkout)
}

impl Deref for Checkout {
    type Target = AsyncPgConnection;

    #[expect(clippy::expect_used, reason = "taken out only by `drop`")]
    fn deref(&self) -> &AsyncPgConnection {
        self.conn
            .as_ref()
            .expect("a checkout holds its connection until dropped")
    }
}

impl DerefMut for Checkout {
    #[expect(clippy::expect_used, reason = "taken out only by `drop`")]
    fn deref_mut(&mut self) -> &mut AsyncPgConnection {
        self.conn
            .as_mut()
            .expect("a checkout holds its connection until dropped")
    }
}

impl Drop for Checkout {
    fn drop(&mut self) {
        let (Some(shortened), Some(mut conn)) = (self.shortened.take(), self.conn.take()) else {
            return;
        };
        // The pool closes a broken connection (left in a transaction, or lost) on its own.
        if PoolableConnection::is_broken(&mut *conn) {
            return;
        }
        let restoring = Restoring(Some(conn));
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            // Nothing to set it again with: `restoring` closes it.
            return;
        };
        runtime.spawn(async move {
            let mut restoring = restoring;
            let Some(conn) = restoring.0.as_mut() else {
                return;
            };
            if conn
                .batch_execute(&set_lock_timeout(shortened.restore))
                .await
                .is_ok()
            {
                shortened.uncount();
                // Set again: back to the pool.
                drop(restoring.0.take());
            }
        });
    }
}

/// A connection whose lock timeout is being set again to the pool's: closed rather than given
/// back to the pool when dropped before that is done (the setting failed, or the runtime shut
/// down before the task that sets it ran), so that no request gets it with a shorter one.
struct Restoring(Option<Object<AsyncPgConnection>>);

impl Drop for Restoring {
    fn drop(&mut self) {
        if let Some(conn) = self.0.take() {
            drop(Object::take(conn));
        }
    }
}

#[cfg(test)]
mod tests {
    use diesel_async::RunQueryDsl;
    use procflow_domain::error::{DomainError, StoreError};

    use super::*;
    use crate::error::LOCK_TIMEOUT;
    use crate::pool::build;
    use crate::testing::{lock_runs, lock_timeout, migrated_database};

    #[derive(diesel::QueryableByName)]
    struct Backend {
        #[diesel(sql_type = diesel::sql_types::Integer)]
        pid: i32,
    }

    async fn backend(conn: &mut AsyncPgConnection) -> i32 {
        let backend: Backend = diesel::sql_query("SELECT pg_backend_pid() AS pid")
            .get_result(conn)
            .await
            .expect("pid");
        backend.pid
    }

    fn config(url: &str, timeout: Duration, lock_timeout: Duration) -> PoolConfig {
        PoolConfig {
            max_size: 1,
            timeout,
            lock_timeout,
            ..PoolConfig::new(url)
        }
    }

    #[test]
    fn a_wait_for_the_connection_comes_off_the_longer_timeout() {
        let five = Duration::from_secs(5);
        let config = config("postgres://unused", five, five);
        assert_eq!(shortened(&config, Duration::from_millis(499)), None);
        assert_eq!(
            shortened(&config, Duration::from_millis(1500)),
            Some(Duration::from_millis(3500))
        );
        assert_eq!(shortened(&config, five), Some(MIN_LOCK_WAIT));
        // A lock timeout shorter than the checkout's is left when the budget covers it.
        let short = PoolConfig {
            lock_timeout: Duration::from_secs(1),
            ..config.clone()
        };
        assert_eq!(shortened(&short, Duration::from_secs(3)), None);
        assert_eq!(
            shortened(&short, Duration::from_millis(4500)),
            Some(Duration::from_millis(500))
        );
    }

    /// The pool's only connection is held for `hold`, and a table locked elsewhere: the
    /// request behind waits for the connection, then for the lock only what is left of its
    /// budget, and the next request gets the pool's lock timeout again.
    #[tokio::test]
    async fn a_request_that_waited_for_its_connection_waits_less_for_a_lock() {
        let db = migrated_database().await;
        let budget = Duration::from_secs(2);
        let config = config(db.url(), budget, budget);
        let pool = build(&config).expect("pool");

        let mut locker = lock_runs(db.url()).await;

        let held = checkout(&pool, &config).await.expect("the only connection");
        let hold = Duration::from_millis(1200);
        let holder = tokio::spawn(async move {
            tokio::time::sleep(hold).await;
            drop(held);
        });

        let asked = Instant::now();
        let mut behind = checkout(&pool, &config).await.expect("after the hold");
        assert!(asked.elapsed() >= hold - Duration::from_millis(50));
        let blocked = diesel::sql_query("SELECT id FROM runs LIMIT 1")
            .execute(&mut behind)
            .await
            .map_err(db_error);
        let waited = asked.elapsed();
        assert!(
            matches!(&blocked, Err(DomainError::Store(StoreError::Unavailable(cause))) if cause.contains(LOCK_TIMEOUT)),
            "{blocked:?}"
        );
        // Unshortened, the lock alone would have taken the whole 2 s after the 1.2 s.
        assert!(
            waited < budget + Duration::from_millis(500),
            "waited {waited:?} in all"
        );
        holder.await.expect("holder");
        let pid = backend(&mut behind).await;
        drop(behind);

        // The pool's one connection comes back, kept rather than closed, with the pool's lock
        // timeout (taken as it is, not through a checkout that could set its own).
        let mut next = pool.get().await.expect("again");
        assert_eq!(lock_timeout(&mut next).await, "2s");
        assert_eq!(backend(&mut next).await, pid, "the same connection");
        locker.batch_execute("ROLLBACK").await.expect("unlock");
    }

    #[tokio::test]
    async fn a_connection_dropped_before_its_lock_timeout_is_set_again_is_closed() {
        let db = migrated_database().await;
        let config = config(db.url(), Duration::from_secs(2), Duration::from_secs(2));
        let pool = build(&config).expect("pool");
        let conn = pool.get().await.expect("connection");
        assert_eq!(pool.status().size, 1);
        drop(Restoring(Some(conn)));
        assert_eq!(pool.status().size, 0, "closed, not pooled");
    }

    #[tokio::test]
    async fn a_checkout_that_did_not_wait_keeps_the_pools_lock_timeout() {
        let db = migrated_database().await;
        let config = config(
            db.url(),
            Duration::from_secs(2),
            Duration::from_millis(1234),
        );
        let pool = build(&config).expect("pool");
        let mut conn = checkout(&pool, &config).await.expect("free");
        assert!(conn.shortened.is_none());
        assert_eq!(lock_timeout(&mut conn).await, "1234ms");
    }
}
