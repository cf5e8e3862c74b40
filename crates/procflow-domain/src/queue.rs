//! Outbound work held under leases, whatever it carries (a webhook delivery, an email): what
//! a kind of job is ([`Job`]), whose a job is and until when ([`Lease`], renewed by its holder,
//! taken over when it is not: [`Takeover`]), and what an attempt's outcome makes of one
//! ([`Settled`]: done, retried on the shared [`RetrySchedule`](crate::webhook::RetrySchedule),
//! or failed). The port is [`LeasedQueue`](crate::ports::LeasedQueue), the attempt use case
//! [`Attempts`](crate::service::Attempts). Pure rules, written once for every channel, so that
//! a new kind of outbound work (or a new claim rule) lands in one place.

mod job;
mod lease;
mod settle;

pub use job::Job;
pub use lease::{Claim, Lease, RENEWALS_PER_LEASE, Takeover};
pub use settle::{Fate, Settled, Verdict};
