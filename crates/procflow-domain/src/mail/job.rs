//! Emails as leased jobs: what the shared queue, sender and attempt use case carry for them.

use time::OffsetDateTime;
use uuid::Uuid;

use super::{ClaimedMail, MailOutcome, MailSettlement};
use crate::queue::Job;
use crate::webhook::RetrySchedule;

/// Emails, as a kind of [`Job`].
///
/// Their [`Sender`](crate::ports::Sender) renders the email and hands it to the transport
/// within its time limit. It MUST answer [`MailOutcome::Permanent`] only for a failure no
/// retry mends (a 5xx reply, a message that cannot be built), and MUST give every attempt of
/// one email the same `Message-ID`, so that a repeated send is recognisable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mails;

impl Job for Mails {
    type Claimed = ClaimedMail;
    type Outcome = MailOutcome;
    type Settlement = MailSettlement;

    fn lease(claimed: &ClaimedMail) -> Uuid {
        claimed.lease
    }

    fn attempt(claimed: &ClaimedMail) -> u32 {
        claimed.attempt
    }

    /// A message that cannot be built once cannot be built again: it fails for good.
    fn broken(error: String) -> MailOutcome {
        MailOutcome::Permanent(error)
    }

    fn settle(
        claimed: &ClaimedMail,
        at: OffsetDateTime,
        outcome: MailOutcome,
        schedule: &RetrySchedule,
        unit: f64,
    ) -> MailSettlement {
        MailSettlement::of(claimed, at, outcome, schedule, unit)
    }
}
