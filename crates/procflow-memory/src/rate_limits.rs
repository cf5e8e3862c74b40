//! `RateLimiter` in memory: per key, one counter per second of the window, kept as PostgreSQL
//! keeps them, decided under the store's one lock (so exact under any concurrency).

use async_trait::async_trait;
use time::{Duration, OffsetDateTime};

use crate::store::InMemoryStore;
use procflow_domain::error::DomainResult;
use procflow_domain::ports::{Admission, RateLimiter};
use procflow_domain::window::{WindowLimit, admit};

#[async_trait]
impl RateLimiter for InMemoryStore {
    async fn admit(
        &self,
        key_hash: &[u8; 32],
        now: OffsetDateTime,
        limit: u32,
        window: Duration,
    ) -> DomainResult<Option<Admission>> {
        let mut state = self.state();
        let Some((key, team)) = state.key_and_team(key_hash) else {
            return Ok(None);
        };
        if !team.is_active() {
            return Ok(Some(Admission {
                key,
                team,
                rate: None,
            }));
        }
        let counts = state.rate_limits.entry((team.id, key.id)).or_default();
        // The domain's rolling-window rule, the one the guest page's windows use too.
        let rate = admit(
            &mut [counts],
            &[WindowLimit {
                name: String::new(),
                limit,
            }],
            now,
            window,
        )
        .decision;
        Ok(Some(Admission {
            key,
            team,
            rate: Some(rate),
        }))
    }
}

impl InMemoryStore {
    /// How many requests each key's rate-limit counters hold (keys that counted some),
    /// smallest first: for tests that check what was counted.
    #[must_use]
    pub fn rate_limit_logs(&self) -> Vec<usize> {
        let mut sizes: Vec<usize> = self
            .state()
            .rate_limits
            .values()
            .map(|counts| usize::try_from(counts.total()).unwrap_or(usize::MAX))
            .filter(|total| *total > 0)
            .collect();
        sizes.sort_unstable();
        sizes
    }

    /// How many counters each key's rate-limit state holds (one per second of the window,
    /// whatever the traffic), largest first.
    #[must_use]
    pub fn rate_limit_counters(&self) -> Vec<usize> {
        let mut sizes: Vec<usize> = self
            .state()
            .rate_limits
            .values()
            .map(|counts| counts.counts.len())
            .collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        sizes
    }
}
