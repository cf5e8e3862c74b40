//! The idempotency records the store keeps.

use std::collections::HashMap;

use procflow_domain::ids::TeamId;
use procflow_domain::ports::{IdempotencyBegin, KeyLifetimes, StoredResponse};
use time::OffsetDateTime;

/// The records, by team and `Idempotency-Key`.
pub(crate) type IdempotencyRecords = HashMap<(TeamId, String), Record>;

/// What a request that claimed a key left.
#[derive(Debug)]
pub(crate) struct Record {
    pub(crate) request_hash: [u8; 32],
    /// `None` while the request runs.
    pub(crate) response: Option<StoredResponse>,
    pub(crate) created_at: OffsetDateTime,
}

impl Record {
    /// Whether `begin` still counts the record at `now`.
    pub(crate) fn live(&self, now: OffsetDateTime, lifetimes: KeyLifetimes) -> bool {
        let lifetime = match self.response {
            Some(_) => lifetimes.answered,
            None => lifetimes.in_flight,
        };
        self.created_at >= now - lifetime
    }

    /// Where a request hashing to `request_hash` stands against this live record.
    pub(crate) fn outcome(&self, request_hash: &[u8; 32]) -> IdempotencyBegin {
        if &self.request_hash != request_hash {
            return IdempotencyBegin::Mismatch;
        }
        match &self.response {
            None => IdempotencyBegin::InFlight,
            Some(response) => IdempotencyBegin::Replay(response.clone()),
        }
    }
}
