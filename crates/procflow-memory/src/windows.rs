//! `WindowLimiter` in memory: each name's log of admitted events, decided by
//! [`window::admit`](procflow_domain::window::admit) under the store's one lock (so exact under any
//! concurrency).

use async_trait::async_trait;
use time::{Duration, OffsetDateTime};

use crate::store::InMemoryStore;
use procflow_domain::error::DomainResult;
use procflow_domain::ports::{RateDecision, WindowLimiter};
use procflow_domain::window::{self, WindowLimit};

#[async_trait]
impl WindowLimiter for InMemoryStore {
    async fn admit_all(
        &self,
        limits: &[WindowLimit],
        now: OffsetDateTime,
        window: Duration,
    ) -> DomainResult<RateDecision> {
        let mut state = self.state();
        let mut logs: Vec<Vec<OffsetDateTime>> = limits
            .iter()
            .map(|limit| state.windows.remove(&limit.name).unwrap_or_default())
            .collect();
        let decision = {
            let mut refs: Vec<&mut Vec<OffsetDateTime>> = logs.iter_mut().collect();
            window::admit(&mut refs, limits, now, window)
        };
        for (limit, log) in limits.iter().zip(logs) {
            if !log.is_empty() {
                state.windows.insert(limit.name.clone(), log);
            }
        }
        Ok(decision)
    }
}
