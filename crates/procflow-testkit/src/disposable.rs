//! `DisposableServer`: a private PostgreSQL of one test's own, to stop and restart in fault
//! tests.

use std::sync::Arc;

use crate::admin;
use crate::error::Error;
use crate::naming::quote_ident;
use crate::private_server::{Cluster, StopMode};

/// A PostgreSQL server of its own for a fault test: a new cluster in a temp directory,
/// separate from the server every other test shares, that the test may stop and restart.
///
/// It is set up like the shared private server (see the crate's documentation): the system's
/// binaries, `initdb` into a new temp directory, 127.0.0.1 on a free port, trust
/// authentication for the user `postgres`. It ignores `DATABASE_URL`: stopping a shared server
/// would break other tests. Dropping it stops the server (`pg_ctl stop -m immediate`) and
/// removes its directory, and waits for both; the kit's watchdog does the same if the test
/// process dies first, so nothing leaks.
///
/// Starting takes about a second; [`restart`](Self::restart) a fraction of one.
///
/// ```rust,no_run
/// use procflow_testkit::DisposableServer;
///
/// // In a #[tokio::test(flavor = "multi_thread")]:
/// async fn a_fault_test() {
///     let server = DisposableServer::start().await;
///     let url = server.create_database("app").await;
///     // ... connect to `url` ...
///     server.stop().await; // connections fail, new ones are refused
///     server.restart().await; // same port, same data: `url` works again
/// }
/// ```
pub struct DisposableServer {
    port: u16,
    /// Shared with the blocking tasks that run `pg_ctl`; taken by `Drop` only.
    cluster: Option<Arc<Cluster>>,
}

impl DisposableServer {
    /// Creates a new cluster and starts it on a free port of 127.0.0.1.
    ///
    /// Call it inside a tokio runtime.
    ///
    /// # Panics
    /// When PostgreSQL's binaries are missing (the message says what to install) or the server
    /// does not start.
    pub async fn start() -> DisposableServer {
        let started = tokio::task::spawn_blocking(|| {
            let cluster = Cluster::init()?;
            let port = cluster.start_on_free_port()?;
            Ok::<_, Error>((cluster, port))
        })
        .await;
        match started {
            Ok(Ok((cluster, port))) => DisposableServer {
                port,
                cluster: Some(Arc::new(cluster)),
            },
            Ok(Err(err)) => fail("starting a disposable PostgreSQL", err),
            Err(err) => fail("starting a disposable PostgreSQL", err),
        }
    }

    /// The port the server listens on, on 127.0.0.1; the same after a restart.
    #[must_use]
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of database `database` on this server, as the user `postgres`.
    #[must_use]
    pub fn url(&self, database: &str) -> String {
        let mut url = url::Url::parse(&format!("postgres://postgres@127.0.0.1:{}", self.port))
            .unwrap_or_else(|err| fail("building the server URL", err));
        url.set_path(&format!("/{database}"));
        url.to_string()
    }

    /// Creates the empty database `name` and returns its URL.
    ///
    /// # Panics
    /// When the server is stopped or the database exists.
    pub async fn create_database(&self, name: &str) -> String {
        let created = async {
            let admin = admin::connect(&self.url("postgres")).await?;
            admin::execute(&admin, &format!("CREATE DATABASE {}", quote_ident(name))).await
        }
        .await;
        match created {
            Ok(()) => self.url(name),
            Err(err) => fail("creating a database on a disposable PostgreSQL", err),
        }
    }

    /// Stops the server (`pg_ctl stop -m fast`: open connections are told the server is
    /// shutting down, then closed) and waits until it is gone. New connections are refused
    /// until [`restart`](Self::restart).
    ///
    /// # Panics
    /// When the server is not running or does not stop.
    pub async fn stop(&self) {
        self.pg_ctl_stop(StopMode::Fast).await;
    }

    /// Stops the server as a crash would (`pg_ctl stop -m immediate`: every server process
    /// quits at once) and waits until it is gone.
    ///
    /// # Panics
    /// As [`stop`](Self::stop).
    pub async fn stop_immediately(&self) {
        self.pg_ctl_stop(StopMode::Immediate).await;
    }

    /// Starts the stopped server again, on the same port and data directory, and waits until
    /// it accepts connections (after [`stop_immediately`](Self::stop_immediately) this
    /// includes crash recovery).
    ///
    /// # Panics
    /// When the server is running, or does not start (e.g. something else took the port).
    pub async fn restart(&self) {
        let port = self.port;
        self.blocking("restarting a disposable PostgreSQL", move |cluster| {
            cluster.start_on(port)
        })
        .await;
    }

    async fn pg_ctl_stop(&self, mode: StopMode) {
        self.blocking("stopping a disposable PostgreSQL", move |cluster| {
            cluster.stop(mode)
        })
        .await;
    }

    /// Runs `work` on a blocking thread (it runs `pg_ctl`); panics when it fails.
    async fn blocking(
        &self,
        what: &str,
        work: impl FnOnce(&Cluster) -> Result<(), Error> + Send + 'static,
    ) {
        let Some(cluster) = self.cluster.clone() else {
            fail(what, "the server was dropped")
        };
        match tokio::task::spawn_blocking(move || work(&cluster)).await {
            Ok(Ok(())) => {}
            Ok(Err(err)) => fail(what, err),
            Err(err) => fail(what, err),
        }
    }
}

impl std::fmt::Debug for DisposableServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DisposableServer")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

impl Drop for DisposableServer {
    /// Stops the server and removes its directory, waiting for both (about a tenth of a
    /// second). If a cancelled `stop` or `restart` still runs `pg_ctl`, the watchdog cleans up
    /// as soon as that finishes, without this destructor waiting.
    fn drop(&mut self) {
        if let Some(Ok(cluster)) = self.cluster.take().map(Arc::try_unwrap) {
            cluster.remove();
        }
    }
}

#[expect(
    clippy::panic,
    reason = "a test kit fails loudly rather than skipping tests"
)]
fn fail(what: &str, err: impl std::fmt::Display) -> ! {
    panic!("procflow-testkit: {what}: {err}")
}
