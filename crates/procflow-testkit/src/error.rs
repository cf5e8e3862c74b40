//! The kit's internal error: what went wrong while providing a database, shown in the panic.

/// The error type a migrate closure returns.
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Why the kit could not provide a server or a database.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// The machine lacks something the kit needs (PostgreSQL's binaries, a `postgres` user, ...).
    #[error("{0}")]
    Setup(String),
    /// A file-system operation or a command failed to run.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// A command ran and reported failure.
    #[error("{what} failed ({status}):\n{output}")]
    Command {
        what: String,
        status: std::process::ExitStatus,
        output: String,
    },
    /// An administrative SQL statement failed.
    #[error("{what}: {}", describe(source))]
    Sql {
        what: String,
        #[source]
        source: tokio_postgres::Error,
    },
    /// The caller's migrate closure failed on the template database.
    #[error("migrating the template database {template}: {source}")]
    Migrate {
        template: String,
        #[source]
        source: BoxError,
    },
}

impl Error {
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> Self {
        let what = what.into();
        move |source| Self::Io { what, source }
    }

    pub(crate) fn sql(what: impl Into<String>) -> impl FnOnce(tokio_postgres::Error) -> Self {
        let what = what.into();
        move |source| Self::Sql { what, source }
    }
}

/// tokio-postgres's `Display` shows only the kind ("db error"); add the server's message or
/// the underlying cause.
fn describe(err: &tokio_postgres::Error) -> String {
    if let Some(db) = err.as_db_error() {
        let mut text = format!("{} {}: {}", db.severity(), db.code().code(), db.message());
        if let Some(detail) = db.detail() {
            text.push_str(&format!(" ({detail})"));
        }
        return text;
    }
    let mut text = err.to_string();
    let mut cause = std::error::Error::source(err);
    while let Some(inner) = cause {
        text.push_str(&format!(": {inner}"));
        cause = inner.source();
    }
    text
}
