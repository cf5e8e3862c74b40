#![doc = include_str!("../README.md")]

pub mod admission;
pub mod auth;
pub mod bodies;
pub mod conditional;
pub mod error;
mod guest;
pub mod idempotency;
pub mod keys;
#[doc(hidden)]
pub mod measure;
pub mod media_type;
pub mod metrics;
pub mod middleware;
pub mod openapi;
pub mod params;
pub mod rate_limit;
pub mod request_id;
pub mod routes;
pub mod transport;
pub mod upload;
pub mod validate_only;
pub mod views;

use std::net::TcpListener;
use std::sync::Arc;

use std::time::Duration;

use actix_http::error::DispatchError;
use actix_http::{HttpService, KeepAlive};
use actix_service::{IntoServiceFactory, ServiceFactoryExt, fn_service, map_config};
use actix_web::dev::{AppConfig, Extensions};
use actix_web::rt::net::TcpStream;
use actix_web::{App, web};
use futures_util::future::ready;

use crate::transport::Guarded;
use procflow_domain::ports::{
    Clock, HealthCheck, IdempotencyStore, KeyChanges, RateLimiter, StoreStats, WindowLimiter,
};
use procflow_domain::service::{Attachments, Comments, Procflow, RunLinks, Schedules, Webhooks};

use crate::rate_limit::RateLimitGate;

/// How the API behaves; read once at start-up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpConfig {
    /// Requests accepted per API key in any rolling 60 seconds.
    pub rate_limit_per_minute: u32,
    /// The largest request body accepted, in bytes.
    pub body_limit_bytes: usize,
    /// Worker threads; `None` lets actix pick (one per core).
    pub workers: Option<usize>,
    /// Guest posts accepted per shared run in any rolling 60 seconds (API contract 7.1).
    pub guest_posts_per_minute_per_run: u32,
    /// Guest posts accepted per client address (IPv6: per /64) in any rolling 60 seconds.
    pub guest_posts_per_minute_per_address: u32,
    /// Runs started from one run link in any rolling hour (API contract 13.2).
    pub run_link_starts_per_hour_per_link: u32,
    /// Runs started from run links per client address (IPv6: per /64) in any rolling minute.
    pub run_link_starts_per_minute_per_address: u32,
    /// How long a request head may take to arrive, from the connection's start (or a later
    /// request's first byte).
    pub head_timeout: Duration,
    /// How long a request body may take to arrive, from the end of its head.
    pub body_timeout: Duration,
    /// How long a response may wait for the client to take it.
    pub write_timeout: Duration,
    /// The largest attachment accepted, in bytes (API contract 14.2).
    pub upload_max_bytes: u64,
}

impl HttpConfig {
    /// Requests accepted per key per rolling minute unless configured (spec 8).
    pub const DEFAULT_RATE_LIMIT_PER_MINUTE: u32 = 100;
    /// The largest request body unless configured: 1 MiB (API contract 1).
    pub const DEFAULT_BODY_LIMIT_BYTES: usize = 1024 * 1024;
    /// Guest posts per run per rolling minute unless configured (API contract 7.1).
    pub const DEFAULT_GUEST_POSTS_PER_MINUTE_PER_RUN: u32 = 60;
    /// Guest posts per client address per rolling minute unless configured: room for a few
    /// guests behind one address, none for a script trying links.
    pub const DEFAULT_GUEST_POSTS_PER_MINUTE_PER_ADDRESS: u32 = 120;
    /// Starts per run link per rolling hour unless configured (API contract 13.2).
    pub const DEFAULT_RUN_LINK_STARTS_PER_HOUR_PER_LINK: u32 = 100;
    /// Starts per client address per rolling minute unless configured (API contract 13.2).
    pub const DEFAULT_RUN_LINK_STARTS_PER_MINUTE_PER_ADDRESS: u32 = 10;
    /// A head's time unless configured: actix's own default, the one that cut a slowloris
    /// client at 5 s.
    pub const DEFAULT_HEAD_TIMEOUT: Duration = Duration::from_secs(5);
    /// A body's time unless configured: 1 MiB at 300 kbit/s, and 30 bytes for a client that
    /// sends one a second.
    pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
    /// A response's time unless configured.
    pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(30);
    /// The largest attachment unless configured: 25 MiB (API contract 14.2).
    pub const DEFAULT_UPLOAD_MAX_BYTES: u64 = 25 * 1024 * 1024;
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            rate_limit_per_minute: Self::DEFAULT_RATE_LIMIT_PER_MINUTE,
            body_limit_bytes: Self::DEFAULT_BODY_LIMIT_BYTES,
            workers: None,
            guest_posts_per_minute_per_run: Self::DEFAULT_GUEST_POSTS_PER_MINUTE_PER_RUN,
            guest_posts_per_minute_per_address: Self::DEFAULT_GUEST_POSTS_PER_MINUTE_PER_ADDRESS,
            run_link_starts_per_hour_per_link: Self::DEFAULT_RUN_LINK_STARTS_PER_HOUR_PER_LINK,
            run_link_starts_per_minute_per_address:
                Self::DEFAULT_RUN_LINK_STARTS_PER_MINUTE_PER_ADDRESS,
            head_timeout: Self::DEFAULT_HEAD_TIMEOUT,
            body_timeout: Self::DEFAULT_BODY_TIMEOUT,
            write_timeout: Self::DEFAULT_WRITE_TIMEOUT,
            upload_max_bytes: Self::DEFAULT_UPLOAD_MAX_BYTES,
        }
    }
}

/// The adapters the API runs on.
#[derive(Clone)]
pub struct Services {
    /// The use cases.
    pub procflow: Procflow,
    /// The webhook use cases.
    pub webhooks: Webhooks,
    /// The schedule use cases (API contract 13.1).
    pub schedules: Schedules,
    /// The comment use cases.
    pub comments: Comments,
    /// The attachment use cases (API contract 14.2).
    pub attachments: Attachments,
    /// The run link use cases (API contract 13.2).
    pub run_links: RunLinks,
    /// Per-key request counting.
    pub rate_limiter: Arc<dyn RateLimiter>,
    /// The guest page's post limits, per run and per client address.
    pub windows: Arc<dyn WindowLimiter>,
    /// Whether the store answers, for `/readyz`.
    pub health: Arc<dyn HealthCheck>,
    /// The pool and outbox figures, for `/metrics`.
    pub stats: Arc<dyn StoreStats>,
    /// `Idempotency-Key` records (API contract 10).
    pub idempotency: Arc<dyn IdempotencyStore>,
    /// Keys revoked and teams changed, by any instance: what the rate-limit gate remembers
    /// about them is dropped as they commit.
    pub key_changes: Arc<dyn KeyChanges>,
    /// The time, for the rate limit's window and idempotency records: the use cases' clock.
    pub clock: Arc<dyn Clock>,
}

/// What every handler of a worker sees: the worker's own use cases, and what the workers share
/// (the rate-limit gates, the configuration).
pub struct AppState {
    /// The adapters, this worker's own (see [`serve`]).
    pub services: Services,
    /// The per-key rate limit.
    pub gate: Arc<RateLimitGate>,
    /// What this instance knows about the guest post limits' names (per run, per address).
    pub guest_gate: Arc<admission::LocalGate<String>>,
    /// The same for the run-link start limits (API contract 13.2; per link over an hour, per
    /// address over a minute), apart from the guest posts' names: a sweep of a gate rolls its
    /// names over the window of the request that set it off, which for an hour's counts can
    /// only forget some (the gate then refuses less; the store still decides).
    pub run_link_gate: Arc<admission::LocalGate<String>>,
    /// The configuration.
    pub config: HttpConfig,
    /// When this instance next sweeps expired `Idempotency-Key` records.
    pub key_sweep: Arc<idempotency::KeySweep>,
    /// The task that drops the gate's memory of revoked keys; it stops with the server.
    pub key_follower: Arc<rate_limit::KeyChangeFollower>,
}

impl AppState {
    /// The use cases.
    #[must_use]
    pub fn procflow(&self) -> &Procflow {
        &self.services.procflow
    }

    /// The webhook use cases.
    #[must_use]
    pub fn webhooks(&self) -> &Webhooks {
        &self.services.webhooks
    }

    /// The schedule use cases.
    #[must_use]
    pub fn schedules(&self) -> &Schedules {
        &self.services.schedules
    }

    /// The comment use cases.
    #[must_use]
    pub fn comments(&self) -> &Comments {
        &self.services.comments
    }

    /// The attachment use cases.
    #[must_use]
    pub fn attachments(&self) -> &Attachments {
        &self.services.attachments
    }

    /// The run link use cases.
    #[must_use]
    pub fn run_links(&self) -> &RunLinks {
        &self.services.run_links
    }
}

/// Builds the API on an already bound listener and returns the running server (await it to
/// serve until it stops; it stops gracefully on SIGTERM and SIGINT).
///
/// `services` makes the adapters of one HTTP worker, and is called once on each worker's own
/// thread as it starts (and once here, for the clock and the key-change feed the workers
/// share): a worker whose store has a pool of its own opens its connections on its thread,
/// and their round trips never wake another thread (docs/performance.md, "Workers with
/// pools of their own"). What must be shared, the rate-limit gates' memory and the
/// idempotency sweep's turn, is made once here.
///
/// # Errors
/// When the listener cannot be used.
pub fn serve(
    listener: TcpListener,
    services: impl Fn() -> Services + Send + Sync + 'static,
    config: HttpConfig,
) -> std::io::Result<actix_web::dev::Server> {
    let workers = config.workers;
    let shared = services();
    let gate = Arc::new(RateLimitGate::new(
        shared.clock.clone(),
        config.rate_limit_per_minute,
    ));
    let key_follower = Arc::new(rate_limit::KeyChangeFollower::spawn(
        &gate,
        shared.key_changes.clone(),
    ));
    drop(shared);
    let services = Arc::new(services);
    let guest_gate = Arc::new(admission::LocalGate::default());
    let run_link_gate = Arc::new(admission::LocalGate::default());
    let key_sweep = Arc::new(idempotency::KeySweep::new());
    let limits = Arc::new(transport::Limits {
        head_timeout: config.head_timeout,
        body_timeout: config.body_timeout,
        write_timeout: config.write_timeout,
    });
    let state = move || {
        web::Data::new(AppState {
            services: (*services)(),
            gate: gate.clone(),
            guest_gate: guest_gate.clone(),
            run_link_gate: run_link_gate.clone(),
            config: config.clone(),
            key_sweep: key_sweep.clone(),
            key_follower: key_follower.clone(),
        })
    };
    let app = move |state: web::Data<AppState>| {
        let body_limit = state.config.body_limit_bytes;
        App::new()
            .app_data(state.clone())
            .app_data(bodies::json_config(body_limit))
            .app_data(params::query_config())
            .app_data(web::PayloadConfig::new(body_limit))
            .wrap(actix_web::middleware::from_fn(middleware::around))
            .configure(routes::configure)
            .route(transport::REFUSAL_PATH, web::get().to(transport::answer))
            .default_service(web::to(error::no_route))
    };
    // actix-web's `HttpServer`, but over the transport guard's stream: the same HTTP/1
    // service and server, with the head's time limit the guard's instead of actix's.
    let builder = actix_web::dev::Server::build();
    let shutdown = builder.graceful_shutdown_signal();
    let builder = builder.listen("procflow", listener, move || {
        let limits = limits.clone();
        let shutdown = shutdown.clone();
        let http = HttpService::build()
            .keep_alive(KeepAlive::default())
            .client_request_timeout(Duration::ZERO)
            .client_disconnect_timeout(Duration::from_secs(1))
            .h1_allow_half_closed(true)
            .graceful_shutdown_signal(move || {
                let shutdown = shutdown.clone();
                async move { shutdown.notified().await }
            })
            .on_connect_ext(|io: &Guarded<TcpStream>, extensions: &mut Extensions| {
                extensions.insert(io.connection());
            })
            .h1(map_config(
                app(state())
                    .into_factory()
                    .map_err(|error: actix_web::Error| error.error_response()),
                |()| AppConfig::default(),
            ));
        fn_service(move |stream: TcpStream| {
            let peer = stream.peer_addr().ok();
            // Small answers go out at once, as actix's own server sets it.
            let _ = stream.set_nodelay(true);
            ready(Ok::<_, DispatchError>((
                Guarded::new(stream, limits.clone()),
                peer,
            )))
        })
        .and_then(http)
    })?;
    let builder = match workers {
        Some(workers) => builder.workers(workers),
        None => builder,
    };
    Ok(builder.run())
}
