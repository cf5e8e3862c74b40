//! The sweep of attachment bytes that no row names (API contract 14.2), beside the worker of
//! `procflow serve`: every [`INTERVAL`] it removes the objects under `teams/*/files/` older
//! than [`SWEEP_GRACE`](procflow_domain::service::SWEEP_GRACE) whose row never committed (or
//! whose deletion could not remove them). Several instances may sweep at once: a removal of
//! what is already gone is no error.

use std::time::Duration;

use procflow_domain::service::Attachments;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How often the sweep runs.
pub const INTERVAL: Duration = Duration::from_secs(15 * 60);

/// The running loop; [`RunningSweep::stop`] lets the sweep in hand finish.
#[derive(Debug)]
pub struct RunningSweep {
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl RunningSweep {
    /// Starts the loop on the current runtime: a sweep at once, then every `interval`.
    #[must_use]
    pub fn spawn(attachments: Attachments, interval: Duration) -> Self {
        let (stop, mut stopped) = watch::channel(false);
        let task = tokio::spawn(async move {
            let mut ticks = tokio::time::interval(interval);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = ticks.tick() => sweep(&attachments).await,
                    _ = stopped.changed() => return,
                }
            }
        });
        Self { stop, task }
    }

    /// Stops the loop after the sweep in hand.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }
}

async fn sweep(attachments: &Attachments) {
    match attachments.sweep().await {
        Ok(swept) => {
            for key in &swept.removed {
                tracing::info!(storage.key = %key, "removed attachment bytes that no row names");
            }
            tracing::debug!(
                objects = swept.seen,
                removed = swept.removed.len(),
                "attachment sweep done"
            );
        }
        Err(error) => tracing::warn!(%error, "the attachment sweep failed; it runs again later"),
    }
}
