//! `WorkSignal` on PostgreSQL: a commit that leaves work for the worker wakes the worker of
//! this process at once, and those of other instances through `NOTIFY procflow_work`.
//!
//! The `NOTIFY` is sent after the commit, from a task of its own, at most once per
//! [`NOTIFY_GAP`], rather than inside the writing transaction: PostgreSQL serialises the
//! commits of every transaction that notifies (a lock held through the WAL flush), which
//! measured here cut a 16-client insert load from about 6,500 to 690 transactions per second.
//! A lost wake-up (a crash right after a commit) is caught by the worker's poll.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use futures_util::StreamExt;
use procflow_domain::ports::WorkSignal;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::PgStore;

/// The channel workers listen on.
pub const CHANNEL: &str = "procflow_work";

/// The least time between two `NOTIFY`s of one process.
pub const NOTIFY_GAP: Duration = Duration::from_millis(50);

/// How long the listener waits before connecting again after losing its connection.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

/// The wake-ups of one store: the local worker's, and the task that tells other instances.
#[derive(Debug, Default)]
pub(crate) struct Signal {
    local: Notify,
    remote: Arc<Notify>,
    notifier: Mutex<Option<JoinHandle<()>>>,
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
    store.signal.local.notify_one();
    let mut notifications = std::pin::pin!(conn.notifications_stream());
    while let Some(notification) = notifications.next().await {
        notification?;
        store.signal.local.notify_one();
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
            Some(conn) => diesel::sql_query(format!("NOTIFY {CHANNEL}"))
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
}
