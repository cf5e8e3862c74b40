//! `WindowLimiter` in memory: each name's counters, decided by
//! [`window::admit`](procflow_domain::window::admit) under the store's one lock (so exact under
//! any concurrency).

use async_trait::async_trait;
use time::{Duration, OffsetDateTime};

use crate::store::InMemoryStore;
use procflow_domain::error::DomainResult;
use procflow_domain::ports::WindowLimiter;
use procflow_domain::window::{self, SecondCounts, WindowLimit, WindowsDecision};

#[async_trait]
impl WindowLimiter for InMemoryStore {
    async fn decide_all(
        &self,
        limits: &[WindowLimit],
        now: OffsetDateTime,
        window: Duration,
    ) -> DomainResult<WindowsDecision> {
        let mut state = self.state();
        let mut counts: Vec<SecondCounts> = limits
            .iter()
            .map(|limit| state.windows.remove(&limit.name).unwrap_or_default())
            .collect();
        let decision = {
            let mut refs: Vec<&mut SecondCounts> = counts.iter_mut().collect();
            window::admit(&mut refs, limits, now, window)
        };
        for (limit, count) in limits.iter().zip(counts) {
            if count.total() > 0 {
                state.windows.insert(limit.name.clone(), count);
            }
        }
        Ok(decision)
    }
}
