//! Template databases: created and migrated once per server and key, then cloned per test.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use tokio::sync::OnceCell;
use tokio_postgres::Client;

use crate::admin;
use crate::error::{BoxError, Error};
use crate::naming::{quote_ident, template_lock_id, template_name};
use crate::server::Server;

/// The first PostgreSQL version with `CREATE DATABASE ... STRATEGY`.
const STRATEGY_SINCE: i32 = 150_000;

/// A migrated template database, ready to clone.
#[derive(Debug, Clone)]
pub(crate) struct Template {
    pub(crate) name: String,
    /// Whether the server understands `STRATEGY file_copy` (PostgreSQL 15 and later).
    pub(crate) file_copy: bool,
}

/// This process's templates by key; a failure is kept so every test sees it, not a retry.
type Cell = Arc<OnceCell<Result<Template, String>>>;
static TEMPLATES: LazyLock<Mutex<HashMap<String, Cell>>> = LazyLock::new(Mutex::default);

/// The template for `key`, made with `migrate` if neither this process nor another one sharing
/// the server has made it yet.
pub(crate) async fn ensure<F>(server: &Server, key: &str, migrate: F) -> Result<Template, String>
where
    F: AsyncFnOnce(&str) -> Result<(), BoxError>,
{
    let cell = TEMPLATES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(key.to_owned())
        .or_default()
        .clone();
    cell.get_or_init(|| async move {
        create(server, key, migrate)
            .await
            .map_err(|err| err.to_string())
    })
    .await
    .clone()
}

/// Creates and migrates the template under a server-wide advisory lock, unless a complete one
/// exists. Complete means marked `IS_TEMPLATE` and closed to connections, which happens only
/// after a successful migration; an incomplete one (a crashed earlier run) is replaced.
async fn create<F>(server: &Server, key: &str, migrate: F) -> Result<Template, Error>
where
    F: AsyncFnOnce(&str) -> Result<(), BoxError>,
{
    let name = template_name(key);
    let admin = admin::connect(server.admin_url()).await?;
    let file_copy = admin::server_version(&admin).await? >= STRATEGY_SINCE;
    let lock = template_lock_id(&name);
    // Another process migrating the same template makes us wait, but not forever.
    admin::execute(&admin, "SET lock_timeout = '300s'").await?;
    admin
        .execute("SELECT pg_advisory_lock($1)", &[&lock])
        .await
        .map_err(Error::sql(format!("locking the creation of {name}")))?;
    let created = create_locked(server, &admin, &name, migrate).await;
    // Closing the connection would release the lock too; unlock to be prompt about it.
    let _ = admin
        .execute("SELECT pg_advisory_unlock($1)", &[&lock])
        .await;
    created?;
    Ok(Template { name, file_copy })
}

async fn create_locked<F>(
    server: &Server,
    admin: &Client,
    name: &str,
    migrate: F,
) -> Result<(), Error>
where
    F: AsyncFnOnce(&str) -> Result<(), BoxError>,
{
    let quoted = quote_ident(name);
    let existing = admin
        .query_opt(
            "SELECT datistemplate AND NOT datallowconn FROM pg_database WHERE datname = $1",
            &[&name],
        )
        .await
        .map_err(Error::sql(format!("looking for {name}")))?;
    match existing {
        Some(row) if row.try_get(0).unwrap_or(false) => {
            tracing::debug!(template = name, "the template database exists already");
            return Ok(());
        }
        Some(_) => {
            tracing::info!(template = name, "replacing an incomplete template database");
            admin::execute(admin, &format!("ALTER DATABASE {quoted} IS_TEMPLATE false")).await?;
            admin::execute(admin, &format!("DROP DATABASE {quoted} WITH (FORCE)")).await?;
        }
        None => {}
    }
    let started = std::time::Instant::now();
    admin::execute(admin, &format!("CREATE DATABASE {quoted}")).await?;
    let url = server.url_of(name);
    if let Err(source) = migrate(&url).await {
        // Best effort: a later attempt replaces an incomplete template anyway.
        let drop = format!("DROP DATABASE {quoted} WITH (FORCE)");
        let _ = admin::execute(admin, &drop).await;
        return Err(Error::Migrate {
            template: name.to_owned(),
            source,
        });
    }
    // Clones fail while anyone is connected to the template: close it to connections, then
    // end the sessions the migration may have left behind.
    admin::execute(
        admin,
        &format!("ALTER DATABASE {quoted} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"),
    )
    .await?;
    admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = $1 AND pid <> pg_backend_pid()",
            &[&name],
        )
        .await
        .map_err(Error::sql(format!("closing leftover sessions on {name}")))?;
    tracing::info!(
        template = name,
        duration_ms = started.elapsed().as_millis(),
        "created and migrated a template database"
    );
    Ok(())
}
