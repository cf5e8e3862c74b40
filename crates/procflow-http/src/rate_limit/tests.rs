//! Tests of the rate-limit gate over a fake limiter and a fixed clock.
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use procflow_domain::error::{DomainResult, StoreError};
use procflow_domain::ids::{ApiKeyId, UserId};
use procflow_domain::ports::{Admission, RateDecision};
use procflow_domain::team::Subscription;
use procflow_memory::{FixedClock, InMemoryStore};
use time::macros::datetime;
use uuid::Uuid;

use super::*;

const T0: OffsetDateTime = datetime!(2026-03-01 9:00 UTC);

/// A rolling-window limiter in memory that counts its calls and can be made to fail. Every
/// hash names a key of an active team (key `n` for the hash `[n; 32]`), except the hashes
/// starting with 0xFF (unknown) and 0xEE (a key of an inactive team).
#[derive(Default)]
struct FakeLimiter {
    calls: AtomicUsize,
    failing: std::sync::atomic::AtomicBool,
    hits: Mutex<HashMap<KeyHash, Vec<OffsetDateTime>>>,
}

const UNKNOWN: u8 = 0xFF;
const INACTIVE: u8 = 0xEE;

#[async_trait]
impl RateLimiter for FakeLimiter {
    async fn admit(
        &self,
        key_hash: &KeyHash,
        now: OffsetDateTime,
        limit: u32,
        window: Duration,
    ) -> DomainResult<Option<Admission>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if self.failing.load(Ordering::SeqCst) {
            return Err(StoreError::Unavailable("down".into()).into());
        }
        if key_hash[0] == UNKNOWN {
            return Ok(None);
        }
        let (key, mut team) = key_and_team(key_hash[0]);
        if key_hash[0] == INACTIVE {
            team.subscription = Subscription::Inactive;
            return Ok(Some(Admission {
                key,
                team,
                rate: None,
            }));
        }
        let mut all = self.hits.lock().unwrap();
        let hits = all.entry(*key_hash).or_default();
        hits.retain(|hit| *hit > now - window);
        let allowed = hits.len() < limit as usize;
        if allowed {
            hits.push(now);
        }
        let rate = RateDecision {
            allowed,
            remaining: limit.saturating_sub(u32::try_from(hits.len()).unwrap()),
            reset_at: hits.first().copied().unwrap_or(now) + window,
        };
        Ok(Some(Admission {
            key,
            team,
            rate: Some(rate),
        }))
    }
}

/// Key `n` and its team (the fakes' demo team).
fn key_and_team(n: u8) -> (ApiKey, Team) {
    let team = InMemoryStore::default().demo_team();
    let key = ApiKey {
        id: ApiKeyId::from_uuid(Uuid::from_u128(u128::from(n))),
        team_id: team.id,
        name: None,
        prefix: "pf_live_test".into(),
        created_by: UserId::from_uuid(Uuid::from_u128(0xB)),
        created_at: T0,
        revoked_at: None,
        scope: procflow_domain::team::KeyScope::Write,
    };
    (key, team)
}

struct Setup {
    gate: RateLimitGate,
    limiter: Arc<FakeLimiter>,
    clock: Arc<FixedClock>,
}

impl Setup {
    fn new(per_minute: u32) -> Self {
        let limiter = Arc::new(FakeLimiter::default());
        let clock = Arc::new(FixedClock::at(T0));
        let gate = RateLimitGate::new(clock.clone(), per_minute);
        Self {
            gate,
            limiter,
            clock,
        }
    }

    fn calls(&self) -> usize {
        self.limiter.calls.load(Ordering::SeqCst)
    }

    fn advance_to(&self, seconds: f64) {
        use procflow_domain::ports::Clock;
        let target = T0 + Duration::seconds_f64(seconds);
        self.clock.advance(target - self.clock.now());
    }

    /// The quota of admitting a request with the key whose secret hashes to `hash`.
    async fn admit_hash(&self, hash: KeyHash) -> Result<Quota, Refusal> {
        let admitted = self.gate.admit(&*self.limiter, hash).await?;
        Ok(admitted.quota)
    }

    /// The quota of admitting a request with key `n`, checked to be key `n` of its team.
    async fn admit(&self, n: u8) -> Result<Quota, Refusal> {
        let admitted = self.gate.admit(&*self.limiter, [n; 32]).await?;
        assert_eq!((admitted.key, admitted.team), key_and_team(n));
        Ok(admitted.quota)
    }
}

fn quota(limit: u32, remaining: u32, reset_secs: u64) -> Quota {
    Quota {
        limit,
        remaining,
        reset_secs,
    }
}

/// The `Retry-After` of a refusal; panics on anything else.
fn retry_after(outcome: Result<Quota, Refusal>) -> u64 {
    match outcome {
        Err(Refusal::Limited {
            quota,
            retry_after_secs,
        }) => {
            assert_eq!(quota, self::quota(quota.limit, 0, retry_after_secs));
            retry_after_secs
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn accepted_requests_carry_the_quota_counting_down() {
    let setup = Setup::new(3);
    assert_eq!(setup.admit(1).await.unwrap(), quota(3, 2, 60));
    setup.advance_to(10.5);
    assert_eq!(setup.admit(1).await.unwrap(), quota(3, 1, 50));
    assert_eq!(setup.admit(1).await.unwrap(), quota(3, 0, 50));
    assert_eq!(setup.calls(), 3);
}

#[tokio::test]
async fn once_refused_a_key_is_refused_from_memory_until_its_reset() {
    let setup = Setup::new(2);
    // Another instance's request at 0 s: the limiter counted it, this gate never saw it.
    setup
        .limiter
        .admit(&[1; 32], T0, 2, WINDOW)
        .await
        .unwrap()
        .unwrap();
    setup.advance_to(20.0);
    setup.admit(1).await.unwrap();
    assert_eq!(retry_after(setup.admit(1).await), 40);
    assert_eq!(setup.calls(), 3, "the limiter refused");

    for (at, expected) in [(20.0, 40), (30.2, 30), (59.0, 1), (59.5, 1), (59.999, 1)] {
        setup.advance_to(at);
        assert_eq!(retry_after(setup.admit(1).await), expected, "at {at} s");
        assert!(setup.gate.cached_refusal(&[1; 32]).is_some());
    }
    assert_eq!(setup.calls(), 3, "cached refusals ask nobody");

    // At the reset the oldest hit has left the window: the limiter is asked again.
    setup.advance_to(60.0);
    assert!(setup.gate.cached_refusal(&[1; 32]).is_none());
    assert_eq!(setup.admit(1).await.unwrap(), quota(2, 0, 20));
    assert_eq!(setup.calls(), 4);
    // This instance alone has had 2 requests admitted in the window: refused from memory
    // until the first of them leaves it.
    assert_eq!(retry_after(setup.admit(1).await), 20);
    assert_eq!(setup.calls(), 4);
}

#[tokio::test]
async fn a_refusal_blocks_only_its_own_key() {
    let setup = Setup::new(1);
    setup.admit(1).await.unwrap();
    retry_after(setup.admit(1).await);
    assert!(setup.gate.cached_refusal(&[2; 32]).is_none());
    assert_eq!(setup.admit(2).await.unwrap(), quota(1, 0, 60));
    // Key 1's second request was refused from memory: this instance had its one admitted.
    assert_eq!(setup.calls(), 2);
}

#[tokio::test]
async fn a_reported_key_change_drops_the_remembered_refusals_it_concerns() {
    let setup = Setup::new(1);
    for n in [1, 2, 3] {
        setup.admit(n).await.unwrap();
        retry_after(setup.admit(n).await);
    }
    let changes = Arc::new(procflow_memory::ScriptedKeyChanges::default());
    let gate = Arc::new(setup.gate);
    let follower = KeyChangeFollower::spawn(&gate, changes.clone());
    let blocked = |n: u8| gate.cached_refusal(&[n; 32]).is_some();
    // The feed's task runs when this one yields (a current-thread runtime): a few turns are
    // plenty, a bound keeps a broken feed from hanging the test.
    let settle = || async {
        for _ in 0..100 {
            tokio::task::yield_now().await;
        }
    };

    changes.push(KeyChange::Revoked([2; 32]));
    settle().await;
    assert!(!blocked(2), "the revoked key is forgotten");
    assert!(blocked(1) && blocked(3), "and only it");
    changes.push(KeyChange::Any);
    settle().await;
    assert!(
        !blocked(1) && !blocked(3),
        "anything: everything is forgotten"
    );

    // Dropped with the server's state, the follower stops and lets go of the feed.
    drop(follower);
    settle().await;
    assert_eq!(
        Arc::strong_count(&changes),
        1,
        "the follower's task is gone"
    );
}

#[tokio::test]
async fn retry_after_is_rounded_up_and_at_least_one_second() {
    assert_eq!(whole_seconds_until(T0 + Duration::milliseconds(200), T0), 1);
    assert_eq!(whole_seconds_until(T0 + Duration::seconds(1), T0), 1);
    assert_eq!(
        whole_seconds_until(T0 + Duration::milliseconds(1_001), T0),
        2
    );
    assert_eq!(whole_seconds_until(T0, T0), 0);
    assert_eq!(whole_seconds_until(T0 - Duration::seconds(5), T0), 0);
    let setup = Setup::new(1);
    assert_eq!(retry_after(Err(setup.gate.limited(T0, T0))), 1);
    assert_eq!(
        retry_after(Err(setup.gate.limited(T0 + Duration::microseconds(1), T0))),
        1
    );
}

#[tokio::test]
async fn store_failures_pass_through_and_are_not_remembered() {
    let setup = Setup::new(5);
    setup.limiter.failing.store(true, Ordering::SeqCst);
    assert!(matches!(
        setup.admit(1).await,
        Err(Refusal::Store(DomainError::Store(StoreError::Unavailable(
            _
        ))))
    ));
    setup.limiter.failing.store(false, Ordering::SeqCst);
    assert_eq!(setup.admit(1).await.unwrap(), quota(5, 4, 60));
    assert_eq!(setup.calls(), 2);
}

#[tokio::test]
async fn unknown_keys_and_inactive_teams_are_refused_asking_each_time_and_not_counted() {
    let setup = Setup::new(1);
    for round in 1..=2 {
        assert!(matches!(
            setup.admit(UNKNOWN).await,
            Err(Refusal::UnknownKey)
        ));
        assert!(matches!(
            setup.admit(INACTIVE).await,
            Err(Refusal::InactiveTeam)
        ));
        assert_eq!(setup.calls(), 2 * round, "nothing remembered");
    }
    assert!(setup.gate.cached_refusal(&[UNKNOWN; 32]).is_none());
    assert!(setup.gate.cached_refusal(&[INACTIVE; 32]).is_none());
    assert!(
        setup.limiter.hits.lock().unwrap().is_empty(),
        "nothing counted"
    );
    for refusal in [Refusal::UnknownKey, Refusal::InactiveTeam] {
        assert!(headers::for_refusal(&refusal).is_empty());
    }
}

#[tokio::test]
async fn a_limit_of_zero_refuses_every_request() {
    let setup = Setup::new(0);
    assert_eq!(retry_after(setup.admit(1).await), 60);
    assert_eq!(retry_after(setup.admit(1).await), 60);
    assert_eq!(setup.calls(), 1);
}

#[tokio::test]
async fn the_refusal_memory_forgets_blocks_that_ended() {
    let setup = Setup::new(0);
    for n in 0..3_000_u16 {
        let mut hash = [0; 32];
        hash[1..3].copy_from_slice(&n.to_be_bytes());
        retry_after(setup.admit_hash(hash).await);
    }
    assert_eq!(setup.gate.blocked_len(), 3_000);
    setup.advance_to(61.0);
    for n in 0..3_000_u16 {
        let mut hash = [1; 32];
        hash[1..3].copy_from_slice(&n.to_be_bytes());
        retry_after(setup.admit_hash(hash).await);
    }
    assert_eq!(
        setup.gate.blocked_len(),
        3_000,
        "the 3,000 blocks of 0 s ended and were swept"
    );
}

#[test]
fn headers_name_the_quota_and_the_retry() {
    let quota = quota(100, 0, 42);
    assert_eq!(
        headers::for_quota(&quota),
        [
            ("ratelimit-limit", "100".to_owned()),
            ("ratelimit-remaining", "0".to_owned()),
            ("ratelimit-reset", "42".to_owned()),
        ]
    );
    let refusal = Refusal::Limited {
        quota,
        retry_after_secs: 42,
    };
    let pairs = headers::for_refusal(&refusal);
    assert_eq!(pairs[..3], headers::for_quota(&quota));
    assert_eq!(pairs[3], ("retry-after", "42".to_owned()));
    let failure = Refusal::Store(StoreError::Other("x".into()).into());
    assert!(headers::for_refusal(&failure).is_empty());
    for (name, _) in pairs {
        // Panics on a name actix cannot take as a static header name.
        let _ = actix_web::http::header::HeaderName::from_static(name);
    }
}

#[tokio::test]
async fn the_last_admission_of_a_key_is_known_until_it_is_refused_or_changed() {
    let setup = Setup::new(2);
    assert!(
        setup.gate.last_admitted(&[1; 32]).is_none(),
        "never admitted"
    );
    setup.admit(1).await.unwrap();
    setup.admit(2).await.unwrap();
    setup.admit(3).await.unwrap();
    assert_eq!(setup.gate.last_admitted(&[1; 32]), Some(key_and_team(1)));
    // At its limit on this instance, key 1 is refused from memory: nothing to guess.
    setup.admit(1).await.unwrap();
    assert!(setup.gate.cached_refusal(&[1; 32]).is_some());
    assert!(setup.gate.last_admitted(&[1; 32]).is_none());
    setup.gate.forget(&KeyChange::Revoked([2; 32]));
    assert!(setup.gate.last_admitted(&[2; 32]).is_none(), "revoked");
    assert_eq!(setup.gate.last_admitted(&[3; 32]), Some(key_and_team(3)));
    setup.gate.forget(&KeyChange::Any);
    assert!(
        setup.gate.last_admitted(&[3; 32]).is_none(),
        "anything changed"
    );
}

#[tokio::test]
async fn a_key_the_limiter_no_longer_finds_or_whose_team_is_inactive_is_not_known() {
    let setup = Setup::new(5);
    setup.admit(4).await.unwrap();
    assert!(setup.gate.last_admitted(&[4; 32]).is_some());
    // The limiter answers these for hashes starting so; the gate's memory is by hash.
    let mut hash = [UNKNOWN; 32];
    setup
        .gate
        .remember(hash, &key_and_team(4).0, &key_and_team(4).1);
    assert!(matches!(
        setup.admit_hash(hash).await,
        Err(Refusal::UnknownKey)
    ));
    assert!(setup.gate.last_admitted(&hash).is_none(), "unknown");
    hash = [INACTIVE; 32];
    setup
        .gate
        .remember(hash, &key_and_team(4).0, &key_and_team(4).1);
    assert!(matches!(
        setup.admit_hash(hash).await,
        Err(Refusal::InactiveTeam)
    ));
    assert!(setup.gate.last_admitted(&hash).is_none(), "inactive");
}

#[tokio::test]
async fn the_memory_of_admissions_stays_bounded() {
    let setup = Setup::new(5);
    let (key, team) = key_and_team(1);
    for n in 0..=KNOWN_KEYS {
        let mut hash = [1; 32];
        hash[..8].copy_from_slice(&u64::try_from(n).unwrap().to_be_bytes());
        setup.gate.remember(hash, &key, &team);
    }
    assert_eq!(setup.gate.known().len(), KNOWN_KEYS);
}
