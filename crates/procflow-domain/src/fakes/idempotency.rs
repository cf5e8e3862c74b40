//! `IdempotencyStore` in memory: one record per team and key, claimed under the store's one
//! lock, so exactly one of any number of concurrent claims starts.

use std::collections::HashMap;

use async_trait::async_trait;
use time::OffsetDateTime;

use super::store::InMemoryStore;
use crate::error::DomainResult;
use crate::ids::TeamId;
use crate::ports::{IdempotencyBegin, IdempotencyStore, KeyLifetimes, StoredResponse};

/// The records, by team and `Idempotency-Key`.
pub(super) type IdempotencyRecords = HashMap<(TeamId, String), Record>;

/// What a request that claimed a key left.
#[derive(Debug)]
pub(super) struct Record {
    request_hash: [u8; 32],
    /// `None` while the request runs.
    response: Option<StoredResponse>,
    created_at: OffsetDateTime,
}

impl Record {
    /// Whether `begin` still counts the record at `now`.
    fn live(&self, now: OffsetDateTime, lifetimes: KeyLifetimes) -> bool {
        let lifetime = match self.response {
            Some(_) => lifetimes.answered,
            None => lifetimes.in_flight,
        };
        self.created_at >= now - lifetime
    }

    /// Where a request hashing to `request_hash` stands against this live record.
    fn outcome(&self, request_hash: &[u8; 32]) -> IdempotencyBegin {
        if &self.request_hash != request_hash {
            return IdempotencyBegin::Mismatch;
        }
        match &self.response {
            None => IdempotencyBegin::InFlight,
            Some(response) => IdempotencyBegin::Replay(response.clone()),
        }
    }
}

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
