//! The attempt use case of every kind of outbound job: claim due jobs under a lease in the
//! name of one holder, renew that holder's leases while its attempts run, send each job
//! through the job's sender, and make of its outcome what the schedule says; the worker (in
//! `procflow-notify`) decides when, how many at once, and how outcomes are batched.

use std::sync::Arc;

use time::{Duration, OffsetDateTime};

use crate::error::DomainResult;
use crate::ids::HolderId;
use crate::ports::{Backlog, Clock, IdGenerator, LeasedQueue, Sender};
use crate::queue::{Claim, Job, Lease};
use crate::webhook::{RETENTION, RetrySchedule};

/// The adapters [`Attempts`] runs on.
pub struct AttemptPorts<J: Job> {
    /// The jobs.
    pub queue: Arc<dyn LeasedQueue<J>>,
    /// What sends one.
    pub sender: Arc<dyn Sender<J>>,
    /// The time.
    pub clock: Arc<dyn Clock>,
    /// Lease tokens.
    pub ids: Arc<dyn IdGenerator>,
}

// By hand: a derive would ask `J: Clone` of the marker type for no reason.
impl<J: Job> Clone for AttemptPorts<J> {
    fn clone(&self) -> Self {
        Self {
            queue: self.queue.clone(),
            sender: self.sender.clone(),
            clock: self.clock.clone(),
            ids: self.ids.clone(),
        }
    }
}

/// The attempts of one kind of job, by one holder. Cheap to clone.
pub struct Attempts<J: Job> {
    ports: AttemptPorts<J>,
    schedule: RetrySchedule,
    holder: HolderId,
}

impl<J: Job> Clone for Attempts<J> {
    fn clone(&self) -> Self {
        Self {
            ports: self.ports.clone(),
            schedule: self.schedule.clone(),
            holder: self.holder,
        }
    }
}

impl<J: Job> Attempts<J> {
    /// The use case over these adapters, retrying on `schedule`, claiming in the name of
    /// `holder` (one per worker process, shared by its queues).
    #[must_use]
    pub fn new(ports: AttemptPorts<J>, schedule: RetrySchedule, holder: HolderId) -> Self {
        Self {
            ports,
            schedule,
            holder,
        }
    }

    /// The holder it claims for.
    #[must_use]
    pub fn holder(&self) -> HolderId {
        self.holder
    }

    /// Claims up to `limit` due jobs, each held for `lease_for` under a new lease token,
    /// taking over those whose holder stopped renewing their lease.
    ///
    /// # Errors
    /// Store failures.
    pub async fn claim(&self, limit: usize, lease_for: Duration) -> DomainResult<Claim<J>> {
        let now = self.ports.clock.now();
        let lease = Lease {
            holder: self.holder,
            token: self.ports.ids.new_id(),
            until: now + lease_for,
        };
        self.ports.queue.claim_due(limit, now, &lease).await
    }

    /// Renews for `lease_for` the lease of every job the holder still has in flight; answers
    /// how many.
    ///
    /// # Errors
    /// Store failures: the jobs are then taken over by another worker once their lease runs
    /// out, as if the holder had died.
    pub async fn renew(&self, lease_for: Duration) -> DomainResult<u64> {
        let until = self.ports.clock.now() + lease_for;
        self.ports.queue.renew(self.holder, until).await
    }

    /// Sends `claimed` (unless the job says it is not to be sent) and answers what its
    /// outcome makes of it, the wait before a retry placed by `unit` (in `[0, 1)`, from the
    /// caller's random source). Records nothing: see [`settle`](Self::settle).
    ///
    /// A job claimed past the schedule's last attempt is not sent: a claim counts an attempt,
    /// and a job is claimed again only when the lease of its previous attempt ran out without
    /// an outcome (its worker stopped, or the send outlived the lease), so its last attempt
    /// never reported. It fails, as [`Job::broken`], rather than being taken for ever.
    pub async fn attempt(&self, claimed: &J::Claimed, unit: f64) -> J::Settlement {
        let now = self.ports.clock.now();
        let attempt = J::attempt(claimed);
        let last = self.schedule.max_attempts();
        let outcome = if attempt > last {
            J::broken(format!(
                "not sent: attempt {attempt} of a schedule of {last}; the last attempt's worker \
                 stopped or outlived its lease without reporting"
            ))
        } else {
            match J::not_sent(claimed) {
                Some(outcome) => outcome,
                None => self.ports.sender.send(claimed, now).await,
            }
        };
        J::settle(claimed, now, outcome, &self.schedule, unit)
    }

    /// What a send that broke down (its sender panicked) makes of `claimed`: a failure the
    /// schedule settles like any other, so that the job is never left held.
    #[must_use]
    pub fn broke_down(&self, claimed: &J::Claimed, error: String, unit: f64) -> J::Settlement {
        J::settle(
            claimed,
            self.ports.clock.now(),
            J::broken(error),
            &self.schedule,
            unit,
        )
    }

    /// Records outcomes, each only while its job is still held under its lease; answers, in
    /// order, whether each was.
    ///
    /// # Errors
    /// Store failures: the jobs are then attempted again when their lease runs out.
    pub async fn settle(&self, settled: &[(J::Claimed, J::Settlement)]) -> DomainResult<Vec<bool>> {
        self.ports.queue.settle(settled).await
    }

    /// Gives back what the holder still holds, due at once.
    ///
    /// # Errors
    /// Store failures: the jobs then come back when their lease runs out.
    pub async fn release(&self) -> DomainResult<u64> {
        self.ports
            .queue
            .release(self.holder, self.ports.clock.now())
            .await
    }

    /// How many jobs wait, and since when.
    ///
    /// # Errors
    /// Store failures.
    pub async fn backlog(&self) -> DomainResult<Backlog> {
        self.ports.queue.backlog().await
    }

    /// Removes the ended jobs past their [`RETENTION`]; answers how many.
    ///
    /// # Errors
    /// Store failures.
    pub async fn sweep(&self) -> DomainResult<u64> {
        self.ports.queue.sweep(self.now() - RETENTION).await
    }

    /// The time, by the use case's clock.
    #[must_use]
    pub fn now(&self) -> OffsetDateTime {
        self.ports.clock.now()
    }
}
