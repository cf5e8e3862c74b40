//! `KeyChanges` on PostgreSQL: `LISTEN procflow_keys` on a connection of its own, fed by the
//! store's own `pg_notify` after the change commits (store/teams.rs: a key revoked, its hash
//! in hex; a team's subscription changed, an empty payload). Triggers sent them until
//! migration `2026-11-28-000100_citus_ready`: on Citus a trigger fires on the node holding
//! the row, where no instance listens.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use futures_util::StreamExt;
use procflow_domain::ports::{KeyChange, KeyChanges};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;

use super::PgStore;

/// The channel the store notifies of key changes.
pub const KEYS_CHANNEL: &str = "procflow_keys";

/// How long the listener waits before connecting again after losing its connection.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

/// The key changes of one process: a listening task, started at the first
/// [`KeyChanges::next`] and stopped when this is dropped.
#[derive(Debug)]
pub struct PgKeyChanges {
    store: PgStore,
    receiver: tokio::sync::Mutex<Option<UnboundedReceiver<KeyChange>>>,
    listener: Mutex<Option<JoinHandle<()>>>,
}

impl PgStore {
    /// The changes of API keys and teams, as every instance commits them.
    #[must_use]
    pub fn key_changes(&self) -> PgKeyChanges {
        PgKeyChanges {
            store: self.clone(),
            receiver: tokio::sync::Mutex::new(None),
            listener: Mutex::new(None),
        }
    }
}

impl Drop for PgKeyChanges {
    fn drop(&mut self) {
        if let Some(task) = self
            .listener
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            task.abort();
        }
    }
}

#[async_trait]
impl KeyChanges for PgKeyChanges {
    async fn next(&self) -> KeyChange {
        let mut receiver = self.receiver.lock().await;
        let receiver = receiver.get_or_insert_with(|| {
            let (sender, receiver) = unbounded_channel();
            let task = tokio::spawn(listen(self.store.clone(), sender));
            *self.listener.lock().unwrap_or_else(PoisonError::into_inner) = Some(task);
            receiver
        });
        // The sender lives as long as the listening task, which only ends when aborted.
        receiver.recv().await.unwrap_or(KeyChange::Any)
    }
}

/// Listens until the receiver is gone, reconnecting when the connection is lost. Each
/// (re)connection reports [`KeyChange::Any`]: changes may have been missed before it.
async fn listen(store: PgStore, sender: UnboundedSender<KeyChange>) {
    loop {
        match listen_once(&store, &sender).await {
            Ok(()) if sender.is_closed() => return,
            Ok(()) => tracing::warn!("the key-change connection closed; reconnecting"),
            Err(error) => tracing::warn!(
                %error,
                "cannot listen for key changes; blocked keys stay refused from memory until then"
            ),
        }
        tokio::time::sleep(RECONNECT_AFTER).await;
    }
}

async fn listen_once(
    store: &PgStore,
    sender: &UnboundedSender<KeyChange>,
) -> Result<(), diesel::result::Error> {
    let mut conn = AsyncPgConnection::establish(store.url())
        .await
        .map_err(|e| diesel::result::Error::QueryBuilderError(Box::new(e)))?;
    diesel::sql_query(format!("LISTEN {KEYS_CHANNEL}"))
        .execute(&mut conn)
        .await?;
    if sender.send(KeyChange::Any).is_err() {
        return Ok(());
    }
    let mut notifications = std::pin::pin!(conn.notifications_stream());
    while let Some(notification) = notifications.next().await {
        if sender.send(change_of(&notification?.payload)).is_err() {
            return Ok(());
        }
    }
    Ok(())
}

/// The change a notification's payload names: a key's hash in hex, or anything.
fn change_of(payload: &str) -> KeyChange {
    let mut hash = [0; 32];
    if hex::decode_to_slice(payload, &mut hash).is_ok() {
        KeyChange::Revoked(hash)
    } else {
        KeyChange::Any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_names_a_key_by_its_hash_in_hex_or_anything() {
        let mut hash = [0u8; 32];
        hash[0] = 0xab;
        hash[31] = 0x01;
        let hex = hex::encode(hash);
        assert_eq!(change_of(&hex), KeyChange::Revoked(hash));
        assert_eq!(change_of(""), KeyChange::Any);
        assert_eq!(change_of(&hex[..62]), KeyChange::Any);
        assert_eq!(change_of(&format!("{}zz", &hex[..62])), KeyChange::Any);
    }
}
