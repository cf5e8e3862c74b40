//! `Outbox` in memory: leases as PostgreSQL keeps them, stored forms read on each claim.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::store::InMemoryStore;
use procflow_domain::error::DomainResult;
use procflow_domain::event::from_stored;
use procflow_domain::ids::EventId;
use procflow_domain::ports::{DeadEvent, Outbox, OutboxEntry};

#[async_trait]
impl Outbox for InMemoryStore {
    async fn claim(
        &self,
        limit: usize,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
    ) -> DomainResult<Vec<OutboxEntry>> {
        let mut state = self.state();
        let mut due: Vec<_> = state
            .outbox
            .iter_mut()
            .filter(|row| {
                !row.delivered
                    && row.dead.is_none()
                    && row.due_at <= now
                    && row.leased_until.is_none_or(|l| l <= now)
            })
            .collect();
        due.sort_by_key(|row| (row.due_at, row.id));
        Ok(due
            .into_iter()
            .take(limit)
            .map(|row| {
                row.leased_until = Some(lease_until);
                OutboxEntry {
                    id: row.id,
                    kind: row.kind.clone(),
                    event: from_stored(row.payload.clone()),
                    attempts: row.attempts,
                }
            })
            .collect())
    }

    async fn complete(&self, ids: &[EventId]) -> DomainResult<()> {
        for row in &mut self.state().outbox {
            if ids.contains(&row.id) && !row.delivered {
                row.delivered = true;
                row.leased_until = None;
            }
        }
        Ok(())
    }

    async fn set_aside(&self, dead: &[(EventId, String)], at: OffsetDateTime) -> DomainResult<()> {
        for row in &mut self.state().outbox {
            if row.delivered {
                continue;
            }
            if let Some((_, error)) = dead.iter().find(|(id, _)| *id == row.id) {
                row.dead = Some((at, error.clone()));
                row.leased_until = None;
            }
        }
        Ok(())
    }

    async fn dead_events(&self, limit: usize) -> DomainResult<Vec<DeadEvent>> {
        let state = self.state();
        let mut dead: Vec<DeadEvent> = state
            .outbox
            .iter()
            .filter_map(|row| {
                let (dead_at, error) = row.dead.clone()?;
                Some(DeadEvent {
                    id: row.id,
                    team_id: row.team_id,
                    kind: row.kind.clone(),
                    occurred_at: row.occurred_at,
                    dead_at,
                    error,
                })
            })
            .collect();
        dead.sort_by_key(|event| (event.dead_at, event.id));
        dead.truncate(limit);
        Ok(dead)
    }

    async fn requeue(&self, id: EventId, now: OffsetDateTime) -> DomainResult<bool> {
        let mut state = self.state();
        let Some(row) = state
            .outbox
            .iter_mut()
            .find(|row| row.id == id && row.dead.is_some())
        else {
            return Ok(false);
        };
        row.dead = None;
        row.due_at = now;
        row.leased_until = None;
        Ok(true)
    }

    async fn sweep_events(&self, before: OffsetDateTime) -> DomainResult<u64> {
        let mut state = self.state();
        let count = state.outbox.len();
        state
            .outbox
            .retain(|row| !(row.delivered && row.occurred_at < before));
        Ok(u64::try_from(count - state.outbox.len()).unwrap_or(u64::MAX))
    }

    async fn retry(&self, id: EventId, retry_at: OffsetDateTime, _error: &str) -> DomainResult<()> {
        if let Some(row) = self
            .state()
            .outbox
            .iter_mut()
            .find(|row| row.id == id && !row.delivered)
        {
            row.attempts += 1;
            row.due_at = retry_at;
            row.leased_until = None;
        }
        Ok(())
    }
}
