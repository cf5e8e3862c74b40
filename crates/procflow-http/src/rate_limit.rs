//! The admission gate of every API request: asks the shared [`RateLimiter`] to find the API key
//! and count the request (one store call for both), remembers rate-limit refusals in memory
//! until they end, and turns the outcome into the `RateLimit-*` and `Retry-After` headers (API
//! contract 3).
//!
//! A refusal is exact, not a guess: the limiter refuses until its oldest counted request leaves
//! the window (`reset_at`), refused requests are not counted, and counted ones only leave by
//! time, so every request of that key before `reset_at` would be refused too. The gate answers
//! them from memory, without a database round trip, on this instance; other instances learn
//! the same from their own first refusal.
//!
//! The memory is keyed by the SHA-256 of the API key's secret, so the auth layer can refuse a
//! blocked key before it even looks the key up ([`RateLimitGate::cached_refusal`]). What the
//! memory cannot know, a key revoked or a team's subscription changed since, is reported by
//! the store's [`KeyChanges`] feed: [`forget_changed_keys`] drops those refusals as the change
//! commits, so the next request asks the limiter and is answered 401 or 403. While the feed is
//! down (it reports `Any` when it reconnects, which forgets everything), such a key answers 429
//! until its block ends, at most one window; either way it does nothing.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock, Weak};

use procflow_domain::error::DomainError;
use procflow_domain::ports::{Clock, KeyChange, KeyChanges, RateLimiter};
use procflow_domain::team::{ApiKey, Team};
use time::{Duration, OffsetDateTime};

/// The rolling window of the limit: `per_minute` requests in any 60 seconds.
pub const WINDOW: Duration = Duration::seconds(60);

/// The refusal memory is swept of ended blocks when it reaches this size (or twice its size
/// after the last sweep, whichever is larger), so it holds at most about twice the keys blocked
/// at one time.
const MIN_SWEEP_LEN: usize = 1024;

/// The SHA-256 of an API key's secret, as `crate::keys::hash` makes it.
pub type KeyHash = [u8; 32];

/// The state of a key's limit after an accepted request, for the `RateLimit-*` headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quota {
    /// Requests accepted per window (`RateLimit-Limit`).
    pub limit: u32,
    /// Requests still accepted now (`RateLimit-Remaining`).
    pub remaining: u32,
    /// Whole seconds, rounded up, until one more request is accepted: the oldest counted
    /// request leaves the window then (`RateLimit-Reset`).
    pub reset_secs: u64,
}

/// A request the gate let through: whose it is, and its quota.
#[derive(Clone, Debug)]
pub struct Admitted {
    /// The key presented.
    pub key: ApiKey,
    /// Its team, active.
    pub team: Team,
    /// The key's limit after this request.
    pub quota: Quota,
}

/// Why a request was not admitted.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// No unrevoked key has this secret: 401.
    #[error("unknown or revoked API key")]
    UnknownKey,
    /// The key's team is not active: 403. The request was not counted.
    #[error("the team's subscription is not active")]
    InactiveTeam,
    /// Over the limit: 429 `rate_limited`.
    #[error("rate limited; retry after {retry_after_secs} s")]
    Limited {
        /// The key's state: nothing remaining, `reset_secs` = `retry_after_secs`.
        quota: Quota,
        /// Whole seconds, rounded up and at least 1, until a request is accepted again
        /// (`Retry-After`).
        retry_after_secs: u64,
    },
    /// The limiter's store failed; the request is neither admitted nor refused for its rate.
    #[error(transparent)]
    Store(#[from] DomainError),
}

/// Admits or refuses each API request by its API key. Shared by all workers.
pub struct RateLimitGate {
    limiter: Arc<dyn RateLimiter>,
    clock: Arc<dyn Clock>,
    limit: u32,
    /// Key hash → the moment its refusal ends.
    blocked: RwLock<Blocked>,
}

struct Blocked {
    until: HashMap<KeyHash, OffsetDateTime>,
    sweep_at_len: usize,
}

impl std::fmt::Debug for RateLimitGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimitGate")
            .field("limit", &self.limit)
            .field("blocked_keys", &self.blocked_len())
            .finish_non_exhaustive()
    }
}

impl RateLimitGate {
    /// A gate accepting `per_minute` requests per key in any rolling 60 seconds.
    #[must_use]
    pub fn new(limiter: Arc<dyn RateLimiter>, clock: Arc<dyn Clock>, per_minute: u32) -> Self {
        Self {
            limiter,
            clock,
            limit: per_minute,
            blocked: RwLock::new(Blocked {
                until: HashMap::new(),
                sweep_at_len: MIN_SWEEP_LEN,
            }),
        }
    }

    /// The refusal of a key refused earlier whose block has not ended yet; `None` otherwise.
    /// Reads memory only: call it before any other work for the request.
    #[must_use]
    pub fn cached_refusal(&self, key_hash: &KeyHash) -> Option<Refusal> {
        let now = self.clock.now();
        let until = *self
            .blocked
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .until
            .get(key_hash)?;
        (until > now).then(|| self.limited(until, now))
    }

    /// Admits a request presenting the key whose secret hashes to `key_hash`: finds the key
    /// and its team and counts the request, in one call to the limiter. A key refused earlier
    /// is refused from memory until its block ends, without calling the limiter.
    ///
    /// # Errors
    /// [`Refusal::UnknownKey`], [`Refusal::InactiveTeam`]; [`Refusal::Limited`] over the limit;
    /// [`Refusal::Store`] when the limiter fails (not remembered: the next request asks again).
    pub async fn admit(&self, key_hash: KeyHash) -> Result<Admitted, Refusal> {
        if let Some(refusal) = self.cached_refusal(&key_hash) {
            return Err(refusal);
        }
        let now = self.clock.now();
        let admission = self
            .limiter
            .admit(&key_hash, now, self.limit, WINDOW)
            .await?
            .ok_or(Refusal::UnknownKey)?;
        let decision = admission.rate.ok_or(Refusal::InactiveTeam)?;
        if decision.allowed {
            return Ok(Admitted {
                key: admission.key,
                team: admission.team,
                quota: Quota {
                    limit: self.limit,
                    remaining: decision.remaining,
                    reset_secs: whole_seconds_until(decision.reset_at, now),
                },
            });
        }
        self.remember(key_hash, decision.reset_at, now);
        Err(self.limited(decision.reset_at, now))
    }

    fn limited(&self, until: OffsetDateTime, now: OffsetDateTime) -> Refusal {
        let retry_after_secs = whole_seconds_until(until, now).max(1);
        Refusal::Limited {
            quota: Quota {
                limit: self.limit,
                remaining: 0,
                reset_secs: retry_after_secs,
            },
            retry_after_secs,
        }
    }

    fn remember(&self, key_hash: KeyHash, until: OffsetDateTime, now: OffsetDateTime) {
        let mut blocked = self.blocked.write().unwrap_or_else(PoisonError::into_inner);
        if blocked.until.len() >= blocked.sweep_at_len {
            blocked.until.retain(|_, until| *until > now);
            blocked.sweep_at_len = MIN_SWEEP_LEN.max(2 * blocked.until.len());
        }
        blocked.until.insert(key_hash, until);
    }

    /// Forgets what is remembered about keys that `change` may concern.
    pub fn forget(&self, change: &KeyChange) {
        let mut blocked = self.blocked.write().unwrap_or_else(PoisonError::into_inner);
        match change {
            KeyChange::Revoked(key_hash) => {
                blocked.until.remove(key_hash);
            }
            KeyChange::Any => blocked.until.clear(),
        }
    }

    fn blocked_len(&self) -> usize {
        self.blocked
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .until
            .len()
    }
}

/// Applies every change `changes` reports to `gate`, while the gate is in use: the loop ends
/// at the first change after the gate was dropped.
pub async fn forget_changed_keys(gate: Weak<RateLimitGate>, changes: Arc<dyn KeyChanges>) {
    loop {
        let change = changes.next().await;
        let Some(gate) = gate.upgrade() else {
            return;
        };
        if let KeyChange::Revoked(_) = change {
            tracing::debug!("a key was revoked; its remembered refusal is dropped");
        }
        gate.forget(&change);
    }
}

/// The task following key changes beside a server, stopped when this is dropped (with the
/// server's state), so that no task or `LISTEN` connection outlives the server.
#[derive(Debug)]
pub struct KeyChangeFollower(Option<tokio::task::AbortHandle>);

impl KeyChangeFollower {
    /// Spawns [`forget_changed_keys`] on the current runtime; without one, follows nothing
    /// (logged: a key revoked while blocked then answers 429 until its window ends).
    #[must_use]
    pub fn spawn(gate: &Arc<RateLimitGate>, changes: Arc<dyn KeyChanges>) -> Self {
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                let task = runtime.spawn(forget_changed_keys(Arc::downgrade(gate), changes));
                Self(Some(task.abort_handle()))
            }
            Err(_) => {
                tracing::warn!(
                    "no runtime to follow key changes on: a key revoked while rate-limited answers 429 until its window ends"
                );
                Self(None)
            }
        }
    }
}

impl Drop for KeyChangeFollower {
    fn drop(&mut self) {
        if let Some(task) = self.0.take() {
            task.abort();
        }
    }
}

/// Whole seconds from `now` to `moment`, rounded up; 0 when it has passed.
fn whole_seconds_until(moment: OffsetDateTime, now: OffsetDateTime) -> u64 {
    let left = moment - now;
    if left <= Duration::ZERO {
        return 0;
    }
    let rounded_up = left.whole_seconds() + i64::from(left.subsec_nanoseconds() > 0);
    u64::try_from(rounded_up).unwrap_or(0)
}

/// The rate-limit response headers as plain `(name, value)` pairs, free of any HTTP library.
/// Names are lowercase (HTTP names are case-insensitive; `HeaderName::from_static` takes only
/// lowercase).
pub mod headers {
    use super::{Quota, Refusal};

    /// `RateLimit-Limit`: requests accepted per window.
    pub const LIMIT: &str = "ratelimit-limit";
    /// `RateLimit-Remaining`: requests still accepted now.
    pub const REMAINING: &str = "ratelimit-remaining";
    /// `RateLimit-Reset`: whole seconds until one more request is accepted.
    pub const RESET: &str = "ratelimit-reset";
    /// `Retry-After`: whole seconds (at least 1) until a refused key is accepted again.
    pub const RETRY_AFTER: &str = "retry-after";

    /// The headers of an admitted request's response.
    #[must_use]
    pub fn for_quota(quota: &Quota) -> [(&'static str, String); 3] {
        [
            (LIMIT, quota.limit.to_string()),
            (REMAINING, quota.remaining.to_string()),
            (RESET, quota.reset_secs.to_string()),
        ]
    }

    /// The headers of a refusal's response: the three of [`for_quota`] and `Retry-After` for
    /// [`Refusal::Limited`]; none for the others (nothing was counted).
    #[must_use]
    pub fn for_refusal(refusal: &Refusal) -> Vec<(&'static str, String)> {
        match refusal {
            Refusal::Limited {
                quota,
                retry_after_secs,
            } => {
                let mut pairs = for_quota(quota).to_vec();
                pairs.push((RETRY_AFTER, retry_after_secs.to_string()));
                pairs
            }
            Refusal::UnknownKey | Refusal::InactiveTeam | Refusal::Store(_) => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;
