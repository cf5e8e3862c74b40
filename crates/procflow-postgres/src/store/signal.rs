//! `WorkSignal` on PostgreSQL: a commit that leaves work for the worker wakes the worker of
//! this process at once, and those of other instances through `NOTIFY procflow_work`.
//!
//! The `NOTIFY` is sent after the commit, from a task of its own, at most once per
//! [`NOTIFY_GAP`], rather than inside the writing transaction: PostgreSQL serialises the
//! commits of every transaction that notifies (a lock held through the WAL flush), which
//! measured here cut a 16-client insert load from about 6,500 to 690 transactions per second.
//! A lost wake-up (a crash right after a commit) is caught by the worker's poll.
//!
//! A commit of jobs (deliveries, emails) also tells the local worker it has jobs to claim
//! ([`WorkSignal::jobs_queued`]); a commit of events alone does not, so a fan-out that queues
//! nothing is not followed by claims that find nothing. Another instance's `NOTIFY` does not say
//! what it is for, so it counts as jobs.
//!
//! Each store's `NOTIFY` carries its origin (a random id of the store) as payload, and its own
//! listener lets those pass: the commit already woke the local worker, and a second wake-up
//! made it claim every queue again and find nothing (three claim transactions per write at
//! low load, counted by `make bench`).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use futures_util::StreamExt;
use procflow_domain::ports::WorkSignal;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::PgStore;
use super::by_text::ByText;

/// The channel workers listen on.
pub const CHANNEL: &str = "procflow_work";

/// The least time between two `NOTIFY`s of one process.
pub const NOTIFY_GAP: Duration = Duration::from_millis(50);

/// How long the listener waits before connecting again after losing its connection.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

/// The wake-ups of one store: the local worker's, and the task that tells other instances.
#[derive(Debug)]
pub(crate) struct Signal {
    local: Notify,
    remote: Arc<Notify>,
    notifier: Mutex<Option<JoinHandle<()>>>,
    /// The payload of this store's `NOTIFY`s. Random, not the process id: instances in
    /// containers of their own are often all process 1.
    origin: String,
    /// `NOTIFY`s the listener received, and those of them (other stores') that woke the worker.
    received: AtomicU64,
    woke: AtomicU64,
    /// Jobs may have been queued since the worker last asked: by this store, or by anyone when
    /// another instance's `NOTIFY` (which does not say what it is for) or a new listener woke it.
    jobs: AtomicBool,
}

impl Default for Signal {
    fn default() -> Self {
        Self {
            local: Notify::default(),
            remote: Arc::default(),
            notifier: Mutex::default(),
            origin: uuid::Uuid::new_v4().simple().to_string(),
            received: AtomicU64::new(0),
            woke: AtomicU64::new(0),
            jobs: AtomicBool::new(true),
        }
    }
}

impl PgStore {
    /// Work was committed: wakes this process's worker and, shortly, every other instance's.
    pub(crate) fn ring(&self) {
        self.signal.local.notify_one();
        self.signal.remote.notify_one();
        let mut notifier = self
            .signal
            .notifier
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let running = notifier.as_ref().is_some_and(|task| !task.is_finished());
        if !running && let Ok(runtime) = tokio::runtime::Handle::try_current() {
            *notifier = Some(runtime.spawn(notify_others(self.clone())));
        }
    }

    /// Jobs (deliveries, emails) were committed: wakes the workers as [`ring`](Self::ring)
    /// does, and tells this process's that it has jobs to claim.
    pub(crate) fn ring_jobs(&self) {
        self.signal.jobs.store(true, Ordering::SeqCst);
        self.ring();
    }

    /// Listens for `NOTIFY procflow_work` on a connection of its own (reconnecting when it is
    /// lost) and wakes this store's [`WorkSignal`] on each. Runs until the task is aborted.
    #[must_use]
    pub fn listen(&self) -> JoinHandle<()> {
        let store = self.clone();
        tokio::spawn(async move {
            loop {
                match listen_once(&store).await {
                    Ok(()) => tracing::warn!("the notification connection closed; reconnecting"),
                    Err(error) => {
                        tracing::warn!(%error, "cannot listen for notifications; the worker polls meanwhile");
                    }
                }
                tokio::time::sleep(RECONNECT_AFTER).await;
            }
        })
    }
}

async fn listen_once(store: &PgStore) -> Result<(), diesel::result::Error> {
    let mut conn = AsyncPgConnection::establish(store.url())
        .await
        .map_err(|e| diesel::result::Error::QueryBuilderError(Box::new(e)))?;
    diesel::sql_query(format!("LISTEN {CHANNEL}"))
        .execute(&mut conn)
        .await?;
    // Work committed before LISTEN took effect would wait for a poll: look at once.
    store.signal.jobs.store(true, Ordering::SeqCst);
    store.signal.local.notify_one();
    let mut notifications = std::pin::pin!(conn.notifications_stream());
    while let Some(notification) = notifications.next().await {
        let notification = notification?;
        store.signal.received.fetch_add(1, Ordering::Relaxed);
        if notification.payload != store.signal.origin {
            store.signal.woke.fetch_add(1, Ordering::Relaxed);
            store.signal.jobs.store(true, Ordering::SeqCst);
            store.signal.local.notify_one();
        }
    }
    Ok(())
}

/// Sends the `NOTIFY`s on a connection of its own (outside the pool: it never waits behind
/// requests, and requests never count it), connecting again after a failure.
async fn notify_others(store: PgStore) {
    let mut conn: Option<AsyncPgConnection> = None;
    loop {
        store.signal.remote.notified().await;
        if conn.is_none() {
            conn = AsyncPgConnection::establish(store.url()).await.ok();
        }
        let sent = match conn.as_mut() {
            Some(conn) => ByText(
                diesel::sql_query("SELECT pg_notify($1, $2)")
                    .bind::<diesel::sql_types::Text, _>(CHANNEL)
                    .bind::<diesel::sql_types::Text, _>(&store.signal.origin),
            )
            .execute(conn)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string()),
            None => Err("no connection".to_owned()),
        };
        if let Err(error) = sent {
            conn = None;
            tracing::debug!(%error, "NOTIFY not sent; other instances find the work by polling");
        }
        tokio::time::sleep(NOTIFY_GAP).await;
    }
}

#[async_trait]
impl WorkSignal for PgStore {
    async fn wait(&self) {
        self.signal.local.notified().await;
    }

    fn jobs_queued(&self) -> bool {
        self.signal.jobs.swap(false, Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use procflow_domain::ports::WorkSignal;

    use super::Ordering;
    use crate::testing::{TestDatabase, execute, migrated_database};
    use crate::{PgStore, PoolConfig};

    /// Waits until `store`'s listener has received `n` notifications (at most 10 s: a bound for
    /// a broken listener, not a guess at a race).
    async fn received(store: &PgStore, n: u64) {
        tokio::time::timeout(Duration::from_secs(10), async {
            while store.signal.received.load(Ordering::Relaxed) < n {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .expect("the listener received the notifications");
    }

    /// A store of its own on `db`, as another instance would have.
    fn store(db: &TestDatabase) -> PgStore {
        PgStore::new(&PoolConfig::new(db.url())).expect("pool")
    }

    #[tokio::test]
    async fn a_stores_notify_wakes_the_other_stores_and_not_its_own_a_second_time() {
        let db = migrated_database().await;
        let (a, b) = (store(&db), store(&db));
        let listeners = [a.listen(), b.listen()];
        // Each listener wakes its worker once its LISTEN is in effect.
        a.wait().await;
        b.wait().await;

        a.ring();
        // The commit wakes its own worker at once, and the other store through the NOTIFY.
        a.wait().await;
        b.wait().await;
        // A NOTIFY of another origin, sent after a's own: once a's listener has it, it has had
        // a's own before it.
        execute(db.url(), "NOTIFY procflow_work, 'another instance'").await;
        received(&a, 2).await;
        assert_eq!(
            a.signal.woke.load(Ordering::Relaxed),
            1,
            "a's own NOTIFY woke a's worker again"
        );
        received(&b, 2).await;
        assert_eq!(b.signal.woke.load(Ordering::Relaxed), 2);
        for listener in listeners {
            listener.abort();
        }
    }

    #[tokio::test]
    async fn only_jobs_or_another_instance_tell_the_worker_to_claim() {
        let db = migrated_database().await;
        let (a, b) = (store(&db), store(&db));
        // A new store has not looked yet.
        assert!(a.jobs_queued());
        assert!(!a.jobs_queued(), "asking takes the answer");
        let listener = b.listen();
        b.wait().await;
        // A listener that starts looks at every queue: jobs may have come before its LISTEN.
        assert!(b.jobs_queued());

        // Events alone: the worker fans them out and claims nothing unless that queued jobs.
        a.ring();
        a.wait().await;
        assert!(!a.jobs_queued());
        a.ring_jobs();
        a.wait().await;
        assert!(a.jobs_queued());
        assert!(!a.jobs_queued());

        // Another instance's NOTIFY (a's two rings, sent as one) does not say what it is for:
        // claim.
        received(&b, 1).await;
        assert!(b.jobs_queued());
        listener.abort();
    }
}
