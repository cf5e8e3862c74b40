//! Times `RateLimiter::admit` (key lookup and count, one statement) against a real PostgreSQL:
//! an accepted request with a full window (60 hits, one a second, counted in per-second
//! counters), a refused one (what the first refusal of a window costs; later ones
//! are answered from the HTTP gate's memory), and accepted requests from 16 concurrent callers
//! on one key (serialised by its row lock) and on 16 keys, beside a `SELECT 1` for scale. Run
//! it in release mode:
//! `cargo run --release -p procflow-postgres --example rate_limit_timings`.
#![allow(
    clippy::print_stdout,
    clippy::expect_used,
    reason = "a measuring tool prints its table and fails loudly"
)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use procflow_domain::ids::{ApiKeyId, TeamId, UserId};
use procflow_domain::ports::{RateDecision, RateLimiter, TeamStore};
use procflow_domain::team::{ApiKey, Member, Role, Subscription, Team};
use procflow_postgres::testing::migrated_database;
use procflow_postgres::{PgStore, PoolConfig};
use time::OffsetDateTime;
use uuid::Uuid;

const ROUNDS: usize = 2_000;
const LIMIT: u32 = 60;
const WINDOW: time::Duration = time::Duration::seconds(60);
/// Requests spaced so that the window always holds `LIMIT` hits and the next one is accepted
/// (one a second: the window counts whole seconds).
const STEP: time::Duration = time::Duration::seconds(1);
const CALLERS: usize = 16;

fn summary(mut samples: Vec<Duration>) -> (f64, f64, f64) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1_000.0;
    let mean = samples.iter().map(|d| ms(*d)).sum::<f64>() / samples.len() as f64;
    (
        mean,
        ms(samples[samples.len() / 2]),
        ms(samples[samples.len() * 99 / 100]),
    )
}

fn row(operation: &str, samples: Vec<Duration>) {
    let rounds = samples.len();
    let (mean, p50, p99) = summary(samples);
    println!("| {operation} | {rounds} | {mean:.3} | {p50:.3} | {p99:.3} |");
}

/// Stores a new key of `team`; answers the hash of its secret.
async fn new_key(store: &PgStore, team: &Team, admin: UserId) -> KeyHash {
    let id = ApiKeyId::from_uuid(Uuid::now_v7());
    let key = ApiKey {
        id,
        team_id: team.id,
        name: None,
        prefix: "pf_live_time".into(),
        created_by: admin,
        created_at: team.created_at,
        revoked_at: None,
        scope: procflow_domain::team::KeyScope::Write,
    };
    let mut hash = [0_u8; 32];
    hash[..16].copy_from_slice(id.as_uuid().as_bytes());
    store.insert_api_key(&key, &hash).await.expect("key");
    hash
}

type KeyHash = [u8; 32];

async fn decide(store: &PgStore, key: &KeyHash, now: OffsetDateTime) -> RateDecision {
    store
        .admit(key, now, LIMIT, WINDOW)
        .await
        .expect("admit")
        .expect("a known key")
        .rate
        .expect("an active team")
}

/// `rounds` accepted hits of each of `keys` from `callers` concurrent tasks per key, each
/// advancing its key's time by `STEP` per call (so every call is accepted).
async fn accepted_concurrently(
    store: &Arc<PgStore>,
    keys: &[KeyHash],
    callers: usize,
    rounds: usize,
) -> (Vec<Duration>, Duration) {
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (k, key) in keys.iter().enumerate() {
        let clock = Arc::new(std::sync::Mutex::new(
            OffsetDateTime::now_utc() + time::Duration::days(1 + k as i64),
        ));
        for _ in 0..callers {
            let (store, clock, key) = (Arc::clone(store), Arc::clone(&clock), *key);
            tasks.push(tokio::spawn(async move {
                let mut samples = Vec::with_capacity(rounds);
                for _ in 0..rounds {
                    let now = {
                        let mut clock = clock.lock().expect("clock");
                        *clock += STEP;
                        *clock
                    };
                    let started = Instant::now();
                    let decision = decide(&store, &key, now).await;
                    samples.push(started.elapsed());
                    // Concurrent callers may reach the database out of time order; nearly all
                    // are accepted, and a refusal costs the same statement.
                    let _ = decision.allowed;
                }
                samples
            }));
        }
    }
    let mut samples = Vec::new();
    for task in tasks {
        samples.extend(task.await.expect("task"));
    }
    (samples, started.elapsed())
}

#[tokio::main]
async fn main() {
    let db = migrated_database().await;
    let store = Arc::new(
        PgStore::new(&PoolConfig {
            max_size: 32,
            ..PoolConfig::new(db.url())
        })
        .expect("pool"),
    );
    let team = Team {
        id: TeamId::from_uuid(Uuid::now_v7()),
        name: "Timings".into(),
        base_url: "http://localhost".into(),
        timezone: "UTC".into(),
        subscription: Subscription::Active,
        created_at: OffsetDateTime::now_utc(),
    };
    let admin = Member {
        id: UserId::from_uuid(Uuid::now_v7()),
        team_id: team.id,
        email: "admin@timings.example".parse().expect("email"),
        name: None,
        role: Role::Admin,
        active: true,
        created_at: team.created_at,
    };
    store.create_team(&team, &admin).await.expect("team");
    let key = new_key(&store, &team, admin.id).await;

    println!("| operation | calls | mean ms | p50 ms | p99 ms |");
    println!("|---|---:|---:|---:|---:|");

    let mut samples = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let started = Instant::now();
        store.ping().await.expect("ping");
        samples.push(started.elapsed());
    }
    row("baseline: `SELECT 1` through the pool", samples);

    // Fill the window with LIMIT hits.
    let mut now = OffsetDateTime::now_utc();
    for _ in 0..LIMIT {
        now += STEP;
        decide(&store, &key, now).await;
    }
    let mut samples = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        now += STEP;
        let started = Instant::now();
        let decision = decide(&store, &key, now).await;
        samples.push(started.elapsed());
        assert!(decision.allowed && decision.remaining == 0);
    }
    row("`admit` accepted, window holding 60 hits", samples);

    let mut samples = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let started = Instant::now();
        let decision = decide(&store, &key, now).await;
        samples.push(started.elapsed());
        assert!(!decision.allowed);
    }
    row(
        "`admit` refused (uncached: first refusal of a window)",
        samples,
    );

    let mut samples = Vec::with_capacity(ROUNDS / 10);
    for _ in 0..ROUNDS / 10 {
        let fresh = new_key(&store, &team, admin.id).await;
        let started = Instant::now();
        decide(&store, &fresh, now).await;
        samples.push(started.elapsed());
    }
    row(
        "`admit` on a key's first request (its row made with the key)",
        samples,
    );

    let rounds = ROUNDS / CALLERS;
    let (samples, took) = accepted_concurrently(&store, &[key], CALLERS, rounds).await;
    let calls = samples.len();
    row(
        &format!("`admit`, {CALLERS} concurrent callers on one key"),
        samples,
    );
    println!(
        "|   throughput: {:.0} calls/s on one key | | | | |",
        calls as f64 / took.as_secs_f64()
    );

    let mut keys = Vec::with_capacity(CALLERS);
    for _ in 0..CALLERS {
        keys.push(new_key(&store, &team, admin.id).await);
    }
    let (samples, took) = accepted_concurrently(&store, &keys, 1, rounds).await;
    let calls = samples.len();
    row(
        &format!("`admit`, {CALLERS} concurrent callers on {CALLERS} keys"),
        samples,
    );
    println!(
        "|   throughput: {:.0} calls/s on {CALLERS} keys | | | | |",
        calls as f64 / took.as_secs_f64()
    );
}
