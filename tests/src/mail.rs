//! Emails under test: the email use cases over the test database with a clock the test moves
//! (reminders and overdue notices are driven through it, never by sleeping), and a pump that
//! does what the worker's loop does once: scan for due notices, fan out the outbox, send what
//! is due and wait for the sends.

use std::sync::Arc;
use std::time::Duration;

use procflow_domain::ids::HolderId;
use procflow_domain::ports::Clock;
use procflow_domain::service::{MailPorts, Mailer, WebhookPorts, Webhooks};
use procflow_memory::FixedClock;
use procflow_notify::{Channel, MailChannel, MailConfig, MailSender, WorkerConfig};
use procflow_postgres::{PgStore, PoolConfig};
use procflow_server::system::{RandomIds, SystemClock};
use tokio::task::JoinSet;

/// One instance's email side, on the test database.
pub struct MailWorld {
    webhooks: Webhooks,
    channel: MailChannel,
}

/// A clock a minute ahead of the system's, so that what the API just wrote is due for it.
#[must_use]
pub fn test_clock() -> Arc<FixedClock> {
    Arc::new(FixedClock::at(SystemClock.now() + time::Duration::MINUTE))
}

/// Where a test's emails go: its SMTP server, plain.
#[must_use]
pub fn smtp_config(url: String) -> MailConfig {
    MailConfig {
        smtp_url: Some(url),
        ..MailConfig::default()
    }
}

impl MailWorld {
    /// The email side of one instance over the database at `db_url`, on `clock`.
    #[must_use]
    pub fn new(db_url: &str, mail: &MailConfig, clock: Arc<FixedClock>) -> Self {
        let store = PgStore::new(&PoolConfig {
            max_size: 2,
            ..PoolConfig::new(db_url)
        })
        .expect("pool");
        let shared = Arc::new(store);
        let mailer = Mailer::new(MailPorts {
            queue: shared.clone(),
            notices: shared.clone(),
            teams: shared.clone(),
            runs: shared.clone(),
            clock: clock.clone(),
            ids: Arc::new(RandomIds),
        });
        let webhooks = Webhooks::new(WebhookPorts {
            webhooks: shared.clone(),
            deliveries: shared.clone(),
            feed: shared.clone(),
            outbox: shared.clone(),
            teams: shared.clone(),
            runs: shared,
            clock,
            ids: Arc::new(RandomIds),
        })
        .with_mail(mailer.clone());
        let sender = Arc::new(MailSender::new(mail).expect("mail sender"));
        let channel = MailChannel::new(
            mailer,
            sender,
            WorkerConfig::default(),
            Duration::from_secs(3600),
            HolderId::from_uuid(uuid::Uuid::now_v7()),
        );
        Self { webhooks, channel }
    }

    /// Once what the worker's loop does: raises due notices, fans the outbox out into emails,
    /// sends every email due and waits until each outcome is recorded.
    pub async fn pump(&self) {
        self.channel.scan().await;
        self.fan_out().await;
        let mut sends = JoinSet::new();
        self.channel.start_due(100, &mut sends).await;
        while sends.join_next().await.is_some() {}
    }

    /// Fans the outbox out into emails (queues them), sending none.
    pub async fn fan_out(&self) {
        while self
            .webhooks
            .dispatch(200, time::Duration::minutes(1))
            .await
            .expect("dispatch")
            .taken
            > 0
        {}
    }
}
