//! Whose a leased job is and until when: a claim's [`Lease`] (its holder, its fence token, its
//! end), the renewal that keeps a living holder's jobs its own, and what a claim took over from
//! a holder that stopped renewing ([`Takeover`]).
//!
//! The rule, written once for every queue: a job is held until its lease runs out; its holder
//! renews the lease of every job it still has in flight, [`RENEWALS_PER_LEASE`] times per
//! lease, for as long as the attempt runs (an attempt's own time limit cuts it, never the
//! lease); a job whose lease ran out belongs to whoever claims it next. A holder that is killed
//! stops renewing, so its jobs are free one lease after its last renewal, however long their
//! attempts could have taken.

use std::collections::BTreeMap;

use time::OffsetDateTime;
use uuid::Uuid;

use super::Job;
use crate::ids::HolderId;

/// How many times per lease a holder renews the leases of its jobs in flight: two renewals may
/// be late or lost (a busy pool, a slow statement) before a living holder's jobs look
/// abandoned.
pub const RENEWALS_PER_LEASE: u32 = 3;

/// The terms of one claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lease {
    /// Who holds the jobs: the worker process, which renews the lease while it attempts them.
    pub holder: HolderId,
    /// This claim's fence: an outcome is recorded only while its job is still held under it.
    pub token: Uuid,
    /// When the jobs are free again unless the holder renews their lease first.
    pub until: OffsetDateTime,
}

/// Jobs a claim took from one holder whose lease had run out (it stopped renewing: killed, or
/// cut off from the store for longer than a lease).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Takeover {
    /// The holder; `None` for jobs claimed by a version that named no holder.
    pub from: Option<HolderId>,
    /// How many of its jobs.
    pub jobs: u64,
}

impl Takeover {
    /// The takeovers of a claim, one per former holder, from the former holder of each job it
    /// took over.
    ///
    /// ```
    /// # use procflow_domain::ids::HolderId;
    /// # use procflow_domain::queue::Takeover;
    /// let (a, b) = (HolderId::from_uuid(uuid::Uuid::from_u128(1)), HolderId::from_uuid(uuid::Uuid::from_u128(2)));
    /// let tally = Takeover::tally([Some(b), Some(a), Some(b), None]);
    /// assert_eq!(tally, vec![
    ///     Takeover { from: None, jobs: 1 },
    ///     Takeover { from: Some(a), jobs: 1 },
    ///     Takeover { from: Some(b), jobs: 2 },
    /// ]);
    /// assert!(Takeover::tally([]).is_empty());
    /// ```
    #[must_use]
    pub fn tally(former: impl IntoIterator<Item = Option<HolderId>>) -> Vec<Self> {
        let mut jobs: BTreeMap<Option<HolderId>, u64> = BTreeMap::new();
        for holder in former {
            *jobs.entry(holder).or_default() += 1;
        }
        jobs.into_iter()
            .map(|(from, jobs)| Self { from, jobs })
            .collect()
    }
}

/// What one claim took: the jobs, and which of them it took over from a holder gone.
#[derive(Debug)]
pub struct Claim<J: Job> {
    /// The jobs, oldest due first, held under the claim's [`Lease`].
    pub jobs: Vec<J::Claimed>,
    /// Of `jobs`, those whose lease had run out while held, by former holder.
    pub taken_over: Vec<Takeover>,
}

impl<J: Job> Claim<J> {
    /// How many of its jobs were taken over.
    #[must_use]
    pub fn count_taken_over(&self) -> u64 {
        self.taken_over.iter().map(|t| t.jobs).sum()
    }
}

impl<J: Job> Default for Claim<J> {
    fn default() -> Self {
        Self {
            jobs: Vec::new(),
            taken_over: Vec::new(),
        }
    }
}
