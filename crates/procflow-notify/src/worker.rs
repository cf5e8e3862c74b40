//! The delivery worker's loop: over its [`Channel`]s (one [`QueueChannel`](crate::channel::QueueChannel)
//! per leased queue: webhooks, emails), it dispatches new work, claims due jobs while slots
//! are free, and keeps house; woken by the work signal, polling as a fallback; beside it, a
//! task renews the leases of the jobs in flight, so that they stay this worker's however long
//! their attempts take, and stop being its own soon after it dies; on shutdown it finishes
//! what it holds or gives it back.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use procflow_domain::ports::WorkSignal;
use procflow_domain::queue::RENEWALS_PER_LEASE;
use procflow_domain::webhook::RetrySchedule;
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};
use uuid::Uuid;

use crate::gather::Gather;
use crate::metrics;

/// How the worker behaves; read once at start-up.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkerConfig {
    /// Attempts in flight at most.
    pub concurrency: usize,
    /// How long a claim outlives its holder's last renewal: the jobs in flight are renewed
    /// [`RENEWALS_PER_LEASE`] times per lease while their attempts run (however long, up to
    /// each attempt's own time limit), so this is how soon the work of a worker that died is
    /// taken over by another. Outbox events, whose fan-out is short and repeatable, are held
    /// this long without renewal.
    pub lease: Duration,
    /// How often to look for work when no signal comes.
    pub poll_interval: Duration,
    /// Outbox events fanned out per statement.
    pub batch: usize,
    /// The waits between attempts.
    pub schedule: RetrySchedule,
    /// How long shutdown waits for attempts in flight before giving them back.
    pub shutdown_grace: Duration,
    /// How long to let commits gather after a wake-up before fanning them out while events
    /// come one at a time: a lone event's webhook waits no longer than this.
    pub gather: Duration,
    /// The longest it grows to under a steady stream of events (doubled after each fan-out
    /// that found one): one fan-out then takes many events instead of a few.
    pub gather_max: Duration,
}

impl WorkerConfig {
    /// Attempts in flight unless configured.
    pub const DEFAULT_CONCURRENCY: usize = 128;
    /// The lease unless configured: a dead worker's jobs are taken over within this (plus a
    /// poll), well inside the 10 s a user would notice.
    pub const DEFAULT_LEASE: Duration = Duration::from_secs(5);
    /// The poll unless configured: a missed signal delays work by at most this.
    pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);
    /// Events per fan-out.
    pub const DEFAULT_BATCH: usize = 200;
    /// Shutdown's wait: an attempt's time limit and some.
    pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(15);
    /// The gathering delay after a wake-up while events come one at a time.
    pub const DEFAULT_GATHER: Duration = Duration::from_millis(20);
    /// The gathering delay at most, under a steady stream: a tenth of the 2 s within which
    /// the contract has a delivery attempted after its commit.
    pub const DEFAULT_GATHER_MAX: Duration = Duration::from_millis(200);
}

impl WorkerConfig {
    /// How often the leases of the jobs in flight are renewed.
    #[must_use]
    pub fn renew_every(&self) -> Duration {
        self.lease / RENEWALS_PER_LEASE
    }
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
            gather_max: Self::DEFAULT_GATHER_MAX,
        }
    }
}

/// One kind of outbound work the worker drives: it takes what is due and carries it out.
#[async_trait]
pub trait Channel: Send + Sync {
    /// Its name, for logs and metrics.
    fn name(&self) -> &'static str;

    /// Turns outbox events into this channel's work; answers how many it took (a full batch,
    /// [`WorkerConfig::batch`]: more may wait).
    async fn dispatch(&self) -> usize;

    /// Claims up to `free` due items and starts them in `tasks`; answers how many.
    async fn start_due(&self, free: usize, tasks: &mut JoinSet<()>) -> usize;

    /// Renews the leases of the items in flight (none: nothing to do).
    async fn renew(&self);

    /// Gives back what is still held (a shutdown that could not wait).
    async fn release(&self);

    /// Housekeeping: the sweep and the backlog figures.
    async fn upkeep(&self);
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
            lease_ms = self.config.lease.as_millis() as u64,
            schedule = %self.config.schedule,
            "the delivery worker is running"
        );
        // Tasks of their own, one per channel, so that neither a long dispatch or slow claim of
        // the loop nor the other channel's renewal delays a renewal past the lease.
        let mut renewing = JoinSet::new();
        for channel in &self.channels {
            renewing.spawn(renew(channel.clone(), self.config.renew_every()));
        }
        let mut tasks = JoinSet::new();
        let mut next_upkeep = Instant::now();
        // `look`: woken by a signal or the poll, so new events may wait to be fanned out.
        // `more_due`: jobs were queued (by this fan-out or anyone else's), the poll came, or the
        // last claim was full, so jobs may be due. A wake-up for events whose fan-out queued no
        // job claims nothing: two transactions saved per event of a team without endpoints or
        // mail. An attempt that ends only frees a slot: slots are refilled once half are free,
        // not one by one, so that a busy worker claims in batches rather than a statement per
        // delivery. `backlog`: the last fan-out took a full batch, so more events wait: one
        // batch per turn of the loop, so that a steady stream of events (a full batch every
        // time) cannot keep the loop from starting the jobs its fan-outs queue. `gather`: how
        // long a wake-up waits for more commits, lengthened while they stream.
        let (mut look, mut more_due, mut backlog) = (true, true, false);
        let mut gather = Gather::new(self.config.gather, self.config.gather_max);
        loop {
            if look || backlog {
                let mut events = 0;
                backlog = false;
                for channel in &self.channels {
                    let taken = channel.dispatch().await;
                    events += taken;
                    backlog |= taken >= self.config.batch;
                }
                gather.fanned_out(events);
                more_due |= self.signal.jobs_queued();
            }
            let free = self.config.concurrency.saturating_sub(tasks.len());
            if more_due && (tasks.is_empty() || free * 2 >= self.config.concurrency) {
                more_due = self.start_due(&mut tasks).await;
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
                () = std::future::ready(()), if backlog => {}
                () = self.signal.wait() => {
                    tokio::time::sleep(gather.delay()).await;
                    look = true;
                }
                Some(_) = tasks.join_next(), if !tasks.is_empty() => {
                    while tasks.try_join_next().is_some() {}
                }
                () = tokio::time::sleep(self.config.poll_interval) => (look, more_due) = (true, true),
            }
        }
        self.drain(tasks, renewing).await;
    }

    /// Claims due jobs into the free slots, an even share for each channel first (so that a
    /// backlog of one, webhooks, say, cannot keep the other's jobs waiting), then what a
    /// channel left of its share to those that took all of theirs; whether jobs may still be
    /// due (a channel took all it was offered).
    async fn start_due(&self, tasks: &mut JoinSet<()>) -> bool {
        let free = |tasks: &JoinSet<()>| self.config.concurrency.saturating_sub(tasks.len());
        let mut hungry = Vec::new();
        for (i, channel) in self.channels.iter().enumerate() {
            let share = free(tasks).div_ceil(self.channels.len() - i);
            if share > 0 && channel.start_due(share, tasks).await == share {
                hungry.push(channel);
            }
        }
        let mut more_due = false;
        for channel in hungry {
            let left = free(tasks);
            if left == 0 || channel.start_due(left, tasks).await == left {
                more_due = true;
            }
        }
        more_due
    }

    /// Waits for the attempts in flight up to the grace period (their leases still renewed),
    /// then gives back the rest.
    async fn drain(&self, mut tasks: JoinSet<()>, mut renewing: JoinSet<()>) {
        let in_flight = tasks.len();
        let finished = tokio::time::timeout(self.config.shutdown_grace, async {
            while tasks.join_next().await.is_some() {}
        })
        .await;
        if finished.is_err() {
            tasks.abort_all();
            while tasks.join_next().await.is_some() {}
        }
        renewing.abort_all();
        while renewing.join_next().await.is_some() {}
        for channel in &self.channels {
            channel.release().await;
        }
        tracing::info!(in_flight, "the delivery worker stopped");
    }
}

/// Renews the leases of a channel's jobs in flight, every `every`, until aborted.
async fn renew(channel: Arc<dyn Channel>, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        channel.renew().await;
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use tokio::sync::{Notify, watch};

    use super::*;

    /// A channel that counts its dispatches and claims and notes when each dispatch ran; its
    /// fan-outs take the scripted numbers of events in turn, then a full batch every time when
    /// `streaming` (events keep coming), none otherwise.
    #[derive(Default)]
    struct Counting {
        dispatches: AtomicUsize,
        claims: AtomicUsize,
        script: Mutex<VecDeque<usize>>,
        streaming: bool,
        ran: Mutex<Vec<tokio::time::Instant>>,
    }

    #[async_trait]
    impl Channel for Counting {
        fn name(&self) -> &'static str {
            "counting"
        }

        async fn dispatch(&self) -> usize {
            self.dispatches.fetch_add(1, Ordering::SeqCst);
            self.ran
                .lock()
                .expect("not poisoned")
                .push(tokio::time::Instant::now());
            tokio::task::yield_now().await;
            let scripted = self.script.lock().expect("not poisoned").pop_front();
            scripted.unwrap_or(if self.streaming {
                WorkerConfig::DEFAULT_BATCH
            } else {
                0
            })
        }

        async fn start_due(&self, _free: usize, _tasks: &mut JoinSet<()>) -> usize {
            self.claims.fetch_add(1, Ordering::SeqCst);
            0
        }

        async fn renew(&self) {}

        async fn release(&self) {}

        async fn upkeep(&self) {}
    }

    /// A signal rung by the test, saying whether jobs came, and counting the worker's waits.
    struct Scripted {
        rung: Notify,
        jobs: AtomicBool,
        waits: watch::Sender<usize>,
    }

    #[async_trait]
    impl WorkSignal for Scripted {
        async fn wait(&self) {
            self.waits.send_modify(|waits| *waits += 1);
            self.rung.notified().await;
        }

        fn jobs_queued(&self) -> bool {
            self.jobs.swap(false, Ordering::SeqCst)
        }
    }

    /// A signal the test rings, saying `jobs` queued at the first look, and the count of the
    /// worker's waits.
    fn scripted(jobs: bool) -> (Arc<Scripted>, watch::Receiver<usize>) {
        let (waits, waited) = watch::channel(0);
        let signal = Arc::new(Scripted {
            rung: Notify::new(),
            jobs: AtomicBool::new(jobs),
            waits,
        });
        (signal, waited)
    }

    /// A worker that wakes only when rung: no poll in the test's time, no gathering pause.
    fn rung_only() -> WorkerConfig {
        WorkerConfig {
            poll_interval: Duration::from_secs(3600),
            gather: Duration::ZERO,
            gather_max: Duration::ZERO,
            ..WorkerConfig::default()
        }
    }

    #[tokio::test]
    async fn a_wake_up_for_events_alone_claims_nothing_and_one_for_jobs_claims() {
        let channel = Arc::new(Counting::default());
        let (signal, mut waited) = scripted(false);
        let config = rung_only();
        let worker = Worker::new(vec![channel.clone()], signal.clone(), config).spawn();
        let counts = || {
            (
                channel.dispatches.load(Ordering::SeqCst),
                channel.claims.load(Ordering::SeqCst),
            )
        };
        // Each wait entered is the end of one turn of the loop.
        let mut turn = async |n: usize| {
            waited
                .wait_for(|waits| *waits >= n)
                .await
                .expect("the worker runs");
        };

        turn(1).await;
        assert_eq!(counts(), (1, 1), "the first turn looks at everything");
        signal.rung.notify_one();
        turn(2).await;
        assert_eq!(
            counts(),
            (2, 1),
            "events alone: fanned out, nothing claimed"
        );
        signal.jobs.store(true, Ordering::SeqCst);
        signal.rung.notify_one();
        turn(3).await;
        assert_eq!(counts(), (3, 2), "jobs queued: claimed");
        worker.stop().await;
    }

    #[tokio::test]
    async fn a_steady_stream_of_events_does_not_keep_the_loop_from_claiming() {
        let channel = Arc::new(Counting {
            streaming: true,
            ..Counting::default()
        });
        let (signal, _) = scripted(true);
        let config = rung_only();
        let worker = Worker::new(vec![channel.clone()], signal, config).spawn();
        // Fanning out until no full batch is left, the loop would never come to its claim.
        let claimed = tokio::time::timeout(Duration::from_secs(10), async {
            while channel.claims.load(Ordering::SeqCst) == 0
                || channel.dispatches.load(Ordering::SeqCst) < 3
            {
                tokio::task::yield_now().await;
            }
        })
        .await;
        assert!(
            claimed.is_ok(),
            "claims {} after {} full fan-outs",
            channel.claims.load(Ordering::SeqCst),
            channel.dispatches.load(Ordering::SeqCst)
        );
        worker.stop().await;
    }

    #[tokio::test(start_paused = true)]
    async fn a_stream_of_events_lengthens_the_gathering_and_a_lone_event_shortens_it() {
        // The first look at start-up takes none; then four fan-outs take a stream of 50 each,
        // then one a lone event.
        let channel = Arc::new(Counting {
            script: Mutex::new([0, 50, 50, 50, 50, 1].into()),
            ..Counting::default()
        });
        let (signal, mut waited) = scripted(false);
        let config = WorkerConfig {
            gather: Duration::from_millis(20),
            gather_max: Duration::from_millis(100),
            ..rung_only()
        };
        let worker = Worker::new(vec![channel.clone()], signal.clone(), config).spawn();
        let mut gathered = Vec::new();
        for turn in 1..=6 {
            waited
                .wait_for(|waits| *waits >= turn)
                .await
                .expect("the worker runs");
            let rung = tokio::time::Instant::now();
            signal.rung.notify_one();
            waited
                .wait_for(|waits| *waits > turn)
                .await
                .expect("the worker runs");
            let ran = *channel
                .ran
                .lock()
                .expect("not poisoned")
                .last()
                .expect("ran");
            gathered.push(u64::try_from((ran - rung).as_millis()).expect("short"));
        }
        assert_eq!(
            gathered,
            [20, 40, 80, 100, 100, 20],
            "each wake-up's gathering, in ms: doubled after each fan-out of the stream, up to \
             the longest, then short again after the lone event"
        );
        worker.stop().await;
    }

    /// A channel with more due jobs than slots: each job it starts holds its slot until the
    /// test ends.
    struct Backlogged {
        name: &'static str,
        started: AtomicUsize,
        held: Arc<Notify>,
    }

    #[async_trait]
    impl Channel for Backlogged {
        fn name(&self) -> &'static str {
            self.name
        }

        async fn dispatch(&self) -> usize {
            0
        }

        async fn start_due(&self, free: usize, tasks: &mut JoinSet<()>) -> usize {
            for _ in 0..free {
                let held = self.held.clone();
                tasks.spawn(async move { held.notified().await });
            }
            self.started.fetch_add(free, Ordering::SeqCst);
            free
        }

        async fn renew(&self) {}

        async fn release(&self) {}

        async fn upkeep(&self) {}
    }

    #[tokio::test]
    async fn a_backlog_of_one_channel_leaves_the_other_its_share_of_the_slots() {
        let held = Arc::new(Notify::new());
        let channel = |name| {
            Arc::new(Backlogged {
                name,
                started: AtomicUsize::new(0),
                held: held.clone(),
            })
        };
        let (webhooks, mail) = (channel("webhooks"), channel("mail"));
        let (signal, mut waited) = scripted(true);
        let config = WorkerConfig {
            concurrency: 8,
            shutdown_grace: Duration::ZERO,
            ..rung_only()
        };
        let channels: Vec<Arc<dyn Channel>> = vec![webhooks.clone(), mail.clone()];
        let worker = Worker::new(channels, signal, config).spawn();
        waited
            .wait_for(|waits| *waits >= 1)
            .await
            .expect("the worker runs");
        assert_eq!(
            (
                webhooks.started.load(Ordering::SeqCst),
                mail.started.load(Ordering::SeqCst)
            ),
            (4, 4),
            "an even share each, the first channel's backlog notwithstanding"
        );
        worker.stop().await;
    }
}
