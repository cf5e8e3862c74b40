//! Logging and metrics, each installed once per process: `tracing` to stderr, as text or JSON
//! lines, filtered like `RUST_LOG`; and the Prometheus recorder behind `/metrics`.
//!
//! In JSON every event is one object on one line with its fields at the top level (`message`,
//! `level`, `target`, `timestamp`, then `request.id`, `http.method`, `http.route`,
//! `http.status`, `duration_ms` for the access line of each request).

use std::io::IsTerminal;
use std::sync::OnceLock;

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

/// A log filter that does not parse.
#[derive(Debug, thiserror::Error)]
#[error("invalid log filter {filter:?} (RUST_LOG / --log-filter): {source}")]
pub struct FilterError {
    filter: String,
    source: tracing_subscriber::filter::ParseError,
}

static INSTALLED: OnceLock<()> = OnceLock::new();

/// Installs the process-wide subscriber writing to stderr. Later calls (tests building many
/// apps) do nothing; so does a call when another subscriber was installed first.
///
/// # Errors
/// When `filter` is not a valid filter directive list.
pub fn init(format: LogFormat, filter: &str) -> Result<(), FilterError> {
    let env_filter = EnvFilter::try_new(filter).map_err(|source| FilterError {
        filter: filter.to_owned(),
        source,
    })?;
    INSTALLED.get_or_init(|| {
        let builder = tracing_subscriber::fmt()
            .with_env_filter(env_filter)
            .with_writer(std::io::stderr);
        // Another subscriber may be installed already (a test harness): keep it.
        let _ = match format {
            LogFormat::Text => builder
                .with_ansi(std::io::stderr().is_terminal())
                .try_init(),
            LogFormat::Json => builder
                .json()
                .flatten_event(true)
                .with_current_span(false)
                .with_span_list(false)
                .try_init(),
        };
    });
    Ok(())
}

/// Installs the process-wide Prometheus recorder that `/metrics` renders. Later calls (tests
/// building many apps) do nothing.
pub fn init_metrics() {
    procflow_http::metrics::install();
}

#[cfg(test)]
mod tests {
    use super::*;

    use tracing::Level;

    // The only test of this binary that installs a subscriber: the process-wide one is set at
    // most once, so a second test doing so would see this one's.
    #[test]
    fn a_bad_filter_is_refused_and_a_good_one_installs_once() {
        assert!(init(LogFormat::Text, "procflow=loud").is_err());
        assert!(
            !tracing::dispatcher::has_been_set(),
            "a refused filter installs nothing"
        );

        assert!(init(LogFormat::Json, "procflow=debug,warn").is_ok());
        assert!(tracing::dispatcher::has_been_set());
        let first_filter_decides = || {
            tracing::enabled!(target: "procflow", Level::DEBUG)
                && !tracing::enabled!(target: "elsewhere", Level::INFO)
        };
        assert!(first_filter_decides(), "the first good filter is installed");

        // A later call succeeds and changes nothing: its filter (`info`) would enable the
        // second and refuse the first.
        assert!(init(LogFormat::Text, "info").is_ok());
        assert!(
            first_filter_decides(),
            "a later call replaced the subscriber"
        );
    }
}
