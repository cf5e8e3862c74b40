//! Wiring: the PostgreSQL store, the use cases and the HTTP API, as `procflow serve` runs
//! them. Tests start the real app with [`start`] on port 0.

use std::net::TcpListener;
use std::sync::Arc;

use actix_web::dev::Server;
use procflow_domain::error::StoreError;
use procflow_domain::service::{Ports, Procflow};
use procflow_http::Services;
use procflow_postgres::{PgStore, PoolConfig};

use crate::config::ServeConfig;
use crate::system::{RandomIds, SystemClock};

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The connection pool could not be built from the configuration.
    #[error("cannot set up the database pool: {0}")]
    Store(#[from] StoreError),
    /// The listener could not be used.
    #[error("cannot serve on the listener: {0}")]
    Listen(#[from] std::io::Error),
}

/// The use cases over `store`, with the system clock and random ids.
#[must_use]
pub fn procflow_on(store: &PgStore) -> Procflow {
    let shared = Arc::new(store.clone());
    Procflow::new(Ports {
        templates: shared.clone(),
        runs: shared.clone(),
        teams: shared,
        clock: Arc::new(SystemClock),
        ids: Arc::new(RandomIds),
    })
}

/// What the API runs on, all over one store: the rate limit is counted in PostgreSQL, so it
/// holds across instances sharing the database.
#[must_use]
pub fn services_on(store: &PgStore) -> Services {
    let shared = Arc::new(store.clone());
    Services {
        procflow: procflow_on(store),
        rate_limiter: shared.clone(),
        windows: shared.clone(),
        health: shared.clone(),
        stats: shared.clone(),
        idempotency: shared,
        clock: Arc::new(SystemClock),
    }
}

/// Builds the store, the use cases and the API on an already bound `listener`, and returns the
/// running server: await it to serve until a signal stops it (SIGTERM gracefully, SIGINT and
/// SIGQUIT at once; the future then resolves), or stop it through [`Server::handle`].
///
/// Installs the process-wide metrics recorder first (once per process: tests start several
/// apps, and all record into it).
///
/// PostgreSQL need not be up: the pool connects lazily; a warning is logged when the database
/// does not answer at start-up, and `/readyz` answers 503 until it does.
///
/// # Errors
/// When the pool cannot be built from the configuration or the listener cannot be used.
pub async fn start(config: ServeConfig, listener: TcpListener) -> Result<Server, StartError> {
    crate::telemetry::init_metrics();
    let store = PgStore::new(&PoolConfig {
        max_size: config.db_pool_size,
        ..PoolConfig::new(config.database_url.expose())
    })?;
    if let Err(error) = store.ping().await {
        tracing::warn!(%error, "the database does not answer yet; /readyz answers 503 until it does");
    }
    let address = listener.local_addr()?;
    let server = procflow_http::serve(listener, services_on(&store), config.http.clone())?;
    log_start(&config, address);
    Ok(server)
}

fn log_start(config: &ServeConfig, address: std::net::SocketAddr) {
    tracing::info!(
        listen = %address,
        public_url = %config.public_url,
        database = %config.database_url.redacted(),
        db.pool_size = config.db_pool_size,
        rate_limit_per_minute = config.http.rate_limit_per_minute,
        "procflow is serving"
    );
    let host = config.public_url.as_str();
    if host.contains("://0.0.0.0") || host.contains("://[::]") {
        tracing::warn!(
            public_url = %config.public_url,
            "the public URL is a wildcard address: set PROCFLOW_PUBLIC_URL so share links of new teams work"
        );
    }
    tracing::info!(
        smtp.configured = config.smtp_url.is_some(),
        webhook.allow_private = config.webhook_allow_private,
        "the notifier is not built yet: emails and webhooks are recorded in the outbox and stay there"
    );
}
