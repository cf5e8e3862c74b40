//! The one leased queue in memory, for every kind of job: claims oldest due first under a
//! lease, outcomes fenced by it, give-backs, the backlog and the sweep, as PostgreSQL's one
//! statement builder (`procflow-postgres`'s `store/queue.rs`) does them. What a job carries
//! and what its outcome changes besides its row is the job's (`StoredJob`, in `state/leased.rs`,
//! implemented beside each job's other ports).

use async_trait::async_trait;
use procflow_domain::error::DomainResult;
use procflow_domain::ports::{Backlog, LeasedQueue};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::state::{LeasedRow, Stage, StoredJob};
use crate::store::InMemoryStore;

#[async_trait]
impl<J: StoredJob> LeasedQueue<J> for InMemoryStore {
    async fn claim_due(
        &self,
        limit: usize,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        lease: Uuid,
    ) -> DomainResult<Vec<J::Claimed>> {
        let mut state = self.state();
        let rows = J::rows(&mut state);
        let mut due: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i].stage() != Stage::Ended && rows[i].due_at() <= now)
            .collect();
        due.sort_by_key(|&i| (rows[i].due_at(), rows[i].key().1));
        due.truncate(limit);
        for &i in &due {
            rows[i].take(now, lease_until, lease);
        }
        Ok(due
            .into_iter()
            .filter_map(|i| J::claimed(&state, i, lease))
            .collect())
    }

    async fn settle(&self, settled: &[(J::Claimed, J::Settlement)]) -> DomainResult<Vec<bool>> {
        let mut state = self.state();
        Ok(settled
            .iter()
            .map(|(claimed, settlement)| {
                let (key, lease) = (J::key(claimed), J::lease(claimed));
                let held = J::rows(&mut state).iter().position(|row| {
                    row.key() == key && row.lease() == Some(lease) && row.stage() == Stage::Held
                });
                held.inspect(|&i| J::apply(&mut state, i, settlement))
                    .is_some()
            })
            .collect())
    }

    async fn release(&self, lease: Uuid, now: OffsetDateTime) -> DomainResult<u64> {
        let mut released = 0;
        for row in J::rows(&mut self.state()) {
            if row.lease() == Some(lease) && row.stage() == Stage::Held {
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
