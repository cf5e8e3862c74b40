//! Wiring: the PostgreSQL store, the use cases, the HTTP API and the delivery worker, as
//! `procflow serve` runs them. Tests start the real app with [`start`] on port 0.

use std::future::Future;
use std::net::TcpListener;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use actix_web::dev::{Server, ServerHandle};
use procflow_domain::error::StoreError;
use procflow_http::Services;
use procflow_postgres::{PgStore, PoolConfig};

use crate::config::ServeConfig;
use crate::periodic::Periodic;
use crate::use_cases::{attachments_on, services_on};
use crate::worker::{RunningWorker, spawn_worker};

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The connection pool could not be built from the configuration.
    #[error("cannot set up the database pool: {0}")]
    Store(#[from] StoreError),
    /// The listener could not be used.
    #[error("cannot serve on the listener: {0}")]
    Listen(#[from] std::io::Error),
    /// The delivery worker could not be started.
    #[error(transparent)]
    Worker(#[from] crate::worker::WorkerError),
    /// The file store (`PROCFLOW_STORAGE_URL`) cannot be used.
    #[error("{0}")]
    Storage(String),
}

/// The running app: the API and, when configured, the delivery worker. Await it to serve until
/// the API stops (a signal, or [`Running::handle`]); the worker is then stopped gracefully
/// (attempts in flight finish or are given back) before the future resolves.
pub struct Running {
    handle: ServerHandle,
    serving: Pin<Box<dyn Future<Output = std::io::Result<()>> + Send>>,
}

impl Running {
    /// Runs `server` and, after it stops, stops `worker`.
    #[must_use]
    pub fn new(server: Server, worker: Option<RunningWorker>) -> Self {
        Self::with_sweep(server, worker, None)
    }

    /// Runs `server` and, after it stops, stops `worker` and the attachment sweep.
    #[must_use]
    pub fn with_sweep(
        server: Server,
        worker: Option<RunningWorker>,
        sweep: Option<Periodic>,
    ) -> Self {
        let handle = server.handle();
        let serving = Box::pin(async move {
            let served = server.await;
            if let Some(sweep) = sweep {
                sweep.stop().await;
            }
            if let Some(worker) = worker {
                worker.stop().await;
            }
            served
        });
        Self { handle, serving }
    }

    /// Stops the API (and then the worker) from elsewhere.
    #[must_use]
    pub fn handle(&self) -> ServerHandle {
        self.handle.clone()
    }
}

impl Future for Running {
    type Output = std::io::Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.serving.as_mut().poll(cx)
    }
}

/// Builds the store, the use cases, the API on an already bound `listener` and (unless
/// `config.worker` is `None`) the delivery worker, and returns them running: await it to
/// serve until a signal stops it (SIGTERM gracefully, SIGINT and SIGQUIT at once; the future
/// then resolves once the worker stopped too), or stop it through [`Running::handle`].
///
/// Installs the process-wide metrics recorder first (once per process: tests start several
/// apps, and all record into it).
///
/// PostgreSQL need not be up: the pool connects lazily; a warning is logged when the database
/// does not answer at start-up, and `/readyz` answers 503 until it does.
///
/// # Errors
/// When the pool cannot be built from the configuration or the listener cannot be used.
pub async fn start(config: ServeConfig, listener: TcpListener) -> Result<Running, StartError> {
    crate::telemetry::init_metrics();
    procflow_notify::install_tls();
    let store = PgStore::new(&PoolConfig {
        max_size: config.db_pool_size,
        ..PoolConfig::new(config.database_url.expose())
    })?;
    // Through a pool of its own: a connection the shared pool opened here would be driven by
    // this runtime's threads, and every request that drew it later would cross threads on each
    // round trip (docs/performance.md, "where the time goes").
    if let Err(error) = store.with_own_pool(1)?.ping().await {
        tracing::warn!(%error, "the database does not answer yet; /readyz answers 503 until it does");
    }
    let files = crate::storage::open(&config.storage_url, config.upload_cache_bytes)
        .map_err(StartError::Storage)?;
    let address = listener.local_addr()?;
    let workers = config.http.workers.unwrap_or_else(default_workers);
    let per_worker = worker_pool_size(config.db_pool_size, workers);
    let server = {
        let (store, files) = (store.clone(), files.clone());
        // One feed of key changes for the process, not one per worker: it holds its store,
        // which would keep a worker's pool alive after the worker.
        let key_changes: Arc<dyn procflow_domain::ports::KeyChanges> =
            Arc::new(store.key_changes());
        let services = move || match store.for_worker(per_worker) {
            Ok(own) => Services {
                key_changes: key_changes.clone(),
                ..services_on(&own, files.clone())
            },
            // It cannot fail where the shared pool was made from the same configuration; if it
            // did, the worker shares that pool (slower, not wrong).
            Err(error) => {
                tracing::warn!(%error, "a worker's pool cannot be made; it shares the server's");
                services_on(&store, files.clone())
            }
        };
        let http = procflow_http::HttpConfig {
            workers: Some(workers),
            ..config.http.clone()
        };
        procflow_http::serve(listener, services, http)?
    };
    let (worker, sweep) = match &config.worker {
        Some(settings) => (
            Some(spawn_worker(&store, settings)?),
            Some(crate::file_sweep::spawn(
                // Its own connection, for the same reason as the ping above.
                attachments_on(&store.with_own_pool(1)?, files),
                crate::file_sweep::INTERVAL,
            )),
        ),
        None => (None, None),
    };
    log_start(&config, address, workers);
    Ok(Running::with_sweep(server, worker, sweep))
}

/// actix-web's own default: one worker per core the process may use.
fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// Each HTTP worker's connections: the configured total shared out evenly, at least one each.
fn worker_pool_size(total: usize, workers: usize) -> usize {
    (total / workers.max(1)).max(1)
}

fn log_start(config: &ServeConfig, address: std::net::SocketAddr, workers: usize) {
    tracing::info!(
        listen = %address,
        public_url = %config.public_url,
        database = %config.database_url.redacted(),
        db.pool_size = config.db_pool_size,
        http.workers = workers,
        db.pool_per_worker = worker_pool_size(config.db_pool_size, workers),
        rate_limit_per_minute = config.http.rate_limit_per_minute,
        storage = %config.storage_url,
        upload_max_bytes = config.http.upload_max_bytes,
        "procflow is serving"
    );
    let host = config.public_url.as_str();
    if host.contains("://0.0.0.0") || host.contains("://[::]") {
        tracing::warn!(
            public_url = %config.public_url,
            "the public URL is a wildcard address: set PROCFLOW_PUBLIC_URL so share links of new teams work"
        );
    }
    if config.worker.is_none() {
        tracing::info!(
            smtp.configured = config.smtp_url.is_some(),
            "no delivery worker runs here: webhooks and emails are sent by `procflow worker`"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::worker_pool_size;

    #[test]
    fn the_pool_is_shared_out_among_the_workers_at_least_one_connection_each() {
        assert_eq!(worker_pool_size(16, 2), 8);
        assert_eq!(
            worker_pool_size(8, 3),
            2,
            "rounded down: never more than configured"
        );
        assert_eq!(worker_pool_size(4, 1), 4);
        assert_eq!(
            worker_pool_size(2, 4),
            1,
            "a worker without a connection could serve nothing"
        );
        assert_eq!(worker_pool_size(4, 0), 4);
    }
}
