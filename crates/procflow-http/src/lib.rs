#![doc = include_str!("../README.md")]

pub mod keys;
pub mod rate_limit;

use std::net::TcpListener;
use std::sync::Arc;

use actix_web::{App, HttpServer, web};
use procflow_domain::ports::{HealthCheck, RateLimiter};
use procflow_domain::service::Procflow;

/// How the API behaves; read once at start-up.
#[derive(Clone, Debug)]
pub struct HttpConfig {
    /// Requests accepted per API key in any rolling 60 seconds.
    pub rate_limit_per_minute: u32,
    /// The largest request body accepted, in bytes.
    pub body_limit_bytes: usize,
    /// Worker threads; `None` lets actix pick (one per core).
    pub workers: Option<usize>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            rate_limit_per_minute: 100,
            body_limit_bytes: 1024 * 1024,
            workers: None,
        }
    }
}

/// The adapters the API runs on.
#[derive(Clone)]
pub struct Services {
    /// The use cases.
    pub procflow: Procflow,
    /// Per-key request counting.
    pub rate_limiter: Arc<dyn RateLimiter>,
    /// Whether the store answers, for `/readyz`.
    pub health: Arc<dyn HealthCheck>,
}

/// Builds the API on an already bound listener and returns the running server (await it to
/// serve until it stops; it stops gracefully on SIGTERM and SIGINT).
///
/// # Errors
/// When the listener cannot be used.
pub fn serve(
    listener: TcpListener,
    services: Services,
    config: HttpConfig,
) -> std::io::Result<actix_web::dev::Server> {
    let workers = config.workers;
    let server = HttpServer::new(move || {
        App::new()
            .app_data(web::Data::new(services.clone()))
            .app_data(web::Data::new(config.clone()))
    })
    .listen(listener)?;
    let server = match workers {
        Some(workers) => server.workers(workers),
        None => server,
    };
    Ok(server.run())
}
