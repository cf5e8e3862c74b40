//! The one port of leased outbound work ([`LeasedQueue`]), shared by every worker of every
//! instance, and the one port that sends a job ([`Sender`]). Webhook deliveries and emails
//! are both served through them; what is particular to each (enqueueing, the delivery log)
//! stays in their own ports.

use async_trait::async_trait;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::DomainResult;
use crate::queue::Job;

/// The jobs of one kind waiting, in flight and done.
///
/// The claim rule (who holds a job, when a holder's claim runs out) is written here once and
/// checked by the conformance suite on every store; a queue of another kind of job inherits
/// it.
#[async_trait]
pub trait LeasedQueue<J: Job>: Send + Sync {
    /// Leases up to `limit` due jobs (pending and due at `now`, or in flight with a lease run
    /// out) until `lease_until` under the token `lease`, counting an attempt on each, oldest
    /// due first.
    ///
    /// # Errors
    /// Only store failures. A job leased MUST NOT be handed out again before its lease runs
    /// out, whichever instance asks; the claim's cost MUST NOT grow with the jobs that ended.
    async fn claim_due(
        &self,
        limit: usize,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        lease: Uuid,
    ) -> DomainResult<Vec<J::Claimed>>;

    /// Records what sends made of jobs; answers, in order, whether each was recorded.
    ///
    /// # Errors
    /// Only store failures. Each outcome MUST be recorded only while its job is still held
    /// under its claim's lease (else `false`, nothing written for it), so that a worker whose
    /// lease ran out cannot overwrite another's outcome. A store MAY record them in fewer
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

    /// Gives back every job still held under `lease`, due at `now`, its attempt uncounted (a
    /// worker shutting down). Answers how many.
    ///
    /// # Errors
    /// Only store failures. A job MUST NOT be given back once its outcome was recorded.
    async fn release(&self, lease: Uuid, now: OffsetDateTime) -> DomainResult<u64>;

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
