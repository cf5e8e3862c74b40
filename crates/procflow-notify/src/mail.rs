//! Emails (API contract 8.4) as a channel of the delivery worker: the scheduler that raises
//! due reminders and overdue notices as its dispatch, and what its sends log and count. The
//! claims, sends and outcomes (fenced by the lease, retried on the webhook schedule) are the
//! one [`QueueChannel`]'s; the fan-out of outbox events into emails happens in the webhook
//! channel's dispatch (one outbox).

pub mod render;
pub mod transport;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use procflow_domain::error::{DomainError, DomainResult};
use procflow_domain::ids::HolderId;
use procflow_domain::mail::{ClaimedMail, MailSettlement, MailStatus, Mails};
use procflow_domain::ports::Backlog;
use procflow_domain::service::{AttemptPorts, Attempts, Mailer};
use time::OffsetDateTime;

pub use transport::{MailConfig, MailSender, MailSetupError};

use crate::channel::{Hooks, QueueChannel, due};
use crate::metrics;
use crate::worker::WorkerConfig;

/// How often the scheduler looks for due reminders and overdue tasks unless configured
/// (`PROCFLOW_SCHEDULER_INTERVAL`).
pub const DEFAULT_SCHEDULER_INTERVAL: Duration = Duration::from_secs(60);

/// Notices raised per scheduler statement.
const NOTICE_BATCH: usize = 100;

/// The email channel.
pub type MailChannel = QueueChannel<Mails, MailHooks>;

/// What is particular to emails in the worker: the notice scheduler, logs and metrics.
pub struct MailHooks {
    mailer: Mailer,
    scheduler_interval: Duration,
    next_scan: Mutex<Instant>,
}

impl MailChannel {
    /// The channel over the email use cases and a sender, scanning for due notices every
    /// `scheduler_interval` (the first scan at once), claiming for `holder` (the worker
    /// process's, shared with its other channels).
    ///
    /// Starts the task that records outcomes: call it inside a tokio runtime.
    #[must_use]
    pub fn new(
        mailer: Mailer,
        sender: Arc<MailSender>,
        config: WorkerConfig,
        scheduler_interval: Duration,
        holder: HolderId,
    ) -> Self {
        let ports = mailer.ports().clone();
        let attempts = Attempts::new(
            AttemptPorts {
                queue: ports.queue,
                sender,
                clock: ports.clock,
                ids: ports.ids,
            },
            config.schedule.clone(),
            holder,
        );
        let hooks = MailHooks {
            mailer,
            scheduler_interval,
            next_scan: Mutex::new(Instant::now()),
        };
        Self::over(attempts, hooks, config)
    }

    /// Raises the events of every notice due now (reminders, overdue tasks); the fan-out then
    /// queues their emails. Answers how many notices were taken.
    pub async fn scan(&self) -> usize {
        self.hooks().scan().await
    }
}

impl MailHooks {
    async fn scan(&self) -> usize {
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

#[async_trait]
impl Hooks<Mails> for MailHooks {
    fn name(&self) -> &'static str {
        "email"
    }

    async fn dispatch(&self) -> usize {
        if due(&self.next_scan, self.scheduler_interval) {
            self.scan().await;
        }
        0
    }

    fn attempted(
        &self,
        claimed: &ClaimedMail,
        settlement: &MailSettlement,
        recorded: &Result<bool, String>,
        elapsed: Duration,
    ) {
        let outcome = match (recorded, settlement.status) {
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

    fn claim_failed(&self, error: &DomainError) {
        tracing::warn!(%error, "cannot claim due emails");
    }

    fn released(&self, released: DomainResult<u64>) {
        match released {
            Ok(0) => {}
            Ok(released) => tracing::info!(released, "gave back emails in flight"),
            Err(error) => {
                tracing::warn!(%error, "cannot give back emails; their lease runs out instead")
            }
        }
    }

    async fn swept(&self, swept: DomainResult<u64>, _now: OffsetDateTime) {
        match swept {
            Ok(0) => {}
            Ok(emails) => tracing::info!(emails, "swept emails older than 30 days"),
            Err(error) => tracing::warn!(%error, "cannot sweep old emails"),
        }
    }

    fn backlog(&self, backlog: DomainResult<Backlog>, _now: OffsetDateTime) {
        match backlog {
            Ok(backlog) => metrics::email_backlog(backlog.pending),
            Err(error) => tracing::debug!(%error, "cannot read the email backlog"),
        }
    }
}
