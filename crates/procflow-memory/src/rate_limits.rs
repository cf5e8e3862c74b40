//! `RateLimiter` in memory: per key, the log of its accepted requests still in the window, kept
//! as PostgreSQL keeps it, decided under the store's one lock (so exact under any concurrency).

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
        let log = state.rate_limits.entry((team.id, key.id)).or_default();
        // The domain's rolling-window rule, the one the guest page's windows use too.
        let rate = admit(
            &mut [log],
            &[WindowLimit {
                name: String::new(),
                limit,
            }],
            now,
            window,
        );
        Ok(Some(Admission {
            key,
            team,
            rate: Some(rate),
        }))
    }
}

impl InMemoryStore {
    /// How many requests each key's rate-limit log holds, smallest first: what the limiter
    /// keeps, for tests that check it stays bounded or that nothing was counted.
    #[must_use]
    pub fn rate_limit_logs(&self) -> Vec<usize> {
        let mut sizes: Vec<usize> = self.state().rate_limits.values().map(Vec::len).collect();
        sizes.sort_unstable();
        sizes
    }
}
