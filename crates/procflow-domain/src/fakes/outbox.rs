//! `Outbox` in memory: leases as PostgreSQL keeps them.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::store::InMemoryStore;
use crate::error::DomainResult;
use crate::ids::EventId;
use crate::ports::{Outbox, OutboxEntry};

#[async_trait]
impl Outbox for InMemoryStore {
    async fn claim(
        &self,
        limit: usize,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
    ) -> DomainResult<Vec<OutboxEntry>> {
        let mut state = self.state();
        Ok(state
            .outbox
            .iter_mut()
            .filter(|row| {
                !row.delivered && row.due_at <= now && row.leased_until.is_none_or(|l| l <= now)
            })
            .take(limit)
            .map(|row| {
                row.leased_until = Some(lease_until);
                OutboxEntry {
                    event: row.event.clone(),
                    attempts: row.attempts,
                }
            })
            .collect())
    }

    async fn complete(&self, ids: &[EventId]) -> DomainResult<()> {
        for row in &mut self.state().outbox {
            if ids.contains(&row.event.id) {
                row.delivered = true;
            }
        }
        Ok(())
    }

    async fn sweep_events(&self, before: OffsetDateTime) -> DomainResult<u64> {
        let mut state = self.state();
        let count = state.outbox.len();
        state
            .outbox
            .retain(|row| !(row.delivered && row.event.occurred_at < before));
        Ok(u64::try_from(count - state.outbox.len()).unwrap_or(u64::MAX))
    }

    async fn retry(&self, id: EventId, retry_at: OffsetDateTime, _error: &str) -> DomainResult<()> {
        if let Some(row) = self
            .state()
            .outbox
            .iter_mut()
            .find(|row| row.event.id == id)
        {
            row.attempts += 1;
            row.due_at = retry_at;
            row.leased_until = None;
        }
        Ok(())
    }
}
