//! The delivery worker's settings (shared by `procflow serve` and `procflow worker`), its
//! wiring over the PostgreSQL store, and `procflow worker`: the worker alone, with `/metrics`
//! and `/healthz` on the bind address.

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use actix_web::{App, HttpResponse, HttpServer, web};
use clap::builder::BoolishValueParser;
use clap::{ArgAction, Args};
use procflow_domain::ports::StoreStats;
use procflow_domain::webhook::RetrySchedule;
use procflow_notify::{HttpSender, SenderConfig, WebhookChannel, Worker, WorkerConfig, WorkerTask};
use procflow_postgres::PgStore;
use tokio::task::JoinHandle;

use crate::app::webhooks_on;

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
    /// Waits between webhook attempts, after attempt 1, 2, ... (s, m, h, d), each ±20 %
    #[arg(long, env = "PROCFLOW_WEBHOOK_RETRY_SCHEDULE", default_value = RetrySchedule::DEFAULT)]
    pub webhook_retry_schedule: RetrySchedule,
    /// Webhook attempts in flight at most, per worker
    #[arg(
        long,
        env = "PROCFLOW_WORKER_CONCURRENCY",
        default_value_t = WorkerConfig::DEFAULT_CONCURRENCY as u16,
        value_parser = clap::value_parser!(u16).range(1..=1000)
    )]
    pub worker_concurrency: u16,
    /// Seconds a worker holds a delivery before another may take it (keep it above the 10 s
    /// attempt limit, or a slow attempt is repeated by another worker)
    #[arg(
        long,
        env = "PROCFLOW_WORKER_LEASE_SECONDS",
        default_value_t = WorkerConfig::DEFAULT_LEASE.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..=3600)
    )]
    pub worker_lease_seconds: u64,
    /// Milliseconds between looks for due work when no notification comes
    #[arg(
        long,
        env = "PROCFLOW_WORKER_POLL_MS",
        default_value_t = WorkerConfig::DEFAULT_POLL_INTERVAL.as_millis() as u64,
        value_parser = clap::value_parser!(u64).range(10..=60_000)
    )]
    pub worker_poll_ms: u64,
}

/// The worker's settings, read once at start-up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkerSettings {
    /// The loop.
    pub worker: WorkerConfig,
    /// The sender.
    pub sender: SenderConfig,
}

impl WorkerArgs {
    /// The settings these arguments give.
    #[must_use]
    pub fn settings(&self) -> WorkerSettings {
        WorkerSettings {
            worker: WorkerConfig {
                concurrency: usize::from(self.worker_concurrency),
                lease: Duration::from_secs(self.worker_lease_seconds),
                poll_interval: Duration::from_millis(self.worker_poll_ms),
                schedule: self.webhook_retry_schedule.clone(),
                ..WorkerConfig::default()
            },
            sender: SenderConfig {
                allow_private: self.webhook_allow_private,
                ..SenderConfig::default()
            },
        }
    }
}

/// A running worker and the task that listens for its notifications.
#[derive(Debug)]
pub struct RunningWorker {
    task: WorkerTask,
    listener: JoinHandle<()>,
}

impl RunningWorker {
    /// Stops the worker: attempts in flight finish (or are given back), then it returns.
    pub async fn stop(self) {
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
    let channel = WebhookChannel::new(webhooks_on(store), sender, settings.worker.clone());
    let listener = store.listen();
    let task = Worker::new(
        vec![Arc::new(channel)],
        Arc::new(store.clone()),
        settings.worker.clone(),
    )
    .spawn();
    tracing::info!(
        webhook.allow_private = settings.sender.allow_private,
        "the delivery worker is started"
    );
    Ok(RunningWorker { task, listener })
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
