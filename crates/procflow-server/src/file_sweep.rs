//! The sweep of attachment bytes that no row names (API contract 14.2), beside the worker of
//! `procflow serve` and of `procflow worker`: at start and every [`INTERVAL`] it removes the
//! objects under `teams/*/files/` older than
//! [`SWEEP_GRACE`](procflow_domain::service::SWEEP_GRACE) whose row never committed (or whose
//! deletion could not remove them), and what uploads killed midway left in a local directory.
//! Several instances may sweep at once: a removal of what is already gone is no error.

use std::time::Duration;

use procflow_domain::service::Attachments;

use crate::periodic::Periodic;

/// How often the sweep runs.
pub const INTERVAL: Duration = Duration::from_secs(15 * 60);

/// Starts the sweep on the current runtime: at once, then every `interval`.
#[must_use]
pub fn spawn(attachments: Attachments, interval: Duration) -> Periodic {
    Periodic::spawn(interval, move || {
        let attachments = attachments.clone();
        async move { sweep(&attachments).await }
    })
}

async fn sweep(attachments: &Attachments) {
    match attachments.sweep().await {
        Ok(swept) => {
            for key in &swept.removed {
                tracing::info!(storage.key = %key, "removed attachment bytes that no row names");
            }
            for staged in &swept.abandoned {
                tracing::info!(storage.path = %staged, "removed what an upload that never ended left");
            }
            tracing::debug!(
                objects = swept.seen,
                removed = swept.removed.len(),
                abandoned = swept.abandoned.len(),
                "attachment sweep done"
            );
        }
        Err(error) => tracing::warn!(%error, "the attachment sweep failed; it runs again later"),
    }
}
