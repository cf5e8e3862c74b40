//! `RateLimiter` in memory: per key, the log of its accepted requests still in the window, kept
//! as PostgreSQL keeps it, decided under the store's one lock (so exact under any concurrency).

use std::collections::HashMap;

use async_trait::async_trait;
use time::{Duration, OffsetDateTime};

use super::store::InMemoryStore;
use crate::error::DomainResult;
use crate::ids::{ApiKeyId, TeamId};
use crate::ports::{Admission, RateDecision, RateLimiter};

/// Each key's accepted requests, oldest first.
pub(super) type RateLogs = HashMap<(TeamId, ApiKeyId), Vec<OffsetDateTime>>;

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
        let rate = count(log, now, limit, window);
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

/// Decides a request at `now` against `log` and records it when accepted.
///
/// Only the hits still in the window count (`> now - window`), and of those only the newest
/// `limit` can matter for this limit, so the log keeps no more: it stays bounded, and a lowered
/// limit applies at once.
fn count(
    log: &mut Vec<OffsetDateTime>,
    now: OffsetDateTime,
    limit: u32,
    window: Duration,
) -> RateDecision {
    let since = now - window;
    log.retain(|hit| *hit > since);
    let limit_len = usize::try_from(limit).unwrap_or(usize::MAX);
    let excess = log.len().saturating_sub(limit_len);
    log.drain(..excess);
    let allowed = log.len() < limit_len;
    if allowed {
        // Callers' clocks need not agree: keep the log in order whatever `now` is.
        let at = log.partition_point(|hit| *hit <= now);
        log.insert(at, now);
    }
    let counted = u32::try_from(log.len()).unwrap_or(u32::MAX);
    RateDecision {
        allowed,
        remaining: limit.saturating_sub(counted),
        // Accepted: when the oldest counted hit leaves the window and a slot frees up.
        // Refused: the same moment, the first at which a request can be accepted again.
        reset_at: log.first().copied().unwrap_or(now) + window,
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    const T0: OffsetDateTime = datetime!(2026-03-01 9:00 UTC);
    const MINUTE: Duration = Duration::minutes(1);

    #[test]
    fn a_hit_older_than_the_others_is_kept_in_order() {
        let mut log = vec![T0 + Duration::seconds(10)];
        assert!(count(&mut log, T0, 5, MINUTE).allowed);
        assert_eq!(log, [T0, T0 + Duration::seconds(10)]);
    }

    #[test]
    fn only_the_newest_limit_hits_are_kept() {
        let mut log: Vec<_> = (0..5).map(|s| T0 + Duration::seconds(s)).collect();
        let decision = count(&mut log, T0 + Duration::seconds(5), 2, MINUTE);
        assert!(!decision.allowed);
        assert_eq!(log, [T0 + Duration::seconds(3), T0 + Duration::seconds(4)]);
        assert_eq!(decision.reset_at, T0 + Duration::seconds(63));
    }
}
