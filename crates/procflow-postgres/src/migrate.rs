//! The embedded migrations and the function that applies them (`procflow migrate`).

use diesel_async::AsyncPgConnection;
use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};
use procflow_domain::error::StoreError;

/// Every migration of `migrations/`, compiled into the binary.
pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations");

pub(crate) type SyncConnection = AsyncConnectionWrapper<AsyncPgConnection>;

/// Applies the pending migrations to the database at `url`; returns the versions applied. On a
/// Citus coordinator it then distributes what the migrations created ([`crate::distribute`]).
///
/// Runs diesel's synchronous harness on a blocking thread, so it works on any tokio runtime.
///
/// # Errors
/// `Unavailable` when the database cannot be reached, `Other` when a migration fails.
pub async fn migrate(url: &str) -> Result<Vec<String>, StoreError> {
    with_connection(url, |conn| {
        let applied = conn
            .run_pending_migrations(MIGRATIONS)
            .map(|versions| versions.iter().map(ToString::to_string).collect())?;
        crate::distribute::distribute(conn)?;
        Ok(applied)
    })
    .await
}

/// Reverts every applied migration (for `migration redo` checks); returns the versions reverted.
///
/// # Errors
/// As for [`migrate`].
pub async fn revert_all(url: &str) -> Result<Vec<String>, StoreError> {
    with_connection(url, |conn| {
        conn.revert_all_migrations(MIGRATIONS)
            .map(|versions| versions.iter().map(ToString::to_string).collect())
    })
    .await
}

pub(crate) async fn with_connection<T: Send + 'static>(
    url: &str,
    work: impl FnOnce(&mut SyncConnection) -> diesel::migration::Result<T> + Send + 'static,
) -> Result<T, StoreError> {
    use diesel::Connection;

    let url = url.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut conn =
            SyncConnection::establish(&url).map_err(|e| StoreError::Unavailable(e.to_string()))?;
        work(&mut conn).map_err(|e| StoreError::Other(format!("migration failed: {e}")))
    })
    .await
    .map_err(|e| StoreError::Other(format!("migration task failed: {e}")))?
}
