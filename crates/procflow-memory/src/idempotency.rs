//! `IdempotencyStore` in memory: one record per team and key, claimed under the store's one
//! lock, so exactly one of any number of concurrent claims starts.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::state::Record;
use crate::store::InMemoryStore;
use procflow_domain::error::DomainResult;
use procflow_domain::ids::TeamId;
use procflow_domain::ports::{IdempotencyBegin, IdempotencyStore, KeyLifetimes, StoredResponse};

#[async_trait]
impl IdempotencyStore for InMemoryStore {
    async fn begin(
        &self,
        team: TeamId,
        key: &str,
        request_hash: &[u8; 32],
        now: OffsetDateTime,
        lifetimes: KeyLifetimes,
    ) -> DomainResult<IdempotencyBegin> {
        let mut state = self.state();
        let slot = (team, key.to_owned());
        // A record past its lifetime counts as absent: the claim replaces it.
        if let Some(record) = state.idempotency.get(&slot)
            && record.live(now, lifetimes)
        {
            return Ok(record.outcome(request_hash));
        }
        state.idempotency.insert(
            slot,
            Record {
                request_hash: *request_hash,
                response: None,
                created_at: now,
            },
        );
        Ok(IdempotencyBegin::Started)
    }

    async fn finish(
        &self,
        team: TeamId,
        key: &str,
        response: &StoredResponse,
        _now: OffsetDateTime,
    ) -> DomainResult<()> {
        let mut state = self.state();
        // Only a request still in flight records its response: a finished one keeps its own.
        if let Some(record) = state.idempotency.get_mut(&(team, key.to_owned()))
            && record.response.is_none()
        {
            record.response = Some(response.clone());
        }
        Ok(())
    }

    async fn abandon(&self, team: TeamId, key: &str) -> DomainResult<()> {
        let mut state = self.state();
        let slot = (team, key.to_owned());
        // A finished request's response stays to be replayed.
        if state
            .idempotency
            .get(&slot)
            .is_some_and(|record| record.response.is_none())
        {
            state.idempotency.remove(&slot);
        }
        Ok(())
    }

    async fn sweep_keys(&self, now: OffsetDateTime, lifetimes: KeyLifetimes) -> DomainResult<u64> {
        let mut state = self.state();
        let before = state.idempotency.len();
        state
            .idempotency
            .retain(|_, record| record.live(now, lifetimes));
        Ok((before - state.idempotency.len()) as u64)
    }
}
