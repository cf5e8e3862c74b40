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

/// Counter: email sends by `kind` and `outcome`: `sent`, `retry` (a temporary failure,
/// another attempt scheduled), `failed` (refused for good, or the last attempt failed), `lost`
/// (the lease ran out meanwhile), `unrecorded` (the store failed).
pub const EMAILS_TOTAL: &str = "procflow_email_sends_total";

/// Histogram: seconds a send took.
pub const EMAIL_DURATION: &str = "procflow_email_send_duration_seconds";

/// Gauge: emails pending or in flight, of every instance.
pub const EMAILS_PENDING: &str = "procflow_email_pending";

/// Counter: outbox events set aside because they cannot be read (never retried; `procflow
/// admin outbox --dead` lists them).
pub const OUTBOX_DEAD_TOTAL: &str = "procflow_outbox_dead_total";

/// Counter: jobs a claim took over from a holder that stopped renewing their lease (a worker
/// killed, or cut off from the database for longer than the lease), by `queue`: `webhook`,
/// `email`.
pub const TAKEOVERS_TOTAL: &str = "procflow_queue_takeovers_total";

pub(crate) fn describe() {
    metrics::describe_counter!(
        TAKEOVERS_TOTAL,
        "Jobs taken over from a holder that stopped renewing their lease, by queue"
    );
    metrics::describe_counter!(
        OUTBOX_DEAD_TOTAL,
        "Outbox events set aside because they cannot be read"
    );
    metrics::describe_counter!(EMAILS_TOTAL, "Email sends, by kind and outcome");
    metrics::describe_histogram!(EMAIL_DURATION, Unit::Seconds, "Time an email send took");
    metrics::describe_gauge!(EMAILS_PENDING, "Emails pending or in flight");
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

pub(crate) fn takeovers(queue: &'static str, jobs: u64) {
    metrics::counter!(TAKEOVERS_TOTAL, "queue" => queue).increment(jobs);
}

pub(crate) fn outbox_dead(count: usize) {
    metrics::counter!(OUTBOX_DEAD_TOTAL).increment(u64::try_from(count).unwrap_or(u64::MAX));
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

pub(crate) fn email(kind: &'static str, outcome: &'static str, elapsed: Duration) {
    metrics::counter!(EMAILS_TOTAL, "kind" => kind, "outcome" => outcome).increment(1);
    metrics::histogram!(EMAIL_DURATION).record(elapsed.as_secs_f64());
}

pub(crate) fn email_backlog(pending: u64) {
    #[expect(clippy::cast_precision_loss, reason = "a count far below 2^52")]
    metrics::gauge!(EMAILS_PENDING).set(pending as f64);
}
