//! A loop beside the worker that does one job at once, then every interval, until stopped:
//! the scheduler's tick and the attachment sweep are two of them.

use std::future::Future;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The running loop; [`Periodic::stop`] lets the job in hand finish.
#[derive(Debug)]
pub struct Periodic {
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl Periodic {
    /// Starts the loop on the current runtime: `job` at once, then every `interval` (a late
    /// tick delays the next ones rather than bunching them).
    #[must_use]
    pub fn spawn<F, Job>(interval: Duration, mut job: F) -> Self
    where
        F: FnMut() -> Job + Send + 'static,
        Job: Future<Output = ()> + Send,
    {
        let (stop, mut stopped) = watch::channel(false);
        let task = tokio::spawn(async move {
            let mut ticks = tokio::time::interval(interval);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = ticks.tick() => job().await,
                    _ = stopped.changed() => return,
                }
            }
        });
        Self { stop, task }
    }

    /// Stops the loop after the job in hand.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }
}
