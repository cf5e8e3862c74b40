//! Emails (API contract 8.4) as a channel of the delivery worker: the scheduler that raises
//! due reminders and overdue notices, claims of queued emails under a lease, sends outside any
//! transaction, outcomes fenced by the lease and retried on the webhook schedule. The fan-out
//! of outbox events into emails happens in the webhook channel's dispatch (one outbox).

pub mod render;
pub mod transport;

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use procflow_domain::mail::{ClaimedMail, MailSettlement, MailStatus};
use procflow_domain::ports::Clock;
use procflow_domain::service::Mailer;
use procflow_domain::webhook::RETENTION;
use tokio::task::JoinSet;
use uuid::Uuid;

pub use transport::{MailConfig, MailSender, MailSetupError};

use crate::metrics;
use crate::worker::{Channel, WorkerConfig, jitter, lease_of};

/// How often the scheduler looks for due reminders and overdue tasks unless configured
/// (`PROCFLOW_SCHEDULER_INTERVAL`).
pub const DEFAULT_SCHEDULER_INTERVAL: Duration = Duration::from_secs(60);

/// Notices raised per scheduler statement.
const NOTICE_BATCH: usize = 100;

/// How often emails past their 30 days are swept.
const SWEEP_EVERY: Duration = Duration::from_secs(600);

/// The email channel.
pub struct MailChannel {
    mailer: Mailer,
    sender: Arc<MailSender>,
    clock: Arc<dyn Clock>,
    config: WorkerConfig,
    scheduler_interval: Duration,
    next_scan: Mutex<Instant>,
    next_sweep: Mutex<Instant>,
    leases: Mutex<HashSet<Uuid>>,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether `next` has come; if so it moves `every` on.
fn due(next: &Mutex<Instant>, every: Duration) -> bool {
    let mut next = locked(next);
    let now = Instant::now();
    if now < *next {
        return false;
    }
    *next = now + every;
    true
}

impl MailChannel {
    /// The channel over the email use cases and a sender, scanning for due notices every
    /// `scheduler_interval` (the first scan at once).
    #[must_use]
    pub fn new(
        mailer: Mailer,
        sender: Arc<MailSender>,
        config: WorkerConfig,
        scheduler_interval: Duration,
    ) -> Self {
        let clock = mailer.ports().clock.clone();
        Self {
            mailer,
            sender,
            clock,
            config,
            scheduler_interval,
            next_scan: Mutex::new(Instant::now()),
            next_sweep: Mutex::new(Instant::now()),
            leases: Mutex::default(),
        }
    }

    /// Raises the events of every notice due now (reminders, overdue tasks); the fan-out then
    /// queues their emails. Answers how many notices were taken.
    pub async fn scan(&self) -> usize {
        let mut taken = 0;
        loop {
            match self.mailer.raise_due_notices(NOTICE_BATCH).await {
                Ok(n) => {
                    taken += n;
                    if n < NOTICE_BATCH {
                        break;
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot look for due reminders and overdue tasks");
                    break;
                }
            }
        }
        if taken > 0 {
            tracing::info!(notices = taken, "raised due reminders and overdue notices");
        }
        taken
    }
}

async fn attempt(
    claimed: ClaimedMail,
    mailer: Mailer,
    sender: Arc<MailSender>,
    clock: Arc<dyn Clock>,
    config: WorkerConfig,
) {
    let at = clock.now();
    let started = Instant::now();
    let outcome = sender.send(&claimed).await;
    let elapsed = started.elapsed();
    let settlement = MailSettlement::of(&claimed, at, outcome, &config.schedule, jitter());
    let recorded = mailer
        .ports()
        .queue
        .settle_mail(&[(claimed.clone(), settlement.clone())])
        .await
        .map(|recorded| recorded.first().copied().unwrap_or(false));
    let outcome = match (&recorded, settlement.status) {
        (Ok(false), _) => "lost",
        (Err(_), _) => "unrecorded",
        (Ok(true), MailStatus::Sent) => "sent",
        (Ok(true), MailStatus::Pending) => "retry",
        (Ok(true), _) => "failed",
    };
    metrics::email(claimed.kind.as_str(), outcome, elapsed);
    let (id, kind, domain) = (claimed.id, claimed.kind, claimed.recipient_domain());
    let error = settlement.error.as_deref().unwrap_or("");
    match (recorded, outcome) {
        (Err(store), _) => tracing::warn!(
            email.id = %id, email.kind = %kind, error = %store,
            "cannot record an email's outcome; it is sent again when its lease runs out"
        ),
        (Ok(_), "lost") => tracing::warn!(
            email.id = %id, email.kind = %kind,
            "an email's lease ran out during its send; another worker has it"
        ),
        (Ok(_), "failed") => tracing::warn!(
            email.id = %id, email.kind = %kind, email.domain = domain,
            attempt = claimed.attempt, error,
            "an email failed for good"
        ),
        (Ok(_), "retry") => tracing::info!(
            email.id = %id, email.kind = %kind, email.domain = domain,
            attempt = claimed.attempt, error,
            "an email is retried later"
        ),
        _ => tracing::info!(
            email.id = %id, email.kind = %kind, email.domain = domain,
            attempt = claimed.attempt, duration_ms = elapsed.as_millis() as u64,
            "email sent"
        ),
    }
}

#[async_trait]
impl Channel for MailChannel {
    fn name(&self) -> &'static str {
        "email"
    }

    async fn dispatch(&self) -> bool {
        if due(&self.next_scan, self.scheduler_interval) {
            self.scan().await;
        }
        false
    }

    async fn start_due(&self, free: usize, tasks: &mut JoinSet<()>) -> usize {
        if free == 0 {
            return 0;
        }
        let now = self.clock.now();
        let lease = Uuid::now_v7();
        let claimed = match self
            .mailer
            .ports()
            .queue
            .claim_mail(free, now, now + lease_of(&self.config), lease)
            .await
        {
            Ok(claimed) => claimed,
            Err(error) => {
                tracing::warn!(%error, "cannot claim due emails");
                return 0;
            }
        };
        if !claimed.is_empty() {
            locked(&self.leases).insert(lease);
        }
        let started = claimed.len();
        for mail in claimed {
            tasks.spawn(attempt(
                mail,
                self.mailer.clone(),
                self.sender.clone(),
                self.clock.clone(),
                self.config.clone(),
            ));
        }
        started
    }

    async fn release(&self) {
        let leases: Vec<Uuid> = locked(&self.leases).drain().collect();
        let now = self.clock.now();
        for lease in leases {
            match self.mailer.ports().queue.release_mail(lease, now).await {
                Ok(0) => {}
                Ok(released) => tracing::info!(released, "gave back emails in flight"),
                Err(error) => {
                    tracing::warn!(%error, "cannot give back emails; their lease runs out instead")
                }
            }
        }
    }

    async fn upkeep(&self) {
        let queue = &self.mailer.ports().queue;
        let now = self.clock.now();
        if due(&self.next_sweep, SWEEP_EVERY) {
            match queue.sweep_mail(now - RETENTION).await {
                Ok(0) => {}
                Ok(emails) => tracing::info!(emails, "swept emails older than 30 days"),
                Err(error) => tracing::warn!(%error, "cannot sweep old emails"),
            }
        }
        match queue.mail_backlog().await {
            Ok(backlog) => metrics::email_backlog(backlog.pending),
            Err(error) => tracing::debug!(%error, "cannot read the email backlog"),
        }
    }
}
