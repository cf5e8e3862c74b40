//! The delivery worker: fans outbox events out into deliveries, claims due deliveries under a
//! lease, sends each outside any transaction, records the outcome fenced by the lease; woken
//! by the work signal, polling as a fallback; on shutdown it finishes what it holds or gives
//! it back. Channels other than webhooks (email) plug in as further [`Channel`]s.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use procflow_domain::ports::{Clock, DeliveryQueue, WebhookSender, WorkSignal};
use procflow_domain::service::Webhooks;
use procflow_domain::webhook::{
    Attempt, AttemptOutcome, ClaimedDelivery, DeliveryOrigin, DeliveryStatus, RETENTION,
    RetrySchedule, Settlement,
};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::{JoinHandle, JoinSet};
use uuid::Uuid;

use crate::metrics;

/// How the worker behaves; read once at start-up.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkerConfig {
    /// Attempts in flight at most.
    pub concurrency: usize,
    /// How long a claimed delivery (or outbox event) is held before another worker may take
    /// it; longer than an attempt's time limit.
    pub lease: Duration,
    /// How often to look for work when no signal comes.
    pub poll_interval: Duration,
    /// Outbox events fanned out per statement.
    pub batch: usize,
    /// The waits between attempts.
    pub schedule: RetrySchedule,
    /// How long shutdown waits for attempts in flight before giving them back.
    pub shutdown_grace: Duration,
    /// How long to let commits gather after a wake-up before fanning them out: under load one
    /// fan-out then takes many events instead of a few, for an added delay this short.
    pub gather: Duration,
}

impl WorkerConfig {
    /// Attempts in flight unless configured.
    pub const DEFAULT_CONCURRENCY: usize = 128;
    /// The lease unless configured.
    pub const DEFAULT_LEASE: Duration = Duration::from_secs(60);
    /// The poll unless configured: a missed signal delays work by at most this.
    pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);
    /// Events per fan-out.
    pub const DEFAULT_BATCH: usize = 200;
    /// Shutdown's wait: an attempt's time limit and some.
    pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(15);
    /// The gathering delay after a wake-up.
    pub const DEFAULT_GATHER: Duration = Duration::from_millis(20);
}

impl Default for WorkerConfig {
    fn default() -> Self {
        Self {
            concurrency: Self::DEFAULT_CONCURRENCY,
            lease: Self::DEFAULT_LEASE,
            poll_interval: Self::DEFAULT_POLL_INTERVAL,
            batch: Self::DEFAULT_BATCH,
            schedule: RetrySchedule::default(),
            shutdown_grace: Self::DEFAULT_SHUTDOWN_GRACE,
            gather: Self::DEFAULT_GATHER,
        }
    }
}

/// One kind of outbound work the worker drives: it takes what is due and carries it out.
#[async_trait]
pub trait Channel: Send + Sync {
    /// Its name, for logs and metrics.
    fn name(&self) -> &'static str;

    /// Turns outbox events into this channel's work; answers whether a full batch was taken
    /// (so more may wait).
    async fn dispatch(&self) -> bool;

    /// Claims up to `free` due items and starts them in `tasks`; answers how many.
    async fn start_due(&self, free: usize, tasks: &mut JoinSet<()>) -> usize;

    /// Gives back what is still held (a shutdown that could not wait).
    async fn release(&self);

    /// Housekeeping: the sweep and the backlog figures.
    async fn upkeep(&self);
}

/// The webhook channel: fan-out, attempts, outcomes.
pub struct WebhookChannel {
    webhooks: Webhooks,
    queue: Arc<dyn DeliveryQueue>,
    sender: Arc<dyn WebhookSender>,
    clock: Arc<dyn Clock>,
    config: WorkerConfig,
    leases: std::sync::Mutex<HashSet<Uuid>>,
    settler: mpsc::UnboundedSender<Outcome>,
    next_sweep: std::sync::Mutex<Instant>,
}

/// An attempt's outcome on its way to the store, and who waits for it to be recorded.
struct Outcome {
    claimed: ClaimedDelivery,
    settlement: Settlement,
    recorded: oneshot::Sender<Result<bool, String>>,
}

/// Most outcomes recorded in one statement.
const SETTLE_BATCH: usize = 128;

/// Records the outcomes of attempts in batches: whatever finished while the previous batch
/// was being written goes in the next statement. Runs until every channel handle is dropped.
async fn settle(queue: Arc<dyn DeliveryQueue>, mut outcomes: mpsc::UnboundedReceiver<Outcome>) {
    let mut batch = Vec::with_capacity(SETTLE_BATCH);
    while outcomes.recv_many(&mut batch, SETTLE_BATCH).await > 0 {
        let pairs: Vec<(ClaimedDelivery, Settlement)> = batch
            .iter()
            .map(|o| (o.claimed.clone(), o.settlement.clone()))
            .collect();
        match queue.settle_all(&pairs).await {
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

impl WebhookChannel {
    /// The channel over the webhook use cases and a sender.
    #[must_use]
    ///
    /// Starts the task that records outcomes: call it inside a tokio runtime.
    pub fn new(webhooks: Webhooks, sender: Arc<dyn WebhookSender>, config: WorkerConfig) -> Self {
        let ports = webhooks.ports().clone();
        let (settler, outcomes) = mpsc::unbounded_channel();
        tokio::spawn(settle(ports.deliveries.clone(), outcomes));
        Self {
            webhooks,
            queue: ports.deliveries,
            sender,
            clock: ports.clock,
            config,
            leases: std::sync::Mutex::default(),
            settler,
            next_sweep: std::sync::Mutex::new(Instant::now()),
        }
    }

    fn leases(&self) -> std::sync::MutexGuard<'_, HashSet<Uuid>> {
        self.leases
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A uniform number in `[0, 1)` from the OS's randomness (a v4 UUID's random bits): the
/// retry schedule's jitter.
pub(crate) fn jitter() -> f64 {
    let bits = Uuid::new_v4().as_u128() >> 75;
    #[expect(clippy::cast_precision_loss, reason = "53 bits fit an f64 exactly")]
    let unit = bits as f64 / (1_u64 << 53) as f64;
    unit
}

pub(crate) fn lease_of(config: &WorkerConfig) -> time::Duration {
    time::Duration::try_from(config.lease).unwrap_or(time::Duration::MINUTE)
}

async fn attempt(
    claimed: ClaimedDelivery,
    sender: Arc<dyn WebhookSender>,
    settler: mpsc::UnboundedSender<Outcome>,
    clock: Arc<dyn Clock>,
    schedule: RetrySchedule,
) {
    let now = clock.now();
    let started = Instant::now();
    let outcome = if claimed.endpoint_enabled || claimed.origin != DeliveryOrigin::Event {
        sender.send(&claimed, now).await
    } else {
        AttemptOutcome::EndpointDisabled
    };
    let elapsed = started.elapsed();
    let settlement = Settlement::of(&claimed, Attempt { at: now, outcome }, &schedule, jitter());
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
    let outcome = match (&recorded, settlement.status) {
        (Ok(false), _) => "lost",
        (Err(_), _) => "unrecorded",
        (Ok(true), DeliveryStatus::Delivered) => "delivered",
        (Ok(true), DeliveryStatus::Pending) => "retry",
        (Ok(true), _) => "failed",
    };
    metrics::attempt(outcome, elapsed);
    let fields = (
        claimed.id.to_string(),
        claimed.webhook_id.to_string(),
        claimed.event_id.to_string(),
    );
    match recorded {
        Err(error) => tracing::warn!(
            delivery.id = %fields.0, webhook.id = %fields.1, %error,
            "cannot record a delivery attempt; it is attempted again when its lease runs out"
        ),
        Ok(false) => tracing::warn!(
            delivery.id = %fields.0, webhook.id = %fields.1,
            "a delivery's lease ran out during its attempt; another worker has it"
        ),
        Ok(true) if settlement.status == DeliveryStatus::Failed => tracing::info!(
            delivery.id = %fields.0, webhook.id = %fields.1, event.id = %fields.2,
            attempt = claimed.attempt, http.status = settlement.response_status,
            error = settlement.error.as_deref().unwrap_or(""),
            "a webhook delivery failed after its last attempt"
        ),
        Ok(true) => tracing::debug!(
            delivery.id = %fields.0, webhook.id = %fields.1, event.id = %fields.2,
            attempt = claimed.attempt, outcome, http.status = settlement.response_status,
            duration_ms = elapsed.as_millis() as u64,
            "webhook attempt"
        ),
    }
}

#[async_trait]
impl Channel for WebhookChannel {
    fn name(&self) -> &'static str {
        "webhook"
    }

    async fn dispatch(&self) -> bool {
        match self
            .webhooks
            .dispatch(self.config.batch, lease_of(&self.config))
            .await
        {
            Ok(dispatched) => {
                for dead in &dispatched.set_aside {
                    tracing::error!(
                        event.id = %dead.id, event.kind = %dead.kind, error = %dead.error,
                        "an outbox event cannot be read; set aside, never retried \
                         (procflow admin outbox --dead lists it, --retry ID re-queues it)"
                    );
                }
                if !dispatched.set_aside.is_empty() {
                    metrics::outbox_dead(dispatched.set_aside.len());
                }
                dispatched.taken >= self.config.batch
            }
            Err(error) => {
                tracing::warn!(%error, "cannot fan out outbox events; retrying after the lease");
                false
            }
        }
    }

    async fn start_due(&self, free: usize, tasks: &mut JoinSet<()>) -> usize {
        if free == 0 {
            return 0;
        }
        let now = self.clock.now();
        let lease = Uuid::now_v7();
        let claimed = match self
            .queue
            .claim_due(free, now, now + lease_of(&self.config), lease)
            .await
        {
            Ok(claimed) => claimed,
            Err(error) => {
                tracing::warn!(%error, "cannot claim due webhook deliveries");
                return 0;
            }
        };
        if !claimed.is_empty() {
            self.leases().insert(lease);
        }
        let started = claimed.len();
        for delivery in claimed {
            tasks.spawn(attempt(
                delivery,
                self.sender.clone(),
                self.settler.clone(),
                self.clock.clone(),
                self.config.schedule.clone(),
            ));
        }
        started
    }

    async fn release(&self) {
        let leases: Vec<Uuid> = self.leases().drain().collect();
        let now = self.clock.now();
        for lease in leases {
            match self.queue.release(lease, now).await {
                Ok(0) => {}
                Ok(released) => tracing::info!(released, "gave back webhook deliveries in flight"),
                Err(error) => {
                    tracing::warn!(%error, "cannot give back deliveries; their lease runs out instead")
                }
            }
        }
    }

    async fn upkeep(&self) {
        let now = self.clock.now();
        match self.queue.backlog().await {
            Ok(backlog) => metrics::backlog(backlog, now),
            Err(error) => tracing::debug!(%error, "cannot read the delivery backlog"),
        }
        {
            let mut next = self
                .next_sweep
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if Instant::now() < *next {
                return;
            }
            *next = Instant::now() + SWEEP_EVERY;
        }
        let ports = self.webhooks.ports();
        let swept = (
            ports.deliveries.sweep_deliveries(now - RETENTION).await,
            ports.outbox.sweep_events(now - RETENTION).await,
        );
        match swept {
            (Ok(deliveries), Ok(events)) if deliveries + events > 0 => {
                tracing::info!(
                    deliveries,
                    events,
                    "swept deliveries and events older than 30 days"
                );
            }
            (Ok(_), Ok(_)) => {}
            (Err(error), _) | (_, Err(error)) => {
                tracing::warn!(%error, "cannot sweep old deliveries")
            }
        }
        match self.queue.backlog().await {
            Ok(backlog) => metrics::backlog(backlog, now),
            Err(error) => tracing::debug!(%error, "cannot read the delivery backlog"),
        }
    }
}

/// The worker: its channels, what wakes it, and its settings.
pub struct Worker {
    channels: Vec<Arc<dyn Channel>>,
    signal: Arc<dyn WorkSignal>,
    config: WorkerConfig,
}

/// A running worker: stop it and wait for it with [`WorkerTask::stop`].
#[derive(Debug)]
pub struct WorkerTask {
    stop: watch::Sender<bool>,
    join: JoinHandle<()>,
}

impl WorkerTask {
    /// Asks the worker to stop and waits until it finished or gave back what it held.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = self.join.await;
    }
}

/// How often the backlog figures are refreshed.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// How often deliveries and events past their 30 days are swept.
const SWEEP_EVERY: Duration = Duration::from_secs(600);

impl Worker {
    /// A worker over `channels`, woken by `signal`.
    #[must_use]
    pub fn new(
        channels: Vec<Arc<dyn Channel>>,
        signal: Arc<dyn WorkSignal>,
        config: WorkerConfig,
    ) -> Self {
        Self {
            channels,
            signal,
            config,
        }
    }

    /// Runs the worker on the current runtime until [`WorkerTask::stop`].
    #[must_use]
    pub fn spawn(self) -> WorkerTask {
        let (stop, stopped) = watch::channel(false);
        let join = tokio::spawn(self.run(stopped));
        WorkerTask { stop, join }
    }

    async fn run(self, mut stopped: watch::Receiver<bool>) {
        metrics::describe();
        tracing::info!(
            concurrency = self.config.concurrency,
            poll_ms = self.config.poll_interval.as_millis() as u64,
            schedule = %self.config.schedule,
            "the delivery worker is running"
        );
        let mut tasks = JoinSet::new();
        let mut next_upkeep = Instant::now();
        // `look`: woken by a signal or the poll, so new events may wait to be fanned out.
        // `more_due`: the last claim was full, so more deliveries may be due. An attempt that
        // ends only frees a slot: slots are refilled once half are free, not one by one, so
        // that a busy worker claims in batches rather than a statement per delivery.
        let (mut look, mut more_due) = (true, true);
        loop {
            if look {
                for channel in &self.channels {
                    while channel.dispatch().await {}
                }
                more_due = true;
            }
            let free = self.config.concurrency.saturating_sub(tasks.len());
            if more_due && (tasks.is_empty() || free * 2 >= self.config.concurrency) {
                more_due = false;
                for channel in &self.channels {
                    let free = self.config.concurrency.saturating_sub(tasks.len());
                    if free > 0 && channel.start_due(free, &mut tasks).await == free {
                        more_due = true;
                    }
                }
            }
            if Instant::now() >= next_upkeep {
                for channel in &self.channels {
                    channel.upkeep().await;
                }
                next_upkeep = Instant::now() + UPKEEP_EVERY;
            }
            look = false;
            tokio::select! {
                _ = stopped.changed() => break,
                () = self.signal.wait() => {
                    tokio::time::sleep(self.config.gather).await;
                    look = true;
                }
                Some(_) = tasks.join_next(), if !tasks.is_empty() => {
                    while tasks.try_join_next().is_some() {}
                }
                () = tokio::time::sleep(self.config.poll_interval) => look = true,
            }
        }
        self.drain(tasks).await;
    }

    /// Waits for the attempts in flight up to the grace period, then gives back the rest.
    async fn drain(&self, mut tasks: JoinSet<()>) {
        let in_flight = tasks.len();
        let finished = tokio::time::timeout(self.config.shutdown_grace, async {
            while tasks.join_next().await.is_some() {}
        })
        .await;
        if finished.is_err() {
            tasks.abort_all();
            while tasks.join_next().await.is_some() {}
        }
        for channel in &self.channels {
            channel.release().await;
        }
        tracing::info!(in_flight, "the delivery worker stopped");
    }
}
