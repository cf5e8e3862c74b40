//! The one port of leased outbound work ([`LeasedQueue`]), shared by every worker of every
//! instance, and the one port that sends a job ([`Sender`]). Webhook deliveries and emails
//! are both served through them; what is particular to each (enqueueing, the delivery log)
//! stays in their own ports.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::DomainResult;
use crate::ids::HolderId;
use crate::queue::{Claim, Job, Lease};

/// The jobs of one kind waiting, in flight and done.
///
/// The claim rule (who holds a job, when a holder's claim runs out, see
/// [`queue::Lease`](crate::queue::Lease)) is written here once and checked by the conformance
/// suite on every store; a queue of another kind of job inherits it.
#[async_trait]
pub trait LeasedQueue<J: Job>: Send + Sync {
    /// Leases up to `limit` due jobs under `lease`, counting an attempt on each, oldest due
    /// first: pending jobs due at `now`, and held jobs whose lease ran out by `now` (their
    /// holder stopped renewing it), which the answer reports as taken over, by former holder.
    ///
    /// # Errors
    /// Only store failures. A job leased MUST NOT be handed out again before its lease (as
    /// last renewed) runs out, whichever instance asks; one whose lease ran out MUST be handed
    /// out to the next claim and reported in [`Claim::taken_over`]. Each job MUST be recorded
    /// as held by `lease.holder` under `lease.token`. The claim's cost MUST NOT grow with the
    /// jobs that ended.
    async fn claim_due(
        &self,
        limit: usize,
        now: OffsetDateTime,
        lease: &Lease,
    ) -> DomainResult<Claim<J>>;

    /// Renews until `until` the lease of every job `holder` still holds (its attempts still
    /// run). Answers how many.
    ///
    /// # Errors
    /// Only store failures. It MUST NOT renew a job that another holder took over, nor one
    /// whose outcome was recorded or that was given back. Its cost MUST follow the jobs
    /// `holder` holds, never the jobs pending or ended; a store SHOULD renew them all in one
    /// statement.
    async fn renew(&self, holder: HolderId, until: OffsetDateTime) -> DomainResult<u64>;

    /// Records what sends made of jobs; answers, in order, whether each was recorded.
    ///
    /// # Errors
    /// Only store failures. Each outcome MUST be recorded only while its job is still held
    /// under its claim's lease token (else `false`, nothing written for it), so that a worker
    /// whose lease ran out cannot overwrite another's outcome. A store MAY record them in fewer
    /// statements than outcomes.
    async fn settle(&self, settled: &[(J::Claimed, J::Settlement)]) -> DomainResult<Vec<bool>>;

    /// Records one outcome, as [`settle`](Self::settle) would.
    ///
    /// # Errors
    /// As [`settle`](Self::settle).
    async fn settle_one(
        &self,
        claimed: &J::Claimed,
        settlement: &J::Settlement,
    ) -> DomainResult<bool> {
        let recorded = self
            .settle(&[(claimed.clone(), settlement.clone())])
            .await?;
        Ok(recorded.first().copied().unwrap_or(false))
    }

    /// Gives back every job `holder` still holds, due at `now`, its attempt uncounted (a
    /// worker shutting down). Answers how many.
    ///
    /// # Errors
    /// Only store failures. A job MUST NOT be given back once its outcome was recorded, nor
    /// once another holder took it over.
    async fn release(&self, holder: HolderId, now: OffsetDateTime) -> DomainResult<u64>;

    /// How many jobs are pending or in flight, and when the oldest was created.
    ///
    /// # Errors
    /// Only store failures.
    async fn backlog(&self) -> DomainResult<Backlog>;

    /// Removes the jobs created before `before` that are no longer pending or in flight.
    /// Answers how many.
    ///
    /// # Errors
    /// Only store failures. A job pending or in flight MUST NOT be removed, however old.
    async fn sweep(&self, before: OffsetDateTime) -> DomainResult<u64>;
}

/// The jobs not done yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    /// Pending or in flight.
    pub pending: u64,
    /// When the oldest of them was created.
    pub oldest: Option<OffsetDateTime>,
}

/// Sends one attempt of a job.
#[async_trait]
pub trait Sender<J: Job>: Send + Sync {
    /// Sends `claimed` at `now` and says what it met. What a sender MUST and MUST NOT do is
    /// the job's: see [`Deliveries`](crate::webhook::Deliveries) and
    /// [`Mails`](crate::mail::Mails).
    async fn send(&self, claimed: &J::Claimed, now: OffsetDateTime) -> J::Outcome;
}
