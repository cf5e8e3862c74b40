//! A kind of leased work: what a worker holds, what sending it meets, and what that makes of
//! it.

use std::fmt::Debug;

use time::OffsetDateTime;
use uuid::Uuid;

use crate::webhook::RetrySchedule;

/// A kind of outbound work a [`LeasedQueue`](crate::ports::LeasedQueue) holds: a marker type
/// (`webhook::Deliveries`, `mail::Mails`) naming the types that travel through one attempt.
pub trait Job: Send + Sync + 'static {
    /// A job a worker holds under a lease, with what sending it needs.
    type Claimed: Clone + Debug + Send + Sync;
    /// What one send met.
    type Outcome: Send;
    /// What the store records after a send.
    type Settlement: Clone + Debug + Send + Sync;

    /// The lease `claimed` is held under: its outcome is recorded only while it still is.
    fn lease(claimed: &Self::Claimed) -> Uuid;

    /// This attempt's number, from 1.
    fn attempt(claimed: &Self::Claimed) -> u32;

    /// The outcome of a job that is not to be sent at all (a webhook whose endpoint was
    /// disabled meanwhile); `None` for a job to send.
    fn not_sent(claimed: &Self::Claimed) -> Option<Self::Outcome> {
        let _ = claimed;
        None
    }

    /// The outcome of a send that broke down without an answer of its own (its sender
    /// panicked, or a previous attempt never reported): never a success, so that the job
    /// settles as the schedule says instead of being taken again and again.
    fn broken(error: String) -> Self::Outcome;

    /// What `outcome`, met by the send started `at`, makes of `claimed`: a failure worth
    /// another try waits `schedule`'s step for this attempt (placed by `unit`, in `[0, 1)`).
    fn settle(
        claimed: &Self::Claimed,
        at: OffsetDateTime,
        outcome: Self::Outcome,
        schedule: &RetrySchedule,
        unit: f64,
    ) -> Self::Settlement;
}
