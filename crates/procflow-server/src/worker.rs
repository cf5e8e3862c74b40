//! The delivery worker's settings (shared by `procflow serve` and `procflow worker`), its
//! wiring over the PostgreSQL store, and `procflow worker`: the worker alone, with `/metrics`
//! and `/healthz` on the bind address.

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use actix_web::{App, HttpResponse, HttpServer, web};
use clap::builder::BoolishValueParser;
use clap::{ArgAction, Args};
use procflow_domain::duration::{DurationRule, Unit};
use procflow_domain::ids::HolderId;
use procflow_domain::ports::StoreStats;
use procflow_domain::values::Email;
use procflow_domain::webhook::RetrySchedule;
use procflow_notify::{
    HttpSender, MailChannel, MailConfig, MailSender, SenderConfig, WebhookChannel, Worker,
    WorkerConfig, WorkerTask,
};
use procflow_postgres::PgStore;
use tokio::task::JoinHandle;
use uuid::Uuid;

use crate::config::{DEFAULT_SMTP_FROM, Secret, WorkerSettings};
use crate::periodic::Periodic;
use crate::setting;
use crate::use_cases::{mailer_on, schedules_on, webhooks_on};

/// How webhooks are delivered: flattened into `procflow serve` and `procflow worker`.
#[derive(Clone, Debug, Args)]
pub struct WorkerArgs {
    /// Allow webhook destinations on loopback, private and link-local addresses (true|false)
    #[arg(
        long,
        env = "PROCFLOW_WEBHOOK_ALLOW_PRIVATE",
        default_value_t = false,
        action = ArgAction::Set,
        value_parser = BoolishValueParser::new()
    )]
    pub webhook_allow_private: bool,
    /// Waits between webhook and email attempts, after attempt 1, 2, ..., each 500ms, 30s, 5m,
    /// 2h or 1d (a unit is required), from 1ms to 7d, at most 30 of them; each ±20 %
    #[arg(
        long,
        env = "PROCFLOW_WEBHOOK_RETRY_SCHEDULE",
        value_name = "WAITS",
        default_value = RetrySchedule::DEFAULT,
        value_parser = setting::retry_schedule()
    )]
    pub webhook_retry_schedule: RetrySchedule,
    /// Webhook attempts in flight at most, per worker
    #[arg(
        long,
        env = "PROCFLOW_WORKER_CONCURRENCY",
        default_value_t = WorkerConfig::DEFAULT_CONCURRENCY as u16,
        value_parser = clap::value_parser!(u16).range(1..=1000)
    )]
    pub worker_concurrency: u16,
    /// How soon the deliveries and emails of a worker that died (killed, or cut off from the
    /// database) are taken over by another: a claim outlives its holder's last renewal by this
    /// (renewed three times per lease while an attempt runs, so a slow attempt, up to its own
    /// time limit, stays its worker's); 500ms, 30s, 5m, 2h or 1d (a bare number is seconds),
    /// from 1s to 1h
    #[arg(
        long = "worker-lease-seconds",
        env = "PROCFLOW_WORKER_LEASE_SECONDS",
        value_name = "DURATION",
        default_value = "5s",
        value_parser = setting::duration(WORKER_LEASE)
    )]
    pub worker_lease: Duration,
    /// How often a worker looks for due work when no notification comes: 500ms, 30s, 5m, 2h or
    /// 1d (a bare number is milliseconds), from 10ms to 1m
    #[arg(
        long = "worker-poll-ms",
        env = "PROCFLOW_WORKER_POLL_MS",
        value_name = "DURATION",
        default_value = "1s",
        value_parser = setting::duration(WORKER_POLL)
    )]
    pub worker_poll: Duration,
    /// SMTP server for emails: smtp://host:port (plain), smtp://host:port?tls=required
    /// (STARTTLS), smtps://host:port (implicit TLS); credentials as smtp://user:password@host
    /// [default: none, emails go to PROCFLOW_MAIL_DIR, or are logged]
    #[arg(long, env = "PROCFLOW_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<Secret>,
    /// Sender address of emails (the team's name is the sender's name)
    #[arg(long, env = "PROCFLOW_SMTP_FROM", default_value = DEFAULT_SMTP_FROM)]
    pub smtp_from: Email,
    /// Without an SMTP server: write each email into this folder as a .eml file (a
    /// developer's machine) [default: none, emails are logged: kind and recipient's domain]
    #[arg(long, env = "PROCFLOW_MAIL_DIR")]
    pub mail_dir: Option<PathBuf>,
    /// How long between looks for due guest reminders, overdue tasks and schedules: 500ms, 30s, 5m, 2h or
    /// 1d (a bare number is seconds), from 1s to 1d
    #[arg(
        long,
        env = "PROCFLOW_SCHEDULER_INTERVAL",
        value_name = "DURATION",
        default_value = "60s",
        value_parser = setting::duration(SCHEDULER_INTERVAL)
    )]
    pub scheduler_interval: Duration,
}

/// `PROCFLOW_WORKER_LEASE_SECONDS`: seconds when bare, as before units were accepted.
pub const WORKER_LEASE: DurationRule =
    DurationRule::new(Duration::from_secs(1), Duration::from_secs(3_600)).bare_in(Unit::Seconds);

/// `PROCFLOW_WORKER_POLL_MS`: milliseconds when bare, as its name says.
pub const WORKER_POLL: DurationRule =
    DurationRule::new(Duration::from_millis(10), Duration::from_secs(60))
        .bare_in(Unit::Milliseconds);

/// `PROCFLOW_SCHEDULER_INTERVAL`: seconds when bare, as before units were accepted.
pub const SCHEDULER_INTERVAL: DurationRule =
    DurationRule::new(Duration::from_secs(1), Duration::from_secs(86_400)).bare_in(Unit::Seconds);

impl WorkerArgs {
    /// The settings these arguments give.
    #[must_use]
    pub fn settings(&self) -> WorkerSettings {
        WorkerSettings {
            worker: WorkerConfig {
                concurrency: usize::from(self.worker_concurrency),
                lease: self.worker_lease,
                poll_interval: self.worker_poll,
                schedule: self.webhook_retry_schedule.clone(),
                ..WorkerConfig::default()
            },
            sender: SenderConfig {
                allow_private: self.webhook_allow_private,
                ..SenderConfig::default()
            },
            mail: MailConfig {
                smtp_url: self.smtp_url.as_ref().map(|url| url.expose().to_owned()),
                from: self.smtp_from.to_string(),
                dir: self.mail_dir.clone(),
                ..MailConfig::default()
            },
            scheduler_interval: self.scheduler_interval,
        }
    }
}

/// A running worker and the task that listens for its notifications.
#[derive(Debug)]
pub struct RunningWorker {
    task: WorkerTask,
    listener: JoinHandle<()>,
    scheduler: Periodic,
}

impl RunningWorker {
    /// Stops the worker: attempts in flight finish (or are given back), then it returns.
    pub async fn stop(self) {
        self.scheduler.stop().await;
        self.task.stop().await;
        self.listener.abort();
    }
}

/// Connections the worker of `procflow serve` has to itself, beside the API's pool: its
/// claims and outcomes are batched, so a few suffice, and the API's requests never wait behind
/// them (nor they behind the API's).
pub const WORKER_POOL_SIZE: usize = 2;

/// Why the worker could not start.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// The webhook HTTP client could not be built.
    #[error(transparent)]
    Sender(#[from] procflow_notify::SenderError),
    /// The mail transport could not be set up.
    #[error(transparent)]
    Mail(#[from] procflow_notify::mail::MailSetupError),
    /// The worker's pool could not be built.
    #[error("cannot set up the worker's database pool: {0}")]
    Store(#[from] procflow_domain::error::StoreError),
}

/// Starts the delivery worker on the current runtime, over a pool of its own of
/// [`WORKER_POOL_SIZE`] connections to `store`'s database, woken with `store`.
///
/// # Errors
/// When the webhook HTTP client or the pool cannot be built.
pub fn spawn_worker(
    store: &PgStore,
    settings: &WorkerSettings,
) -> Result<RunningWorker, WorkerError> {
    let store = &store.with_own_pool(WORKER_POOL_SIZE)?;
    let sender = Arc::new(HttpSender::new(&settings.sender)?);
    let mail_sender = Arc::new(MailSender::new(&settings.mail)?);
    let mailer = mailer_on(store);
    // This process, as the holder of whatever its channels claim: new at each start, so that a
    // restarted process never mistakes its predecessor's claims for its own.
    let holder = HolderId::from_uuid(Uuid::now_v7());
    // One outbox, taken once: its dispatch queues the webhook deliveries and the emails.
    let webhooks = webhooks_on(store).with_mail(mailer.clone());
    let channel = WebhookChannel::new(webhooks, sender, settings.worker.clone(), holder);
    let mail = MailChannel::new(
        mailer,
        mail_sender.clone(),
        settings.worker.clone(),
        settings.scheduler_interval,
        holder,
    );
    let listener = store.listen();
    let task = Worker::new(
        vec![Arc::new(channel), Arc::new(mail)],
        Arc::new(store.clone()),
        settings.worker.clone(),
    )
    .spawn();
    tracing::info!(
        webhook.allow_private = settings.sender.allow_private,
        email.transport = mail_sender.mode(),
        email.dir = settings
            .mail
            .dir
            .as_ref()
            .map(|d| d.display().to_string())
            .unwrap_or_default(),
        scheduler.interval_ms = millis(settings.scheduler_interval),
        worker.holder = %holder,
        worker.lease_ms = millis(settings.worker.lease),
        worker.poll_ms = millis(settings.worker.poll_interval),
        "the delivery worker is started"
    );
    let scheduler = crate::scheduler::spawn(schedules_on(store), settings.scheduler_interval);
    Ok(RunningWorker {
        task,
        listener,
        scheduler,
    })
}

/// A duration as a log field: a number (tracing writes a `u128` as a string).
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// `procflow worker`'s own answers: `/healthz` and `/metrics`.
///
/// # Errors
/// When the listener cannot be used.
pub fn operator_server(
    listener: TcpListener,
    store: PgStore,
) -> std::io::Result<actix_web::dev::Server> {
    let stats: Arc<dyn StoreStats> = Arc::new(store);
    let server = HttpServer::new(move || {
        let stats = stats.clone();
        App::new()
            .route(
                "/healthz",
                web::get()
                    .to(|| async { HttpResponse::Ok().json(serde_json::json!({"status": "ok"})) }),
            )
            .route(
                procflow_http::metrics::PATH,
                web::get().to(move || {
                    let stats = stats.clone();
                    async move {
                        let text = procflow_http::metrics::render(
                            procflow_http::metrics::install(),
                            stats.as_ref(),
                        )
                        .await;
                        HttpResponse::Ok()
                            .content_type("text/plain; version=0.0.4; charset=utf-8")
                            .body(text)
                    }
                }),
            )
    })
    .workers(1)
    .listen(listener)?;
    Ok(server.run())
}

/// The address `procflow worker` serves its operator answers on, for its log line.
#[must_use]
pub fn describe(address: SocketAddr) -> String {
    format!("http://{address}/metrics")
}
