//! Dropping test databases that crashed earlier runs left on a shared (`DATABASE_URL`) server.
//!
//! A test database's name carries its process's pid. A database is a leftover when that
//! process is gone and nobody is connected to it. This assumes the processes sharing the server
//! run on this machine (one pid namespace); where they do not, set
//! `PROCFLOW_TESTKIT_SWEEP=0`. Without `/proc` (not Linux) nothing is swept.

use std::path::Path;

use tokio::sync::OnceCell;

use crate::admin;
use crate::error::Error;
use crate::naming::{TEST_DB_PREFIX, pid_of_test_db, quote_ident};
use crate::server::Server;

/// Set to `0` to turn the sweep off.
const SWEEP_ENV: &str = "PROCFLOW_TESTKIT_SWEEP";

/// Sweeps the server once per process; failures are logged, never fatal.
pub(crate) async fn once(server: &Server) {
    static SWEPT: OnceCell<()> = OnceCell::const_new();
    SWEPT
        .get_or_init(|| async {
            if let Err(err) = sweep(server).await {
                tracing::warn!(error = %err, "could not sweep leftover test databases");
            }
        })
        .await;
}

async fn sweep(server: &Server) -> Result<(), Error> {
    if std::env::var(SWEEP_ENV).is_ok_and(|value| value == "0") || !Path::new("/proc/self").exists()
    {
        return Ok(());
    }
    let admin = admin::connect(server.admin_url()).await?;
    let rows = admin
        .query(
            "SELECT datname FROM pg_database d WHERE starts_with(datname, $1) \
             AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname)",
            &[&TEST_DB_PREFIX],
        )
        .await
        .map_err(Error::sql("listing test databases"))?;
    let me = std::process::id();
    for row in rows {
        let name: String = row
            .try_get(0)
            .map_err(Error::sql("reading a database name"))?;
        let Some(pid) = pid_of_test_db(&name) else {
            continue;
        };
        if pid == me || Path::new("/proc").join(pid.to_string()).exists() {
            continue;
        }
        // No FORCE: a database someone connected to meanwhile is not a leftover.
        match admin::execute(
            &admin,
            &format!("DROP DATABASE IF EXISTS {}", quote_ident(&name)),
        )
        .await
        {
            Ok(()) => tracing::info!(database = name, "dropped a leftover test database"),
            Err(err) => tracing::debug!(database = name, error = %err, "kept a test database"),
        }
    }
    Ok(())
}
