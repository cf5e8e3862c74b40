//! `TestDatabase`: a fresh database cloned from a migrated template, dropped with the value.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use tokio_postgres::error::SqlState;

use crate::admin::{self, redact};
use crate::citus;
use crate::error::{BoxError, Error};
use crate::naming::{next_test_db_name, quote_ident};
use crate::server::{Server, server};
use crate::sweep;
use crate::template::{self, Template};

/// How many times to try a clone that fails because the template is busy.
const CLONE_ATTEMPTS: u32 = 40;

/// How long `Drop` waits for the database to be dropped.
const DROP_TIMEOUT: Duration = Duration::from_secs(30);

/// A fresh, migrated database for one test; dropped (`DROP DATABASE ... WITH (FORCE)`) when
/// this value is dropped.
pub struct TestDatabase {
    name: String,
    url: String,
    home: Home,
}

/// Where a test database lives, so that it is dropped there.
enum Home {
    /// A database of the test server.
    Server(&'static Server),
    /// A schema of the Citus coordinator at this URL (`CITUS_URL`).
    Citus(String),
}

impl TestDatabase {
    /// Clones a new database from a template database that `migrate(url_of_template_db)`
    /// migrated once per server and `template_key`.
    ///
    /// The first call for a key on a server creates the template and runs `migrate` on it,
    /// under a server-wide advisory lock so that processes sharing the server do it once.
    /// `migrate` must close its connections before it returns (any left are terminated).
    /// Later calls, in this process or another one on the same server, only clone: about a
    /// tenth of a second. On a server shared across runs (`DATABASE_URL`) the template stays
    /// between runs, so `template_key` must change when the migrations change: see
    /// [`dir_fingerprint`](crate::dir_fingerprint).
    ///
    /// On a Citus coordinator (`CITUS_URL`) each test gets a schema of its own, and `migrate`
    /// runs again on a fresh one when it lost a race with another test's DDL (a deadlock, a
    /// catalog entry dropped meanwhile).
    ///
    /// Call it inside a tokio runtime; the returned future is `Send` when `migrate`'s is.
    ///
    /// # Panics
    /// When no server can be had (see [`server_url`](crate::server_url)), `migrate` fails
    /// (every later call for the key panics with the same error), or the clone fails.
    #[expect(
        clippy::panic,
        reason = "a test kit fails loudly rather than skipping tests"
    )]
    pub async fn create<F>(template_key: &str, migrate: F) -> TestDatabase
    where
        F: AsyncFn(&str) -> Result<(), Box<dyn std::error::Error + Send + Sync>>,
    {
        match Self::try_create(template_key, migrate).await {
            Ok(database) => database,
            Err(err) => panic!("procflow-testkit: {err}"),
        }
    }

    async fn try_create<F>(template_key: &str, migrate: F) -> Result<Self, String>
    where
        F: AsyncFn(&str) -> Result<(), BoxError>,
    {
        if let Some(coordinator) = citus::coordinator() {
            let (name, url) = citus::create(&coordinator, migrate).await?;
            return Ok(Self {
                name,
                url,
                home: Home::Citus(coordinator),
            });
        }
        let server = server().await?;
        if server.is_shared() {
            sweep::once(server).await;
        }
        let template = template::ensure(server, template_key, migrate).await?;
        clone(server, &template)
            .await
            .map_err(|err| err.to_string())
    }

    /// The `postgres://...` URL of this test's database.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The database name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl std::fmt::Debug for TestDatabase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestDatabase")
            .field("name", &self.name)
            .field("url", &redact(&self.url))
            .finish()
    }
}

/// `CREATE DATABASE <new> TEMPLATE <template>`, retrying while the template is busy.
async fn clone(server: &'static Server, template: &Template) -> Result<TestDatabase, Error> {
    let admin = admin::connect(server.admin_url()).await?;
    let started = Instant::now();
    let strategy = if template.file_copy {
        " STRATEGY file_copy"
    } else {
        ""
    };
    let mut attempt = 0;
    loop {
        let name = next_test_db_name();
        let sql = format!(
            "CREATE DATABASE {} TEMPLATE {}{strategy}",
            quote_ident(&name),
            quote_ident(&template.name)
        );
        let err = match admin.batch_execute(&sql).await {
            Ok(()) => {
                tracing::debug!(
                    database = name,
                    template = template.name,
                    duration_ms = started.elapsed().as_millis(),
                    "cloned a test database"
                );
                return Ok(TestDatabase {
                    url: server.url_of(&name),
                    name,
                    home: Home::Server(server),
                });
            }
            Err(err) => err,
        };
        attempt += 1;
        let retry = match err.code() {
            // A leftover of an earlier process that had our pid: take the next name.
            Some(code) if *code == SqlState::DUPLICATE_DATABASE => Duration::ZERO,
            // "source database is being accessed by other users": wait a little.
            Some(code) if *code == SqlState::OBJECT_IN_USE => {
                Duration::from_millis(u64::from(attempt.min(10)) * 25)
            }
            _ => return Err(Error::sql(format!("running `{sql}`"))(err)),
        };
        if attempt >= CLONE_ATTEMPTS {
            return Err(Error::sql(format!("running `{sql}` {attempt} times"))(err));
        }
        tracing::debug!(attempt, error = %err, "retrying a clone");
        tokio::time::sleep(retry).await;
    }
}

impl Drop for TestDatabase {
    /// Drops the database on a thread of its own (a destructor cannot await, and may run
    /// inside or outside a runtime), waiting at most 30 seconds.
    fn drop(&mut self) {
        let home = match &self.home {
            Home::Server(server) => Home::Server(server),
            Home::Citus(url) => Home::Citus(url.clone()),
        };
        let name = std::mem::take(&mut self.name);
        let (done, finished) = mpsc::channel();
        let thread_name = name.clone();
        let spawned = std::thread::Builder::new()
            .name("procflow-testkit-drop".to_owned())
            .spawn(move || {
                let _ = done.send(drop_database(&home, &thread_name));
            });
        let outcome = match spawned {
            Ok(_) => finished
                .recv_timeout(DROP_TIMEOUT)
                .unwrap_or_else(|_| Err(format!("no answer within {DROP_TIMEOUT:?}"))),
            Err(err) => Err(format!("starting a thread: {err}")),
        };
        if let Err(err) = outcome {
            tracing::warn!(database = name, error = %err, "could not drop a test database");
        }
    }
}

fn drop_database(home: &Home, name: &str) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| format!("starting a runtime: {err}"))?;
    let admin_url = match home {
        Home::Server(server) => server.admin_url(),
        Home::Citus(coordinator) => {
            return runtime.block_on(citus::drop_schema(coordinator, name));
        }
    };
    runtime
        .block_on(async {
            let admin = admin::connect(admin_url).await?;
            let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", quote_ident(name));
            admin::execute(&admin, &sql).await
        })
        .map_err(|err| err.to_string())
}
