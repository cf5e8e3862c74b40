//! `RateLimiter`: the key found by its hash as `find_api_key` finds it, and a rolling window per
//! key, exact across instances, refusals and inactive teams not counted, one statement per
//! call (PostgreSQL), bounded state; and `HealthCheck` (PostgreSQL).

use std::sync::Arc;

use diesel::QueryableByName;
use diesel::sql_types::Integer;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use procflow_domain::ids::{ApiKeyId, UserId};
use procflow_domain::ports::{Admission, HealthCheck, RateDecision};
use procflow_domain::team::{ApiKey, Subscription, Team};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use super::env::{Backend, Env, Store, conformance_test};

const T0: OffsetDateTime = datetime!(2026-03-01 9:00 UTC);
const MINUTE: Duration = Duration::seconds(60);

/// An API key stored for a test: its id and the hash of its secret.
#[derive(Clone, Copy, Debug)]
struct TestKey {
    id: ApiKeyId,
    hash: [u8; 32],
}

/// Stores an API key `n` of `team` (the rate-limit row references it); the same `n` in two
/// teams gives the same key id, and different hashes.
async fn api_key(env: &Env, team: &Team, n: u8) -> TestKey {
    let id = ApiKeyId::from_uuid(Uuid::from_u128(0x5EED_0000 + u128::from(n)));
    let key = ApiKey {
        id,
        team_id: team.id,
        name: None,
        prefix: "pf_live_test".into(),
        created_by: UserId::from_uuid(Uuid::from_u128(team.id.as_uuid().as_u128() + 1)),
        created_at: T0,
        revoked_at: None,
        scope: procflow_domain::team::KeyScope::Write,
    };
    let mut hash = [n; 32];
    hash[..16].copy_from_slice(team.id.as_uuid().as_bytes());
    env.store.insert_api_key(&key, &hash).await.unwrap();
    TestKey { id, hash }
}

fn at(seconds: f64) -> OffsetDateTime {
    T0 + Duration::seconds_f64(seconds)
}

/// The rate decision of admitting a request of `key`, a known key of an active team.
async fn hit(
    store: &Arc<dyn Store>,
    key: TestKey,
    now: OffsetDateTime,
    limit: u32,
) -> RateDecision {
    admit(store, key, now, limit).await.unwrap().rate.unwrap()
}

async fn admit(
    store: &Arc<dyn Store>,
    key: TestKey,
    now: OffsetDateTime,
    limit: u32,
) -> Option<Admission> {
    store.admit(&key.hash, now, limit, MINUTE).await.unwrap()
}

fn accepted(remaining: u32, reset_at: OffsetDateTime) -> RateDecision {
    RateDecision {
        allowed: true,
        remaining,
        reset_at,
    }
}

fn refused(reset_at: OffsetDateTime) -> RateDecision {
    RateDecision {
        allowed: false,
        remaining: 0,
        reset_at,
    }
}

conformance_test!(a_key_is_refused_after_limit_hits_until_its_oldest_hit_leaves_the_window);
async fn a_key_is_refused_after_limit_hits_until_its_oldest_hit_leaves_the_window(env: Env) {
    let key = api_key(&env, &env.team, 1).await;
    let store = &env.store;

    assert_eq!(hit(store, key, at(0.0), 3).await, accepted(2, at(60.0)));
    assert_eq!(hit(store, key, at(1.0), 3).await, accepted(1, at(60.0)));
    assert_eq!(hit(store, key, at(2.5), 3).await, accepted(0, at(60.0)));
    assert_eq!(hit(store, key, at(3.0), 3).await, refused(at(60.0)));
    assert_eq!(hit(store, key, at(59.999), 3).await, refused(at(60.0)));

    // At reset_at the oldest hit has left the window: one slot, then refused until the next
    // oldest leaves.
    assert_eq!(hit(store, key, at(60.0), 3).await, accepted(0, at(61.0)));
    assert_eq!(hit(store, key, at(60.5), 3).await, refused(at(61.0)));
    assert_eq!(hit(store, key, at(61.0), 3).await, accepted(0, at(62.5)));

    // Long after, the whole quota is back.
    assert_eq!(hit(store, key, at(600.0), 3).await, accepted(2, at(660.0)));
}

conformance_test!(the_window_rolls_rather_than_resetting_on_a_fixed_boundary);
async fn the_window_rolls_rather_than_resetting_on_a_fixed_boundary(env: Env) {
    let key = api_key(&env, &env.team, 1).await;
    let store = &env.store;

    for _ in 0..3 {
        assert!(hit(store, key, at(0.0), 5).await.allowed);
    }
    assert_eq!(hit(store, key, at(30.0), 5).await, accepted(1, at(60.0)));
    assert_eq!(hit(store, key, at(30.0), 5).await, accepted(0, at(60.0)));
    assert_eq!(hit(store, key, at(31.0), 5).await, refused(at(60.0)));

    // At 61 s the three hits of 0 s have left; the two of 30 s still count: exactly 3 slots.
    assert_eq!(hit(store, key, at(61.0), 5).await, accepted(2, at(90.0)));
    assert_eq!(hit(store, key, at(61.0), 5).await, accepted(1, at(90.0)));
    assert_eq!(hit(store, key, at(61.0), 5).await, accepted(0, at(90.0)));
    assert_eq!(hit(store, key, at(61.0), 5).await, refused(at(90.0)));
}

conformance_test!(refused_requests_are_not_counted);
async fn refused_requests_are_not_counted(env: Env) {
    let key = api_key(&env, &env.team, 1).await;
    let store = &env.store;

    assert!(hit(store, key, at(0.0), 2).await.allowed);
    assert!(hit(store, key, at(0.0), 2).await.allowed);
    for second in 1..60 {
        assert_eq!(
            hit(store, key, at(f64::from(second)), 2).await,
            refused(at(60.0))
        );
    }
    assert_eq!(hit(store, key, at(60.0), 2).await, accepted(1, at(120.0)));
    assert_eq!(hit(store, key, at(60.0), 2).await, accepted(0, at(120.0)));
}

conformance_test!(keys_are_independent_and_another_teams_key_with_the_same_id_touches_nothing);
async fn keys_are_independent_and_another_teams_key_with_the_same_id_touches_nothing(env: Env) {
    let first = api_key(&env, &env.team, 1).await;
    let second = api_key(&env, &env.team, 2).await;
    let foreign = api_key(&env, &env.other, 1).await;
    assert_eq!(first.id, foreign.id, "the same key id in two teams");
    let store = &env.store;

    for _ in 0..3 {
        assert!(hit(store, first, at(0.0), 3).await.allowed);
    }
    assert_eq!(hit(store, first, at(1.0), 3).await, refused(at(60.0)));

    assert_eq!(hit(store, second, at(1.0), 3).await, accepted(2, at(61.0)));
    assert_eq!(hit(store, foreign, at(1.0), 3).await, accepted(2, at(61.0)));
    assert_eq!(hit(store, foreign, at(2.0), 3).await, accepted(1, at(61.0)));
    assert_eq!(hit(store, foreign, at(3.0), 3).await, accepted(0, at(61.0)));
    assert_eq!(hit(store, foreign, at(4.0), 3).await, refused(at(61.0)));

    // The first key's state is as it was: refused until 60 s, then free.
    assert_eq!(hit(store, first, at(5.0), 3).await, refused(at(60.0)));
    assert_eq!(hit(store, first, at(60.0), 3).await, accepted(2, at(120.0)));
    assert_eq!(hit(store, second, at(5.0), 3).await, accepted(1, at(61.0)));
}

conformance_test!(
    of_120_concurrent_hits_from_two_instances_exactly_the_limit_are_accepted,
    worker_threads = 4
);
async fn of_120_concurrent_hits_from_two_instances_exactly_the_limit_are_accepted(env: Env) {
    let key = api_key(&env, &env.team, 1).await;
    let instances = [0, 1].map(|_| env.another_instance(30));

    // First at 0 s, when the key has no row yet (the calls race to create it), then at 60 s,
    // when the row exists and every hit of 0 s has left the window.
    for now in [at(0.0), at(60.0)] {
        let calls: Vec<_> = (0..120)
            .map(|i| {
                let store = Arc::clone(&instances[i % 2]);
                tokio::spawn(async move { store.admit(&key.hash, now, 100, MINUTE).await })
            })
            .collect();
        let mut remaining = Vec::new();
        let mut refusals = 0;
        for call in calls {
            let decision = call.await.unwrap().unwrap().unwrap().rate.unwrap();
            if decision.allowed {
                remaining.push(decision.remaining);
            } else {
                assert_eq!(decision, refused(now + MINUTE));
                refusals += 1;
            }
        }
        remaining.sort_unstable();
        assert_eq!(
            remaining,
            (0..100).collect::<Vec<u32>>(),
            "exactly 100 accepted at {now}, each seeing the ones before it"
        );
        assert_eq!(refusals, 20);
    }
}

// PostgreSQL only: it counts statements.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admission_key_lookup_included_is_one_statement_from_the_first_request_on() {
    let env = Env::postgres().await;
    let statements = &env.pg().statements;
    let key = api_key(&env, &env.team, 1).await;
    for (now, allowed) in [(0.0, true), (1.0, true), (2.0, false), (60.0, true)] {
        let before = statements.get();
        assert_eq!(hit(&env.store, key, at(now), 2).await.allowed, allowed);
        assert_eq!(
            statements.get() - before,
            1,
            "statements of the admission at {now} s"
        );
    }
}

#[derive(QueryableByName)]
struct Stored {
    #[diesel(sql_type = Integer)]
    hits: i32,
}

conformance_test!(a_key_keeps_at_most_limit_hits_and_a_lowered_limit_applies_at_once);
async fn a_key_keeps_at_most_limit_hits_and_a_lowered_limit_applies_at_once(env: Env) {
    let key = api_key(&env, &env.team, 1).await;
    let store = &env.store;
    for second in 0..300 {
        hit(store, key, at(f64::from(second)), 5).await;
    }
    assert_eq!(stored_hits(&env).await, [5]);

    // Hits at 240..=244 s count. With a limit of 2 the key is refused until the second
    // newest of them (243 s) leaves the window, and the row keeps only those 2.
    assert_eq!(hit(store, key, at(299.0), 2).await, refused(at(303.0)));
    assert_eq!(stored_hits(&env).await, [2]);
    assert_eq!(hit(store, key, at(303.0), 2).await, accepted(0, at(304.0)));
}

conformance_test!(a_limit_of_zero_refuses_everything);
async fn a_limit_of_zero_refuses_everything(env: Env) {
    let key = api_key(&env, &env.team, 1).await;
    assert_eq!(hit(&env.store, key, at(0.0), 0).await, refused(at(60.0)));
    assert_eq!(hit(&env.store, key, at(5.0), 0).await, refused(at(65.0)));
}

conformance_test!(an_admission_finds_the_key_and_team_find_api_key_finds);
async fn an_admission_finds_the_key_and_team_find_api_key_finds(env: Env) {
    let key = api_key(&env, &env.other, 3).await;
    let admitted = admit(&env.store, key, at(0.0), 5).await.unwrap();
    let found = env.store.find_api_key(&key.hash).await.unwrap().unwrap();
    assert_eq!((admitted.key, admitted.team), found);
    assert_eq!(found.0.id, key.id);
    assert_eq!(found.1, env.other);
    assert_eq!(admitted.rate, Some(accepted(4, at(60.0))));
}

conformance_test!(an_unknown_key_is_not_admitted_and_nothing_is_written);
async fn an_unknown_key_is_not_admitted_and_nothing_is_written(env: Env) {
    let known = api_key(&env, &env.team, 1).await;
    let unknown = TestKey {
        hash: [9; 32],
        ..known
    };
    assert_eq!(admit(&env.store, unknown, at(0.0), 5).await, None);
    assert_eq!(stored_rows(&env).await, 0);
}

conformance_test!(a_revoked_key_is_not_admitted_and_no_longer_counted);
async fn a_revoked_key_is_not_admitted_and_no_longer_counted(env: Env) {
    let key = api_key(&env, &env.team, 1).await;
    assert!(hit(&env.store, key, at(0.0), 5).await.allowed);
    env.store
        .revoke_api_key(env.team.id, key.id, at(1.0))
        .await
        .unwrap();
    assert_eq!(admit(&env.store, key, at(2.0), 5).await, None);
    assert_eq!(
        stored_hits(&env).await,
        [1],
        "only the request before revocation"
    );
}

conformance_test!(an_inactive_teams_key_is_found_but_its_requests_are_not_counted);
async fn an_inactive_teams_key_is_found_but_its_requests_are_not_counted(env: Env) {
    let key = api_key(&env, &env.team, 1).await;
    assert!(hit(&env.store, key, at(0.0), 2).await.allowed);
    env.store
        .set_subscription(env.team.id, Subscription::Inactive)
        .await
        .unwrap();
    for second in 1..5 {
        let admitted = admit(&env.store, key, at(f64::from(second)), 2)
            .await
            .unwrap();
        assert_eq!(admitted.key.id, key.id);
        assert_eq!(admitted.team.subscription, Subscription::Inactive);
        assert_eq!(admitted.rate, None, "no decision at {second} s");
    }
    assert_eq!(stored_hits(&env).await, [1]);
    env.store
        .set_subscription(env.team.id, Subscription::Active)
        .await
        .unwrap();
    assert_eq!(
        hit(&env.store, key, at(5.0), 2).await,
        accepted(0, at(60.0))
    );
}

/// Keys with rate-limit state: rows in `rate_limits`, logs in memory.
async fn stored_rows(env: &Env) -> usize {
    match &env.backend {
        Backend::Postgres(pg) => {
            let mut conn = AsyncPgConnection::establish(pg.db.url()).await.unwrap();
            let rows = diesel::sql_query("SELECT count(*)::int AS hits FROM rate_limits")
                .load::<Stored>(&mut conn)
                .await
                .unwrap()[0]
                .hits;
            usize::try_from(rows).unwrap()
        }
        Backend::Memory(store) => store.rate_limit_logs().len(),
    }
}

/// The number of hits each key's rate-limit state holds (each `rate_limits` row).
async fn stored_hits(env: &Env) -> Vec<usize> {
    match &env.backend {
        Backend::Postgres(pg) => {
            let mut conn = AsyncPgConnection::establish(pg.db.url()).await.unwrap();
            diesel::sql_query("SELECT cardinality(hits) AS hits FROM rate_limits")
                .load::<Stored>(&mut conn)
                .await
                .unwrap()
                .into_iter()
                .map(|row| usize::try_from(row.hits).unwrap())
                .collect()
        }
        Backend::Memory(store) => store.rate_limit_logs(),
    }
}

// PostgreSQL only: the in-memory store has no health to check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_health_check_answers_ok() {
    let env = Env::postgres().await;
    HealthCheck::ping(&env.pg().store).await.unwrap();
}
