//! The scheduler of runs (API contract 13.1) inside the worker of `procflow serve` and
//! `procflow worker`: every scheduler interval it starts the runs of the due schedules, in
//! batches until none is due. Several instances may run it at once: each occurrence is
//! settled by exactly one of them (the store's conditional move and unique key).

use std::time::Duration;

use procflow_domain::service::Schedules;

use crate::periodic::Periodic;

/// Schedules settled per batch: a read of at most this many due rows, then one transaction
/// each.
pub const BATCH: usize = 100;

/// Starts the scheduler on the current runtime: a tick at once, then every `interval`.
#[must_use]
pub fn spawn(schedules: Schedules, interval: Duration) -> Periodic {
    Periodic::spawn(interval, move || {
        let schedules = schedules.clone();
        async move { run_due(&schedules).await }
    })
}

/// Settles due schedules in batches until a batch comes back short (nothing more is due).
pub async fn run_due(schedules: &Schedules) {
    loop {
        match schedules.tick(BATCH).await {
            Ok(tick) => {
                for (schedule, run) in &tick.started {
                    tracing::info!(schedule.id = %schedule, run.id = %run, "a schedule started a run");
                }
                for (schedule, failure) in &tick.failed {
                    tracing::warn!(
                        schedule.id = %schedule,
                        error.code = %failure.code,
                        occurrence = %failure.at,
                        "a schedule's occurrence started no run"
                    );
                }
                for (schedule, error) in &tick.errors {
                    tracing::warn!(schedule.id = %schedule, %error, "a schedule's occurrence is left for the next tick");
                }
                let settled = tick.started.len() + tick.failed.len() + tick.lost;
                if settled < BATCH || !tick.errors.is_empty() {
                    return;
                }
            }
            Err(error) => {
                tracing::warn!(%error, "cannot read the due schedules");
                return;
            }
        }
    }
}
