//! The one channel of the worker, for every kind of leased job: claims due jobs through the
//! domain's [`Attempts`] (taking over, logging and counting, those of a holder that stopped
//! renewing), runs each attempt outside any transaction, renews the leases of the jobs in
//! flight, records the outcomes in batches fenced by their lease, gives back what it holds on
//! shutdown, sweeps and reads the backlog. What differs between webhooks and emails (their
//! fan-out or scheduler, their logs and metrics) is a [`Hooks`] implementation.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures_util::FutureExt;
use procflow_domain::error::{DomainError, DomainResult};
use procflow_domain::ports::Backlog;
use procflow_domain::queue::{Job, Takeover};
use procflow_domain::service::Attempts;
use time::OffsetDateTime;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;

use crate::metrics;
use crate::worker::{Channel, WorkerConfig, jitter, lease_of};

/// What is particular to one kind of job in the worker.
#[async_trait]
pub trait Hooks<J: Job>: Send + Sync + 'static {
    /// The channel's name, for logs and metrics.
    fn name(&self) -> &'static str;

    /// Turns outbox events (or due notices) into jobs; answers how many events it took (a
    /// full batch: more may wait).
    async fn dispatch(&self) -> usize;

    /// Logs and counts one attempt: what it made of the job, whether that was recorded (`Ok(false)`:
    /// the lease ran out meanwhile; `Err`: the store failed), and how long the send took.
    fn attempted(
        &self,
        claimed: &J::Claimed,
        settlement: &J::Settlement,
        recorded: &Result<bool, String>,
        elapsed: Duration,
    );

    /// Logs a claim that failed.
    fn claim_failed(&self, error: &DomainError);

    /// Logs what a give-back on shutdown did.
    fn released(&self, released: DomainResult<u64>);

    /// Logs a sweep's result, and sweeps what goes with the jobs (the outbox's events).
    async fn swept(&self, swept: DomainResult<u64>, now: OffsetDateTime);

    /// Sets the backlog gauges.
    fn backlog(&self, backlog: DomainResult<Backlog>, now: OffsetDateTime);
}

/// How often jobs past their 30 days are swept.
const SWEEP_EVERY: Duration = Duration::from_secs(600);

/// Most outcomes recorded in one statement.
const SETTLE_BATCH: usize = 128;

/// An attempt's outcome on its way to the store, and who waits for it to be recorded.
struct Outcome<J: Job> {
    claimed: J::Claimed,
    settlement: J::Settlement,
    recorded: oneshot::Sender<Result<bool, String>>,
}

/// A channel of the worker over one leased queue.
pub struct QueueChannel<J: Job, H> {
    attempts: Attempts<J>,
    hooks: Arc<H>,
    config: WorkerConfig,
    /// The holder's writes to the jobs it holds (settles, the renewal, the release), one at a
    /// time. Two of them at once lock the same rows in different orders, and PostgreSQL ends
    /// such a deadlock by failing one: a failed settle has its jobs attempted again once their
    /// lease runs out, a failed renewal lets them be taken over while their attempts still
    /// run. `make bench` saw 40 of them in the webhook rows before this lock.
    holder_writes: Arc<tokio::sync::Mutex<()>>,
    /// Jobs claimed whose outcome is not recorded yet: what the renewal keeps.
    in_flight: Arc<AtomicUsize>,
    settler: mpsc::UnboundedSender<Outcome<J>>,
    next_sweep: Mutex<Instant>,
}

/// One job in flight, counted until its attempt ends (recorded, or aborted on shutdown).
struct InFlight(Arc<AtomicUsize>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether `next` has come; if so it moves `every` on.
pub(crate) fn due(next: &Mutex<Instant>, every: Duration) -> bool {
    let mut next = locked(next);
    let now = Instant::now();
    if now < *next {
        return false;
    }
    *next = now + every;
    true
}

impl<J: Job, H: Hooks<J>> QueueChannel<J, H> {
    /// The channel over `attempts`, with `hooks` for what is particular to its jobs.
    ///
    /// Starts the task that records outcomes: call it inside a tokio runtime.
    #[must_use]
    pub fn over(attempts: Attempts<J>, hooks: H, config: WorkerConfig) -> Self {
        let (settler, outcomes) = mpsc::unbounded_channel();
        let holder_writes = Arc::new(tokio::sync::Mutex::new(()));
        tokio::spawn(settle(attempts.clone(), holder_writes.clone(), outcomes));
        Self {
            attempts,
            holder_writes,
            hooks: Arc::new(hooks),
            config,
            in_flight: Arc::default(),
            settler,
            next_sweep: Mutex::new(Instant::now()),
        }
    }

    /// What is particular to its jobs.
    #[must_use]
    pub fn hooks(&self) -> &H {
        &self.hooks
    }

    /// Logs and counts, once per former holder, the jobs a claim took over.
    fn taken_over(&self, taken_over: &[Takeover]) {
        let queue = self.hooks.name();
        for takeover in taken_over {
            metrics::takeovers(queue, takeover.jobs);
            let from = takeover
                .from
                .map_or_else(|| "none (an older version)".to_owned(), |h| h.to_string());
            tracing::warn!(
                queue,
                taken_over = takeover.jobs,
                holder.from = %from,
                holder.id = %self.attempts.holder(),
                "took over jobs whose holder stopped renewing their lease (it was killed or \
                 lost the database); their receivers may see the last attempt again"
            );
        }
    }
}

/// Records the outcomes of attempts in batches: whatever finished while the previous batch
/// was being written goes in the next statement. Runs until every channel handle is dropped.
async fn settle<J: Job>(
    attempts: Attempts<J>,
    holder_writes: Arc<tokio::sync::Mutex<()>>,
    mut outcomes: mpsc::UnboundedReceiver<Outcome<J>>,
) {
    let mut batch = Vec::with_capacity(SETTLE_BATCH);
    while outcomes.recv_many(&mut batch, SETTLE_BATCH).await > 0 {
        let pairs: Vec<(J::Claimed, J::Settlement)> = batch
            .iter()
            .map(|o| (o.claimed.clone(), o.settlement.clone()))
            .collect();
        let settled = {
            let _writing = holder_writes.lock().await;
            attempts.settle(&pairs).await
        };
        match settled {
            Ok(recorded) => {
                for (outcome, recorded) in batch.drain(..).zip(recorded) {
                    let _ = outcome.recorded.send(Ok(recorded));
                }
            }
            Err(error) => {
                for outcome in batch.drain(..) {
                    let _ = outcome.recorded.send(Err(error.to_string()));
                }
            }
        }
    }
}

async fn attempt<J: Job, H: Hooks<J>>(
    claimed: J::Claimed,
    attempts: Attempts<J>,
    hooks: Arc<H>,
    settler: mpsc::UnboundedSender<Outcome<J>>,
    in_flight: InFlight,
) {
    let started = Instant::now();
    // A send that panics (a message its library cannot build, say) is a failure the schedule
    // settles, not a job left held until its lease runs out and then taken again for ever.
    let settlement = match AssertUnwindSafe(attempts.attempt(&claimed, jitter()))
        .catch_unwind()
        .await
    {
        Ok(settlement) => settlement,
        Err(panic) => {
            let cause = panic_message(panic.as_ref());
            tracing::error!(
                channel = hooks.name(),
                cause,
                "a send panicked; it is settled as a failure"
            );
            attempts.broke_down(&claimed, format!("the send broke down: {cause}"), jitter())
        }
    };
    let elapsed = started.elapsed();
    let (recorded, on_record) = oneshot::channel();
    let sent = settler.send(Outcome {
        claimed: claimed.clone(),
        settlement: settlement.clone(),
        recorded,
    });
    let recorded = match sent {
        Ok(()) => on_record
            .await
            .unwrap_or_else(|_| Err("the recorder stopped".to_owned())),
        Err(_) => Err("the recorder stopped".to_owned()),
    };
    drop(in_flight);
    hooks.attempted(&claimed, &settlement, &recorded, elapsed);
}

/// What a panic said, when it said it with text.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message")
}

#[async_trait]
impl<J: Job, H: Hooks<J>> Channel for QueueChannel<J, H> {
    fn name(&self) -> &'static str {
        self.hooks.name()
    }

    async fn dispatch(&self) -> usize {
        self.hooks.dispatch().await
    }

    async fn start_due(&self, free: usize, tasks: &mut JoinSet<()>) -> usize {
        if free == 0 {
            return 0;
        }
        let claim = match self.attempts.claim(free, lease_of(&self.config)).await {
            Ok(claim) => claim,
            Err(error) => {
                self.hooks.claim_failed(&error);
                return 0;
            }
        };
        if !claim.taken_over.is_empty() {
            self.taken_over(&claim.taken_over);
        }
        let started = claim.jobs.len();
        self.in_flight.fetch_add(started, Ordering::SeqCst);
        for job in claim.jobs {
            tasks.spawn(attempt(
                job,
                self.attempts.clone(),
                self.hooks.clone(),
                self.settler.clone(),
                InFlight(self.in_flight.clone()),
            ));
        }
        started
    }

    async fn renew(&self) {
        let in_flight = self.in_flight.load(Ordering::SeqCst);
        if in_flight == 0 {
            return;
        }
        let renewed = {
            let _writing = self.holder_writes.lock().await;
            self.attempts.renew(lease_of(&self.config)).await
        };
        if let Err(error) = renewed {
            tracing::warn!(
                queue = self.hooks.name(), in_flight, %error,
                "cannot renew the leases of the jobs in flight; another worker takes them over \
                 if this lasts longer than the lease"
            );
        }
    }

    async fn release(&self) {
        let released = {
            let _writing = self.holder_writes.lock().await;
            self.attempts.release().await
        };
        self.hooks.released(released);
    }

    async fn upkeep(&self) {
        if due(&self.next_sweep, SWEEP_EVERY) {
            let swept = self.attempts.sweep().await;
            self.hooks.swept(swept, self.attempts.now()).await;
        }
        let backlog = self.attempts.backlog().await;
        self.hooks.backlog(backlog, self.attempts.now());
    }
}
