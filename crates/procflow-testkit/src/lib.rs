#![doc = include_str!("../README.md")]

mod admin;
mod binaries;
mod citus;
mod database;
mod disposable;
mod error;
mod fingerprint;
mod naming;
mod ports;
mod private_server;
pub mod receiver;
mod server;
mod session;
pub mod smtp;
mod sweep;
mod template;
mod watchdog;

pub use database::TestDatabase;

/// Runs SQL statements (no rows answered) on the database at `url`, over a short-lived
/// connection: for tests that set up what no API can, such as a record left by a crashed
/// instance.
///
/// # Panics
/// When the server cannot be reached or a statement fails: test support fails loudly.
#[expect(
    clippy::panic,
    reason = "test support fails loudly rather than skipping a test"
)]
pub async fn execute_sql(url: &str, sql: &str) {
    let outcome = match admin::connect(url).await {
        Ok(client) => admin::execute(&client, sql).await,
        Err(err) => Err(err),
    };
    if let Err(err) = outcome {
        panic!("procflow-testkit: {err}");
    }
}
pub use disposable::DisposableServer;
pub use fingerprint::dir_fingerprint;
pub use server::server_url;
pub use session::Session;
