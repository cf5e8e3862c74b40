//! Which PostgreSQL server the tests use: `DATABASE_URL`'s, or a private one started once.

use std::sync::OnceLock;

use crate::admin::redact;
use crate::error::Error;
use crate::private_server::PrivateServer;

/// The variable naming an existing server to use instead of a private one.
pub(crate) const DATABASE_URL: &str = "DATABASE_URL";

/// The server's maintenance database.
const MAINTENANCE_DB: &str = "postgres";

/// The server this process's tests use.
#[derive(Debug)]
pub(crate) struct Server {
    /// Where administrative statements connect: `DATABASE_URL` as given, or the private
    /// server's maintenance database.
    admin_url: String,
    /// The URL other databases' URLs are built from (same server, user and options).
    base: url::Url,
    private: Option<PrivateServer>,
}

impl Server {
    fn from_env() -> Result<Self, Error> {
        match std::env::var(DATABASE_URL) {
            Ok(url) if !url.trim().is_empty() => Self::existing(url),
            _ => Self::private(),
        }
    }

    fn existing(url: String) -> Result<Self, Error> {
        let base = url::Url::parse(&url)
            .ok()
            .filter(|parsed| matches!(parsed.scheme(), "postgres" | "postgresql"))
            .ok_or_else(|| {
                Error::Setup(format!(
                    "{DATABASE_URL}={} is not a postgres://user@host:port/database URL",
                    redact(&url)
                ))
            })?;
        tracing::info!(url = %redact(&url), "using the PostgreSQL server of DATABASE_URL");
        Ok(Self {
            admin_url: url,
            base,
            private: None,
        })
    }

    fn private() -> Result<Self, Error> {
        let server = PrivateServer::start().map_err(|err| {
            Error::Setup(format!(
                "could not start a private PostgreSQL ({err}). Set {DATABASE_URL} to use an \
                 existing server instead"
            ))
        })?;
        let admin_url = format!(
            "postgres://postgres@127.0.0.1:{}/{MAINTENANCE_DB}",
            server.port
        );
        let base = url::Url::parse(&admin_url)
            .map_err(|err| Error::Setup(format!("building the server URL: {err}")))?;
        Ok(Self {
            admin_url,
            base,
            private: Some(server),
        })
    }

    /// Where administrative statements connect.
    pub(crate) fn admin_url(&self) -> &str {
        &self.admin_url
    }

    /// The URL of database `name` on this server.
    pub(crate) fn url_of(&self, name: &str) -> String {
        let mut url = self.base.clone();
        url.set_path(&format!("/{name}"));
        url.to_string()
    }

    /// Whether this is a server other processes and earlier runs may share.
    pub(crate) fn is_shared(&self) -> bool {
        self.private.is_none()
    }
}

/// This process's server, started (or found) on first use; the same failure for every caller.
pub(crate) async fn server() -> Result<&'static Server, String> {
    static SERVER: OnceLock<Result<Server, String>> = OnceLock::new();
    let server = match SERVER.get() {
        Some(server) => server,
        None => tokio::task::spawn_blocking(|| {
            SERVER.get_or_init(|| Server::from_env().map_err(|err| err.to_string()))
        })
        .await
        .map_err(|err| format!("starting the PostgreSQL server: {err}"))?,
    };
    server.as_ref().map_err(Clone::clone)
}

/// The URL of the server's maintenance database (`postgres`): `DATABASE_URL`'s server when
/// `DATABASE_URL` is set, else a private server this process starts on first use.
///
/// Call it inside a tokio runtime.
///
/// # Panics
/// When no server can be had: PostgreSQL's binaries are missing (the message says what to
/// install), the private server does not start, or `DATABASE_URL` is not a postgres URL.
#[expect(
    clippy::panic,
    reason = "a test kit fails loudly rather than skipping tests"
)]
pub async fn server_url() -> String {
    match server().await {
        Ok(server) => server.url_of(MAINTENANCE_DB),
        Err(err) => panic!("procflow-testkit: {err}"),
    }
}
