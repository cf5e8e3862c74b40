//! The worker's Prometheus series, recorded into whatever recorder the process installed
//! (`procflow-http`'s, rendered on `/metrics`).

use std::time::Duration;

use metrics::Unit;
use procflow_domain::ports::Backlog;
use time::OffsetDateTime;

/// Counter: webhook attempts by `outcome`: `delivered`, `retry` (failed, another attempt
/// scheduled), `failed` (the last attempt failed), `lost` (the lease ran out meanwhile),
/// `unrecorded` (the store failed).
pub const ATTEMPTS_TOTAL: &str = "procflow_webhook_attempts_total";

/// Histogram: seconds an attempt took, from the request to the answer (or the error).
pub const ATTEMPT_DURATION: &str = "procflow_webhook_attempt_duration_seconds";

/// Gauge: deliveries pending or in flight, of every instance.
pub const PENDING: &str = "procflow_webhook_pending";

/// Gauge: seconds since the oldest delivery pending or in flight was created (0 with none).
pub const OLDEST_PENDING_AGE: &str = "procflow_webhook_oldest_pending_age_seconds";

pub(crate) fn describe() {
    metrics::describe_counter!(ATTEMPTS_TOTAL, "Webhook delivery attempts, by outcome");
    metrics::describe_histogram!(
        ATTEMPT_DURATION,
        Unit::Seconds,
        "Time a webhook attempt took, from the request to the answer or the error"
    );
    metrics::describe_gauge!(PENDING, "Webhook deliveries pending or in flight");
    metrics::describe_gauge!(
        OLDEST_PENDING_AGE,
        Unit::Seconds,
        "Age of the oldest webhook delivery pending or in flight"
    );
}

pub(crate) fn attempt(outcome: &'static str, elapsed: Duration) {
    metrics::counter!(ATTEMPTS_TOTAL, "outcome" => outcome).increment(1);
    metrics::histogram!(ATTEMPT_DURATION).record(elapsed.as_secs_f64());
}

pub(crate) fn backlog(backlog: Backlog, now: OffsetDateTime) {
    #[expect(clippy::cast_precision_loss, reason = "a count far below 2^52")]
    metrics::gauge!(PENDING).set(backlog.pending as f64);
    let age = backlog
        .oldest
        .map_or(0.0, |oldest| (now - oldest).as_seconds_f64().max(0.0));
    metrics::gauge!(OLDEST_PENDING_AGE).set(age);
}
