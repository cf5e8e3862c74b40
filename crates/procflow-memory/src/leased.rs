//! The one leased queue in memory, for every kind of job: claims oldest due first under a
//! lease (taking over those whose holder stopped renewing), renewals by holder, outcomes
//! fenced by the lease token, give-backs, the backlog and the sweep, as PostgreSQL's one
//! statement builder (`procflow-postgres`'s `store/queue.rs`) does them. What a job carries
//! and what its outcome changes besides its row is the job's (`StoredJob`, in `state/leased.rs`,
//! implemented beside each job's other ports).

use async_trait::async_trait;
use procflow_domain::error::DomainResult;
use procflow_domain::ids::HolderId;
use procflow_domain::ports::{Backlog, LeasedQueue};
use procflow_domain::queue::{Claim, Lease, Takeover};
use time::OffsetDateTime;

use crate::state::{LeasedRow, Stage, StoredJob};
use crate::store::InMemoryStore;

#[async_trait]
impl<J: StoredJob> LeasedQueue<J> for InMemoryStore {
    async fn claim_due(
        &self,
        limit: usize,
        now: OffsetDateTime,
        lease: &Lease,
    ) -> DomainResult<Claim<J>> {
        let mut state = self.state();
        let rows = J::rows(&mut state);
        let mut due: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i].stage() != Stage::Ended && rows[i].due_at() <= now)
            .collect();
        due.sort_by_key(|&i| (rows[i].due_at(), rows[i].key().1));
        due.truncate(limit);
        // Whose each row was, when its lease had run out: the takeovers to report.
        let former: Vec<Option<Option<HolderId>>> = due
            .iter()
            .map(|&i| (rows[i].stage() == Stage::Held).then(|| rows[i].hold().map(|h| h.holder)))
            .collect();
        for &i in &due {
            rows[i].take(now, lease);
        }
        let mut claim = Claim::default();
        let mut taken_from = Vec::new();
        for (i, former) in due.into_iter().zip(former) {
            if let Some(job) = J::claimed(&state, i, lease.token) {
                claim.jobs.push(job);
                taken_from.extend(former);
            }
        }
        claim.taken_over = Takeover::tally(taken_from);
        Ok(claim)
    }

    async fn renew(&self, holder: HolderId, until: OffsetDateTime) -> DomainResult<u64> {
        let mut renewed = 0;
        for row in J::rows(&mut self.state()) {
            if row.stage() == Stage::Held && row.hold().is_some_and(|h| h.holder == holder) {
                row.renew(until);
                renewed += 1;
            }
        }
        Ok(renewed)
    }

    async fn settle(&self, settled: &[(J::Claimed, J::Settlement)]) -> DomainResult<Vec<bool>> {
        let mut state = self.state();
        Ok(settled
            .iter()
            .map(|(claimed, settlement)| {
                let (key, token) = (J::key(claimed), J::lease(claimed));
                let held = J::rows(&mut state).iter().position(|row| {
                    row.key() == key
                        && row.hold().is_some_and(|h| h.token == token)
                        && row.stage() == Stage::Held
                });
                held.inspect(|&i| J::apply(&mut state, i, settlement))
                    .is_some()
            })
            .collect())
    }

    async fn release(&self, holder: HolderId, now: OffsetDateTime) -> DomainResult<u64> {
        let mut released = 0;
        for row in J::rows(&mut self.state()) {
            if row.stage() == Stage::Held && row.hold().is_some_and(|h| h.holder == holder) {
                row.give_back(now);
                released += 1;
            }
        }
        Ok(released)
    }

    async fn backlog(&self) -> DomainResult<Backlog> {
        let mut state = self.state();
        let waiting = J::rows(&mut state)
            .iter()
            .filter(|row| row.stage() != Stage::Ended);
        Ok(waiting.fold(Backlog::default(), |backlog, row| Backlog {
            pending: backlog.pending + 1,
            oldest: Some(
                backlog
                    .oldest
                    .map_or(row.created_at(), |oldest| oldest.min(row.created_at())),
            ),
        }))
    }

    async fn sweep(&self, before: OffsetDateTime) -> DomainResult<u64> {
        let mut state = self.state();
        let rows = J::rows(&mut state);
        let count = rows.len();
        rows.retain(|row| row.stage() != Stage::Ended || row.created_at() >= before);
        Ok(u64::try_from(count - rows.len()).unwrap_or(u64::MAX))
    }
}
