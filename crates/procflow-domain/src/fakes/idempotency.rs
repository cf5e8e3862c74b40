//! `IdempotencyStore` in memory: one record per team and key, claimed under the store's one
//! lock, so exactly one of any number of concurrent claims starts.

use std::collections::HashMap;

use async_trait::async_trait;
use time::{Duration, OffsetDateTime};

use super::store::InMemoryStore;
use crate::error::DomainResult;
use crate::ids::TeamId;
use crate::ports::{IdempotencyBegin, IdempotencyStore, StoredResponse};

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
        ttl: Duration,
    ) -> DomainResult<IdempotencyBegin> {
        let mut state = self.state();
        let slot = (team, key.to_owned());
        // A record older than the TTL counts as absent: the claim replaces it.
        if let Some(record) = state.idempotency.get(&slot)
            && record.created_at >= now - ttl
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
}
