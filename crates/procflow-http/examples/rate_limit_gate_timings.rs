//! Times what `RateLimitGate::admit` costs a key it has refused already in the current window:
//! an answer from the gate's memory, without the limiter (what the HTTP layer pays per 429
//! once a key is over its limit). The limiter is the domain's in-memory one; the gate must
//! consult it once in all (the accepted request: with a limit of 1, this instance alone then
//! has the limit admitted, and refuses the rest itself). In release mode:
//! `cargo run --release -p procflow-http --example rate_limit_gate_timings`. The cost of the
//! limiter itself on PostgreSQL: `procflow-postgres`'s `rate_limit_timings` example.
#![allow(
    clippy::print_stdout,
    clippy::expect_used,
    clippy::panic,
    reason = "a measuring tool prints its figures and fails loudly"
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use procflow_domain::error::DomainResult;
use procflow_domain::ids::{ApiKeyId, UserId};
use procflow_domain::ports::{Admission, RateLimiter, TeamStore};
use procflow_domain::team::{ApiKey, KeyScope};
use procflow_http::rate_limit::{RateLimitGate, Refusal};
use procflow_memory::{FixedClock, InMemoryStore};
use time::OffsetDateTime;
use uuid::Uuid;

const ROUNDS: usize = 100_000;
const KEY_HASH: [u8; 32] = [1; 32];

/// The in-memory limiter, counting the gate's calls.
struct Counting {
    store: InMemoryStore,
    calls: AtomicUsize,
}

#[async_trait]
impl RateLimiter for Counting {
    async fn admit(
        &self,
        key_hash: &[u8; 32],
        now: OffsetDateTime,
        limit: u32,
        window: time::Duration,
    ) -> DomainResult<Option<Admission>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.store.admit(key_hash, now, limit, window).await
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let store = InMemoryStore::default();
    let team = store.demo_team();
    let key = ApiKey {
        id: ApiKeyId::from_uuid(Uuid::from_u128(1)),
        team_id: team.id,
        name: None,
        prefix: "pf_live_test".into(),
        // The demo team's admin.
        created_by: UserId::from_uuid(Uuid::from_u128(0xAD)),
        scope: KeyScope::Write,
        created_at: team.created_at,
        revoked_at: None,
    };
    store
        .insert_api_key(&key, &KEY_HASH)
        .await
        .expect("insert the key");
    let limiter = Arc::new(Counting {
        store,
        calls: AtomicUsize::new(0),
    });
    let clock = Arc::new(FixedClock::default());
    // One request a minute: the first is accepted, every later one refused.
    let gate = RateLimitGate::new(clock, 1);
    gate.admit(&*limiter, KEY_HASH)
        .await
        .expect("the first request");
    let mut samples = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let started = Instant::now();
        let refused = gate.admit(&*limiter, KEY_HASH).await;
        samples.push(started.elapsed());
        if !matches!(refused, Err(Refusal::Limited { .. })) {
            panic!("expected a refusal, got {refused:?}");
        }
    }
    let calls = limiter.calls.load(Ordering::SeqCst);
    assert_eq!(calls, 1, "the gate answered refusals from its memory");
    samples.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let mean = samples.iter().map(|d| us(*d)).sum::<f64>() / ROUNDS as f64;
    println!(
        "cached refusal through RateLimitGate::admit: {ROUNDS} rounds, mean {mean:.3} µs, \
         p50 {:.3} µs, p99 {:.3} µs",
        us(samples[ROUNDS / 2]),
        us(samples[ROUNDS * 99 / 100]),
    );
}
