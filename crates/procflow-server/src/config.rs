//! Typed configuration values, read once at start-up; secrets never print.

use std::fmt;
use std::net::SocketAddr;
use std::str::FromStr;
use std::time::Duration;

use clap::ValueEnum;
use procflow_http::HttpConfig;
use procflow_notify::mail::DEFAULT_SCHEDULER_INTERVAL;
use procflow_notify::{MailConfig, SenderConfig, WorkerConfig};
use procflow_postgres::PoolConfig;
use url::Url;

/// A secret setting (an SMTP URL with credentials, ...): `Debug` prints `Secret(..)`.
///
/// ```
/// use procflow_server::config::Secret;
///
/// let secret: Secret = "smtp://user:pw@mail".parse().unwrap();
/// assert_eq!(format!("{secret:?}"), "Secret(..)");
/// assert_eq!(secret.expose(), "smtp://user:pw@mail");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret.
    #[must_use]
    pub fn new(secret: String) -> Self {
        Self(secret)
    }

    /// The secret itself, for the one place that uses it.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl FromStr for Secret {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(Self(text.to_owned()))
    }
}

/// Where PostgreSQL is, `postgres://user:password@host:port/database`. The password is a
/// secret: `Debug` and [`redacted`](Self::redacted) replace it with `***`.
///
/// ```
/// use procflow_server::config::DatabaseUrl;
///
/// let url: DatabaseUrl = "postgres://app:hunter2@db:5432/procflow".parse().unwrap();
/// assert_eq!(url.redacted(), "postgres://app:***@db:5432/procflow");
/// assert!(!format!("{url:?}").contains("hunter2"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct DatabaseUrl(String);

impl DatabaseUrl {
    /// The URL with its password, for connecting only.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The URL with the password (and any `password` query parameter) replaced by `***`; a
    /// connection string that is not a URL prints as `(not shown)`.
    #[must_use]
    pub fn redacted(&self) -> String {
        let Ok(mut url) = Url::parse(&self.0) else {
            return "(not shown)".to_owned();
        };
        if url.password().is_some() && url.set_password(Some("***")).is_err() {
            return "(not shown)".to_owned();
        }
        if url.query_pairs().any(|(name, _)| name == "password") {
            let pairs: Vec<(String, String)> = url
                .query_pairs()
                .map(|(name, value)| {
                    let value = if name == "password" {
                        "***".to_owned()
                    } else {
                        value.into_owned()
                    };
                    (name.into_owned(), value)
                })
                .collect();
            url.query_pairs_mut().clear().extend_pairs(pairs);
        }
        url.to_string()
    }
}

impl fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DatabaseUrl({})", self.redacted())
    }
}

impl FromStr for DatabaseUrl {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        if text.is_empty() {
            return Err("the database URL is empty".to_owned());
        }
        if let Ok(url) = Url::parse(text)
            && !matches!(url.scheme(), "postgres" | "postgresql")
        {
            return Err(format!(
                "the database URL must start with postgres:// (not {}://)",
                url.scheme()
            ));
        }
        Ok(Self(text.to_owned()))
    }
}

/// An absolute `http` or `https` address without query or fragment, kept without a trailing
/// slash: the server's public URL and a team's `base_url`.
///
/// ```
/// use procflow_server::config::BaseUrl;
///
/// let url: BaseUrl = "https://acme.example/".parse().unwrap();
/// assert_eq!(url.as_str(), "https://acme.example");
/// assert!("ftp://acme.example".parse::<BaseUrl>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseUrl(String);

impl BaseUrl {
    /// The address of a listener: `http://` + the bind address.
    #[must_use]
    pub fn of_bind(bind: SocketAddr) -> Self {
        Self(format!("http://{bind}"))
    }

    /// The address as text, without a trailing slash.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for BaseUrl {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let url = Url::parse(text).map_err(|e| format!("{text:?} is not an absolute URL: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return Err(format!(
                "{text:?} must be an http:// or https:// URL with a host"
            ));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(format!("{text:?} must have no query and no fragment"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(format!("{text:?} must not carry credentials"));
        }
        Ok(Self(text.trim_end_matches('/').to_owned()))
    }
}

/// An IANA time zone name such as `UTC` or `Europe/Paris`.
///
/// Checked for shape only (1 to 64 characters of letters, digits, `/`, `_`, `+`, `-`, starting
/// with a letter, no empty path segment): procflow carries no time zone database, so a
/// well-formed name that names no zone (`Mars/Olympus`) is accepted.
///
/// ```
/// use procflow_server::config::Timezone;
///
/// assert!("America/Argentina/Buenos_Aires".parse::<Timezone>().is_ok());
/// assert!("Etc/GMT+3".parse::<Timezone>().is_ok());
/// assert!("Europe/ Paris".parse::<Timezone>().is_err());
/// assert!("".parse::<Timezone>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timezone(String);

impl Timezone {
    /// The longest name accepted.
    pub const MAX_LEN: usize = 64;

    /// The name.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for Timezone {
    fn default() -> Self {
        Self("UTC".to_owned())
    }
}

impl FromStr for Timezone {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let well_formed = !text.is_empty()
            && text.len() <= Self::MAX_LEN
            && text.starts_with(|c: char| c.is_ascii_alphabetic())
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '+' | '-'))
            && text.split('/').all(|segment| !segment.is_empty());
        if well_formed {
            Ok(Self(text.to_owned()))
        } else {
            Err(format!(
                "{text:?} is not an IANA time zone name such as UTC or Europe/Paris"
            ))
        }
    }
}

/// How log lines are written to stderr.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// The sender address of emails unless configured.
pub const DEFAULT_SMTP_FROM: &str = "procflow@localhost";

/// What `procflow serve` runs with; made from the command line and the environment by
/// [`ServeArgs::into_config`](crate::cli::ServeArgs::into_config), or directly by tests.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// PostgreSQL.
    pub database_url: DatabaseUrl,
    /// The server's own address: the default `base_url` of new teams.
    pub public_url: BaseUrl,
    /// Connections to PostgreSQL at most.
    pub db_pool_size: usize,
    /// The API: rate limit, body limit, worker threads.
    pub http: HttpConfig,
    /// The SMTP server; `None`: emails are logged, not sent.
    pub smtp_url: Option<Secret>,
    /// The sender of emails.
    pub smtp_from: String,
    /// Whether webhooks may go to loopback, private and link-local addresses.
    pub webhook_allow_private: bool,
    /// The delivery worker of this process; `None`: none runs here (another process's does).
    pub worker: Option<WorkerSettings>,
    /// Where attachments' bytes are stored (`PROCFLOW_STORAGE_URL`).
    pub storage_url: crate::storage::StorageUrl,
    /// The bytes of the latest uploads a local storage directory leaves in the page cache
    /// (`PROCFLOW_UPLOAD_CACHE_BYTES`).
    pub upload_cache_bytes: u64,
}

impl ServeConfig {
    /// The defaults of `procflow serve` for a database, listening on `bind`.
    #[must_use]
    pub fn new(database_url: DatabaseUrl, bind: SocketAddr) -> Self {
        Self {
            database_url,
            public_url: BaseUrl::of_bind(bind),
            db_pool_size: usize::from(PoolConfig::DEFAULT_MAX_SIZE),
            http: HttpConfig::default(),
            smtp_url: None,
            smtp_from: DEFAULT_SMTP_FROM.to_owned(),
            webhook_allow_private: false,
            worker: Some(WorkerSettings::default()),
            // A directory every test app may share: keys are per team and id.
            storage_url: crate::storage::local(&std::env::temp_dir().join("procflow-files")),
            upload_cache_bytes: procflow_files::DEFAULT_UPLOAD_CACHE_BYTES,
        }
    }
}

/// The worker's settings, read once at start-up.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkerSettings {
    /// The loop.
    pub worker: WorkerConfig,
    /// The sender.
    pub sender: SenderConfig,
    /// Where emails go.
    pub mail: MailConfig,
    /// How often the scheduler looks for due reminders and overdue tasks.
    pub scheduler_interval: Duration,
}

impl Default for WorkerSettings {
    fn default() -> Self {
        Self {
            worker: WorkerConfig::default(),
            sender: SenderConfig::default(),
            mail: MailConfig {
                from: DEFAULT_SMTP_FROM.to_owned(),
                ..MailConfig::default()
            },
            scheduler_interval: DEFAULT_SCHEDULER_INTERVAL,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_url_never_shows_its_password() {
        let url: DatabaseUrl = "postgresql://app:s3cret@db.internal/procflow?sslmode=require"
            .parse()
            .unwrap();
        assert_eq!(
            url.redacted(),
            "postgresql://app:***@db.internal/procflow?sslmode=require"
        );
        let url: DatabaseUrl = "postgres://db/procflow?user=app&password=s3cret"
            .parse()
            .unwrap();
        assert!(!url.redacted().contains("s3cret"), "{}", url.redacted());
        let url: DatabaseUrl = "host=db user=app password=s3cret".parse().unwrap();
        assert_eq!(url.redacted(), "(not shown)");
        assert!(!format!("{url:?}").contains("s3cret"));
        let url: DatabaseUrl = "postgres://postgres@127.0.0.1:55432/procflow"
            .parse()
            .unwrap();
        assert_eq!(
            url.redacted(),
            "postgres://postgres@127.0.0.1:55432/procflow"
        );
    }

    #[test]
    fn a_database_url_must_be_postgres() {
        assert!("mysql://db/x".parse::<DatabaseUrl>().is_err());
        assert!("  ".parse::<DatabaseUrl>().is_err());
        assert!("postgresql://db/x".parse::<DatabaseUrl>().is_ok());
    }

    #[test]
    fn base_urls_are_absolute_web_addresses_without_trailing_slash() {
        assert_eq!(
            "http://127.0.0.1:8080/"
                .parse::<BaseUrl>()
                .unwrap()
                .as_str(),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            "https://acme.example/procflow//"
                .parse::<BaseUrl>()
                .unwrap()
                .as_str(),
            "https://acme.example/procflow"
        );
        for bad in [
            "acme.example",
            "/relative",
            "mailto:a@b.c",
            "https://acme.example/?q=1",
            "https://acme.example/#top",
            "https://user:pw@acme.example",
        ] {
            assert!(bad.parse::<BaseUrl>().is_err(), "{bad} should be refused");
        }
        assert_eq!(
            BaseUrl::of_bind("127.0.0.1:8080".parse().unwrap()).as_str(),
            "http://127.0.0.1:8080"
        );
    }

    #[test]
    fn time_zones_are_checked_for_shape() {
        for good in [
            "UTC",
            "Europe/Paris",
            "America/Port-au-Prince",
            "Etc/GMT-14",
        ] {
            assert!(
                good.parse::<Timezone>().is_ok(),
                "{good} should be accepted"
            );
        }
        let too_long = "A".repeat(65);
        for bad in [
            "",
            " UTC",
            "Europe/Paris ",
            "Europe//Paris",
            "/UTC",
            "+01:00",
            too_long.as_str(),
        ] {
            assert!(
                bad.parse::<Timezone>().is_err(),
                "{bad:?} should be refused"
            );
        }
        assert_eq!(Timezone::default().as_str(), "UTC");
    }
}
