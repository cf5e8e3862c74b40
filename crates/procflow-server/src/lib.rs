#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod admin;
pub mod app;
pub mod cli;
pub mod config;
pub mod error;
pub mod file_sweep;
pub mod periodic;
pub mod scheduler;
pub mod setting;
pub mod storage;
pub mod system;
pub mod telemetry;
pub mod use_cases;
pub mod worker;

/// The running server and its handle, so that callers (the black-box tests) need not name actix.
pub use actix_web::dev::{Server, ServerHandle};
pub use admin::Admin;
pub use app::{Running, StartError, start};
pub use cli::Cli;
pub use config::ServeConfig;
pub use error::{CommandCode, CommandError};
pub use use_cases::{procflow_on, services_on, webhooks_on};

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;

use procflow_postgres::{PgStore, PoolConfig};
use serde_json::{Value, json};

use crate::cli::{Command, ServeArgs};
use crate::config::DatabaseUrl;

/// Connections the admin commands and `migrate` use at most.
const ADMIN_POOL_SIZE: usize = 2;

/// Runs a parsed command line to its end: what `main` does. Admin commands and `migrate`
/// print one JSON object on stdout (an error envelope when they fail); logs go to stderr.
///
/// Exit status: 0 on success, 1 when the command failed, 2 when the configuration is
/// unusable (a bad log filter, no `DATABASE_URL`).
#[must_use]
pub fn run(cli: Cli) -> ExitCode {
    if let Err(error) = telemetry::init(cli.global.log_format, &cli.global.log_filter) {
        let _ = writeln!(std::io::stderr(), "procflow: {error}");
        return ExitCode::from(2);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::error!(%error, "cannot start the async runtime");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(dispatch(cli))
}

async fn dispatch(cli: Cli) -> ExitCode {
    let database_url = cli.global.database_url;
    match cli.command {
        Command::Serve(args) => match database_url {
            Some(url) => serve(url, args).await,
            None => {
                tracing::error!("DATABASE_URL (or --database-url) is required by procflow serve");
                ExitCode::from(2)
            }
        },
        Command::Worker(args) => match database_url {
            Some(url) => worker(url, args).await,
            None => {
                tracing::error!("DATABASE_URL (or --database-url) is required by procflow worker");
                ExitCode::from(2)
            }
        },
        Command::Migrate => match database_url {
            Some(url) => print(migrate(&url).await),
            None => missing_database_url(),
        },
        Command::Admin(args) => match database_url {
            Some(url) => match admin_on(&url) {
                Ok(admin) => print(admin.run(args.command).await),
                Err(error) => print(Err(error)),
            },
            None => missing_database_url(),
        },
        Command::Mcp => mcp().await,
    }
}

/// `procflow mcp`: MCP on stdio until the client closes it; needs no database.
async fn mcp() -> ExitCode {
    procflow_notify::install_tls();
    let config = match procflow_mcp::Config::from_env() {
        Ok(config) => config,
        Err(error) => {
            tracing::error!(%error, "cannot start procflow mcp");
            return ExitCode::from(2);
        }
    };
    match procflow_mcp::serve_stdio(config).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(%error, "procflow mcp stopped");
            ExitCode::FAILURE
        }
    }
}

/// `procflow serve`: binds, starts, serves until SIGTERM or Ctrl-C, then exits 0.
async fn serve(database_url: DatabaseUrl, args: ServeArgs) -> ExitCode {
    let bind = args.address.bind;
    let listener = match std::net::TcpListener::bind(bind) {
        Ok(listener) => listener,
        Err(error) => {
            tracing::error!(%bind, %error, "cannot listen on PROCFLOW_BIND");
            return ExitCode::FAILURE;
        }
    };
    let server = match start(args.into_config(database_url), listener).await {
        Ok(server) => server,
        Err(error) => {
            tracing::error!(%error, "cannot start the server");
            return ExitCode::FAILURE;
        }
    };
    match server.await {
        Ok(()) => {
            tracing::info!("procflow stopped");
            ExitCode::SUCCESS
        }
        Err(error) => {
            tracing::error!(%error, "the server failed");
            ExitCode::FAILURE
        }
    }
}

/// `procflow worker`: delivers webhooks (and sweeps attachment bytes no row names) until
/// SIGTERM or Ctrl-C, serving `/metrics` and `/healthz` on its bind address; then finishes or
/// gives back what it holds and exits 0.
async fn worker(database_url: DatabaseUrl, args: cli::WorkerCommand) -> ExitCode {
    telemetry::init_metrics();
    procflow_notify::install_tls();
    let listener = match std::net::TcpListener::bind(args.bind) {
        Ok(listener) => listener,
        Err(error) => {
            tracing::error!(bind = %args.bind, %error, "cannot listen on PROCFLOW_BIND");
            return ExitCode::FAILURE;
        }
    };
    let store = match PgStore::new(&PoolConfig {
        max_size: usize::from(args.db_pool_size),
        ..PoolConfig::new(database_url.expose())
    }) {
        Ok(store) => store,
        Err(error) => {
            tracing::error!(%error, "cannot set up the database pool");
            return ExitCode::FAILURE;
        }
    };
    let storage_url = args.storage_url();
    // The worker only sweeps the storage: it writes no upload whose pages it could keep.
    let files = match storage::open(&storage_url, procflow_files::DEFAULT_UPLOAD_CACHE_BYTES) {
        Ok(files) => files,
        Err(error) => {
            tracing::error!(%error, "cannot start the worker");
            return ExitCode::FAILURE;
        }
    };
    let running = worker::operator_server(listener, store.clone()).and_then(|server| {
        let delivering = worker::spawn_worker(&store, &args.delivery.settings())
            .map_err(std::io::Error::other)?;
        let sweep = file_sweep::spawn(
            use_cases::attachments_on(&store, files),
            file_sweep::INTERVAL,
        );
        Ok(app::Running::with_sweep(
            server,
            Some(delivering),
            Some(sweep),
        ))
    });
    match running {
        Ok(running) => {
            tracing::info!(
                metrics = %worker::describe(args.bind),
                storage = %storage_url,
                "procflow worker is running"
            );
            match running.await {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    tracing::error!(%error, "the worker failed");
                    ExitCode::FAILURE
                }
            }
        }
        Err(error) => {
            tracing::error!(%error, "cannot start the worker");
            ExitCode::FAILURE
        }
    }
}

/// `procflow migrate`: applies the pending migrations; `{"applied": [versions]}`.
///
/// # Errors
/// `unavailable` when the database cannot be reached, `internal_error` when a migration fails.
pub async fn migrate(database_url: &DatabaseUrl) -> Result<Value, CommandError> {
    let applied = procflow_postgres::migrate(database_url.expose()).await?;
    tracing::info!(count = applied.len(), "applied migrations");
    Ok(json!({ "applied": applied }))
}

/// The admin commands on the database at `database_url`, over a small pool.
///
/// # Errors
/// `internal_error` when the pool cannot be built.
pub fn admin_on(database_url: &DatabaseUrl) -> Result<Admin, CommandError> {
    let store = PgStore::new(&PoolConfig {
        max_size: ADMIN_POOL_SIZE,
        ..PoolConfig::new(database_url.expose())
    })?;
    Ok(Admin::new(procflow_on(&store), Arc::new(store)))
}

fn missing_database_url() -> ExitCode {
    let _ = print(Err(CommandError::new(
        CommandCode::Configuration,
        "DATABASE_URL (or --database-url) is required",
    )));
    ExitCode::from(2)
}

/// Prints the command's one JSON object on stdout; exit status 1 for an error.
fn print(result: Result<Value, CommandError>) -> ExitCode {
    let (value, status) = match result {
        Ok(value) => (value, ExitCode::SUCCESS),
        Err(error) => (error.to_json(), ExitCode::FAILURE),
    };
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{value}").and_then(|()| stdout.flush()) {
        Ok(()) => status,
        Err(_) => ExitCode::FAILURE,
    }
}
