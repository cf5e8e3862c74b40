//! The admission gate of every API request: asks the shared [`RateLimiter`] to find the API key
//! and count the request (one store call for both), and turns the outcome into the
//! `RateLimit-*` and `Retry-After` headers (API contract 3). In front of the limiter, the
//! instance's [`LocalGate`] refuses from memory what the limiter would certainly refuse: a key
//! the limiter refused, until its refusal ends, and a key this instance alone already had the
//! limit of requests admitted for in the window (crate::admission says why that is exact).
//!
//! The memory is keyed by the SHA-256 of the API key's secret, so a blocked key is refused
//! before it is even looked up ([`RateLimitGate::cached_refusal`]). What the memory cannot
//! know, a key revoked or a team's subscription changed since, is reported by the store's
//! [`KeyChanges`] feed: [`forget_changed_keys`] drops what is known about those keys as the
//! change commits, so the next request asks the limiter and is answered 401 or 403. While the
//! feed is down (it reports `Any` when it reconnects, which forgets everything), such a key
//! answers 429 until its block ends, at most one window; either way it does nothing.
//!
//! The gate also remembers whom each key was last admitted for ([`RateLimitGate::last_admitted`]):
//! a guess that lets a read start before its admission answers (crate::auth), never a
//! decision. It is dropped with the key's other memory, and at the key's first refusal.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use procflow_domain::error::DomainError;
use procflow_domain::ports::{Clock, KeyChange, KeyChanges, RateLimiter};
use procflow_domain::team::{ApiKey, Team};
use time::{Duration, OffsetDateTime};

use crate::admission::LocalGate;

/// The rolling window of the limit: `per_minute` requests in any 60 seconds.
pub const WINDOW: Duration = Duration::seconds(60);

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

/// Keys whose latest admission this instance remembers, at most (one is forgotten to make
/// room for another): a few MiB.
const KNOWN_KEYS: usize = 16_384;

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

/// Admits or refuses each API request by its API key. Shared by all workers; each asks its own
/// limiter (the store its connections are on), so the gate holds none.
pub struct RateLimitGate {
    clock: Arc<dyn Clock>,
    limit: u32,
    /// What this instance knows about each key hash.
    local: LocalGate<KeyHash>,
    /// The key and team of each key's latest admission by this instance: whom a read of the
    /// key runs for beside its admission (crate::auth).
    known: Mutex<HashMap<KeyHash, (ApiKey, Team)>>,
}

impl std::fmt::Debug for RateLimitGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimitGate")
            .field("limit", &self.limit)
            .field("keys_in_memory", &self.blocked_len())
            .finish_non_exhaustive()
    }
}

impl RateLimitGate {
    /// A gate accepting `per_minute` requests per key in any rolling 60 seconds.
    #[must_use]
    pub fn new(clock: Arc<dyn Clock>, per_minute: u32) -> Self {
        Self {
            clock,
            limit: per_minute,
            local: LocalGate::default(),
            known: Mutex::new(HashMap::new()),
        }
    }

    /// The key and team the limiter last admitted the key whose secret hashes to `key_hash`
    /// for, on this instance, unless the limiter would certainly refuse it now or the key may
    /// have changed since (a key change was reported). A guess for work that may run before
    /// the request is admitted: the admission decides, and what it finds is what counts.
    #[must_use]
    pub fn last_admitted(&self, key_hash: &KeyHash) -> Option<(ApiKey, Team)> {
        if self.cached_refusal(key_hash).is_some() {
            return None;
        }
        self.known().get(key_hash).cloned()
    }

    /// Whether a request of the key whose secret hashes to `key_hash` would be asked of the
    /// limiter at once, not after waiting for its turn behind others of the key (see
    /// [`LocalGate`]): a write that holds locks while it is admitted must not wait there.
    #[must_use]
    pub fn turn_free(&self, key_hash: &KeyHash) -> bool {
        self.local
            .existing(key_hash)
            .is_none_or(|slot| slot.turn_free())
    }

    fn known(&self) -> std::sync::MutexGuard<'_, HashMap<KeyHash, (ApiKey, Team)>> {
        self.known.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Remembers whom `key_hash` was admitted for, copying only what changed.
    fn remember(&self, key_hash: KeyHash, key: &ApiKey, team: &Team) {
        let mut known = self.known();
        if let Some((known_key, known_team)) = known.get(&key_hash)
            && known_key == key
            && known_team == team
        {
            return;
        }
        if known.len() >= KNOWN_KEYS
            && !known.contains_key(&key_hash)
            && let Some(any) = known.keys().next().copied()
        {
            known.remove(&any);
        }
        known.insert(key_hash, (key.clone(), team.clone()));
    }

    /// The refusal of a key that the limiter would certainly refuse now (refused earlier and
    /// its block not ended, or this instance's own admissions at the limit); `None` otherwise.
    /// Reads memory only: call it before any other work for the request.
    #[must_use]
    pub fn cached_refusal(&self, key_hash: &KeyHash) -> Option<Refusal> {
        let now = self.clock.now();
        let until = self
            .local
            .existing(key_hash)?
            .certain_refusal(now, self.limit, WINDOW)?;
        Some(self.limited(until, now))
    }

    /// Admits a request presenting the key whose secret hashes to `key_hash`: finds the key
    /// and its team and counts the request, in one call to `limiter`. What the limiter would
    /// certainly refuse is refused from memory without calling it; while a few requests of the
    /// key are with the limiter, the others wait their turn here (crate::admission).
    ///
    /// # Errors
    /// [`Refusal::UnknownKey`], [`Refusal::InactiveTeam`]; [`Refusal::Limited`] over the limit;
    /// [`Refusal::Store`] when the limiter fails (not remembered: the next request asks again).
    pub async fn admit(
        &self,
        limiter: &dyn RateLimiter,
        key_hash: KeyHash,
    ) -> Result<Admitted, Refusal> {
        let slot = self.local.slot(&key_hash, self.clock.now(), WINDOW);
        let certain = |now| slot.certain_refusal(now, self.limit, WINDOW);
        let now = self.clock.now();
        if let Some(until) = certain(now) {
            return Err(self.limited(until, now));
        }
        let _turn = slot.turn().await;
        // What the limiter answered the requests this one waited behind.
        let now = self.clock.now();
        if let Some(until) = certain(now) {
            return Err(self.limited(until, now));
        }
        let Some(admission) = limiter.admit(&key_hash, now, self.limit, WINDOW).await? else {
            self.known().remove(&key_hash);
            return Err(Refusal::UnknownKey);
        };
        let Some(decision) = admission.rate else {
            self.known().remove(&key_hash);
            return Err(Refusal::InactiveTeam);
        };
        if decision.allowed {
            slot.admitted(now, WINDOW);
            self.remember(key_hash, &admission.key, &admission.team);
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
        slot.refused(decision.reset_at);
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

    /// Forgets what is remembered about keys that `change` may concern.
    pub fn forget(&self, change: &KeyChange) {
        match change {
            KeyChange::Revoked(key_hash) => {
                self.local.forget(key_hash);
                self.known().remove(key_hash);
            }
            KeyChange::Any => {
                self.local.forget_all();
                self.known().clear();
            }
        }
    }

    /// Keys this instance has something in memory for.
    fn blocked_len(&self) -> usize {
        self.local.len()
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
