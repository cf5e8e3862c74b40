//! Webhook deliveries as leased jobs: what the shared queue, sender and attempt use case carry
//! for them.

use time::OffsetDateTime;
use uuid::Uuid;

use super::{Attempt, AttemptOutcome, ClaimedDelivery, DeliveryOrigin, RetrySchedule, Settlement};
use crate::queue::Job;

/// Webhook deliveries, as a kind of [`Job`].
///
/// Their [`Sender`](crate::ports::Sender) POSTs the delivery's payload to its URL, signed at
/// the attempt's time with every secret that signs then, and says what came back. It MUST NOT
/// connect to a refused address ([`refusal`](super::refusal)) unless configured to; a refusal
/// is an [`AttemptOutcome::Error`] naming it. It MUST NOT follow redirects.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deliveries;

impl Job for Deliveries {
    type Claimed = ClaimedDelivery;
    type Outcome = AttemptOutcome;
    type Settlement = Settlement;

    fn lease(claimed: &ClaimedDelivery) -> Uuid {
        claimed.lease
    }

    fn attempt(claimed: &ClaimedDelivery) -> u32 {
        claimed.attempt
    }

    /// An event's delivery to an endpoint disabled since it was queued is not sent (a test or
    /// a redelivery, asked for by hand, still is).
    fn not_sent(claimed: &ClaimedDelivery) -> Option<AttemptOutcome> {
        (!claimed.endpoint_enabled && claimed.origin == DeliveryOrigin::Event)
            .then_some(AttemptOutcome::EndpointDisabled)
    }

    /// Retried on the schedule like a connection that failed, and failed after its last try.
    fn broken(error: String) -> AttemptOutcome {
        AttemptOutcome::Error(error)
    }

    fn settle(
        claimed: &ClaimedDelivery,
        at: OffsetDateTime,
        outcome: AttemptOutcome,
        schedule: &RetrySchedule,
        unit: f64,
    ) -> Settlement {
        Settlement::of(claimed, Attempt { at, outcome }, schedule, unit)
    }
}
