//! `RateLimiter`: the key found by its hash as `find_api_key` finds it, and a rolling window per
//! key counted to the second (a request counts in the whole second it was admitted), exact
//! across instances, refusals and inactive teams not counted, one statement per call
//! (PostgreSQL), state of one counter per second whatever the traffic; and `HealthCheck`
//! (PostgreSQL).

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
    // oldest leaves. The hit of 2.5 s counts in second 2 (API contract 3: the window is
    // counted in whole seconds), so it leaves when second 62 begins.
    assert_eq!(hit(store, key, at(60.0), 3).await, accepted(0, at(61.0)));
    assert_eq!(hit(store, key, at(60.5), 3).await, refused(at(61.0)));
    assert_eq!(hit(store, key, at(61.0), 3).await, accepted(0, at(62.0)));

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

conformance_test!(a_keys_state_is_one_counter_a_second_and_a_lowered_limit_applies_at_once);
async fn a_keys_state_is_one_counter_a_second_and_a_lowered_limit_applies_at_once(env: Env) {
    let key = api_key(&env, &env.team, 1).await;
    let store = &env.store;
    for second in 0..300 {
        hit(store, key, at(f64::from(second)), 5).await;
    }
    assert_eq!(stored_hits(&env).await, [5]);
    assert_eq!(stored_counters(&env).await, [60]);

    // Hits at 240..=244 s count. With a limit of 2 the key is refused until the second
    // newest of them (243 s) leaves the window.
    assert_eq!(hit(store, key, at(299.0), 2).await, refused(at(303.0)));
    assert_eq!(hit(store, key, at(303.0), 2).await, accepted(0, at(304.0)));
}

conformance_test!(a_raised_limit_costs_the_same_sixty_counters_whatever_the_traffic);
async fn a_raised_limit_costs_the_same_sixty_counters_whatever_the_traffic(env: Env) {
    let key = api_key(&env, &env.team, 1).await;
    let store = &env.store;
    // 2,000 requests in 4 s, with a limit far above them: each second's counter holds its 500.
    for n in 0..2_000_u32 {
        let now = T0 + Duration::milliseconds(i64::from(n) * 2);
        let decision = hit(store, key, now, 1_000_000).await;
        assert_eq!(decision, accepted(1_000_000 - n - 1, at(60.0)));
    }
    assert_eq!(stored_hits(&env).await, [2_000]);
    assert_eq!(
        stored_counters(&env).await,
        [60],
        "not one entry per request"
    );
    // Exact to the second: the 500 of second 0 leave together when second 60 begins.
    assert_eq!(hit(store, key, at(59.999), 2_000).await, refused(at(60.0)));
    assert_eq!(
        hit(store, key, at(60.0), 2_000).await,
        accepted(499, at(61.0))
    );
}

conformance_test!(
    of_concurrent_hits_spread_over_two_seconds_exactly_the_limit_are_accepted,
    worker_threads = 4
);
async fn of_concurrent_hits_spread_over_two_seconds_exactly_the_limit_are_accepted(env: Env) {
    let key = api_key(&env, &env.team, 1).await;
    let instances = [0, 1].map(|_| env.another_instance(30));
    // 150 racing callers, half in second 0 and half in second 59, with a limit of 100: 100
    // are accepted, whichever second they fall in; at 60 s the hits of second 0 have left.
    let calls: Vec<_> = (0..150)
        .map(|i| {
            let store = Arc::clone(&instances[i % 2]);
            let now = if i % 3 == 0 { at(59.5) } else { at(0.25) };
            tokio::spawn(async move { store.admit(&key.hash, now, 100, MINUTE).await })
        })
        .collect();
    let mut accepted_calls = 0;
    for call in calls {
        if call.await.unwrap().unwrap().unwrap().rate.unwrap().allowed {
            accepted_calls += 1;
        }
    }
    assert_eq!(accepted_calls, 100);
    let counted = stored_hits(&env).await;
    assert_eq!(counted, [100]);
    let after = hit(&env.store, key, at(60.0), 100).await;
    assert!(after.allowed, "second 0's hits left the window at 60 s");
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

/// Keys with counted requests: `rate_limits` rows whose counters are not all 0, in memory the
/// keys with counts.
async fn stored_rows(env: &Env) -> usize {
    stored_hits(env).await.len()
}

/// The requests each key with counted requests has in its counters, smallest first.
async fn stored_hits(env: &Env) -> Vec<usize> {
    match &env.backend {
        Backend::Postgres(pg) => {
            let mut conn = AsyncPgConnection::establish(pg.db.url()).await.unwrap();
            diesel::sql_query(
                "SELECT hits FROM (SELECT (SELECT coalesce(sum(c), 0) FROM unnest(counts) AS c)::int \
                 AS hits FROM rate_limits) AS t WHERE hits > 0 ORDER BY hits",
            )
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

/// The counters each key's rate-limit state holds.
async fn stored_counters(env: &Env) -> Vec<usize> {
    match &env.backend {
        Backend::Postgres(pg) => {
            let mut conn = AsyncPgConnection::establish(pg.db.url()).await.unwrap();
            diesel::sql_query("SELECT cardinality(counts) AS hits FROM rate_limits ORDER BY 1 DESC")
                .load::<Stored>(&mut conn)
                .await
                .unwrap()
                .into_iter()
                .map(|row| usize::try_from(row.hits).unwrap())
                .collect()
        }
        Backend::Memory(store) => store.rate_limit_counters(),
    }
}

// PostgreSQL only: the migration from the timestamp arrays of before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counts_kept_as_timestamps_before_the_migration_count_in_their_seconds_after_it() {
    use procflow_domain::window::WindowLimit;

    let env = Env::postgres().await;
    let key = api_key(&env, &env.team, 1).await;
    let rowless = api_key(&env, &env.team, 2).await;
    let url = env.pg().db.url().to_owned();
    // Back to before the per-second counters (and the migrations after them).
    let reverted = procflow_postgres::testing::revert_through(&url, "2026-11-27-000200").await;
    // As before the migration: the first key's hits, no row for the second (as a key
    // written by hand had none until its first request), a guest window's hits.
    procflow_postgres::testing::execute(
        &url,
        &format!(
            "UPDATE rate_limits SET hits = ARRAY['2026-03-01 09:00:00.5+00', \
                 '2026-03-01 09:00:00.7+00', '2026-03-01 09:00:30+00']::timestamptz[] \
             WHERE api_key_id = '{}'; \
             DELETE FROM rate_limits WHERE api_key_id = '{}'; \
             INSERT INTO rate_windows (name, hits, last_hit) VALUES ('address:m', \
                 ARRAY['2026-03-01 09:00:01+00', '2026-03-01 09:00:02.9+00']::timestamptz[], \
                 '2026-03-01 09:00:02.9+00')",
            key.id.as_uuid(),
            rowless.id.as_uuid()
        ),
    )
    .await;
    let applied = procflow_postgres::migrate(&url).await.unwrap();
    assert_eq!(
        applied.len(),
        reverted.len(),
        "every reverted migration applied again"
    );
    assert_eq!(stored_counters(&env).await, [60, 0], "a row for every key");

    let store = env.another_instance(2);
    // Two hits in second 0, one in second 30: with a limit of 3, refused until 60 s.
    let refused_then = store.admit(&key.hash, at(31.0), 3, MINUTE).await.unwrap();
    assert_eq!(refused_then.unwrap().rate, Some(refused(at(60.0))));
    let admitted = store.admit(&key.hash, at(60.0), 3, MINUTE).await.unwrap();
    assert_eq!(admitted.unwrap().rate, Some(accepted(1, at(90.0))));
    let statements = &env.pg().statements;
    let before = statements.get();
    assert_eq!(
        hit(&env.store, rowless, at(0.0), 3).await,
        accepted(2, at(60.0))
    );
    assert_eq!(statements.get() - before, 1, "the migration made its row");
    let limits = [WindowLimit {
        name: "address:m".into(),
        limit: 2,
    }];
    let window = store.admit_all(&limits, at(30.0), MINUTE).await.unwrap();
    assert_eq!(window, refused(at(61.0)), "posts of seconds 1 and 2");
}

// PostgreSQL only: the in-memory store has no health to check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_health_check_answers_ok() {
    let env = Env::postgres().await;
    HealthCheck::ping(&env.pg().store).await.unwrap();
}

// PostgreSQL only: one key taking every admission of 8 concurrent callers (issue 29: a raised
// limit made one key's timestamp array grow with each request, and its row the bottleneck).
// Its state stays one counter a second however busy it is, and the callers racing on its row
// are each counted once: the `remaining` they are told are exactly the 3,200 values below the
// limit. How fast one busy key is admitted beside 40 keys is a figure of `make bench`
// (`bench/busy_key.sh`, target 0.7): a wall-clock ratio measured in a test shares CI's two cores
// with the rest of the suite, and failed there on noise alone (0417be5).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_busy_keys_state_stays_a_counter_a_second_and_each_racing_admission_counts_once() {
    let env = Env::postgres().await;
    const CALLERS: usize = 8;
    const EACH: usize = 400;
    const LIMIT: u32 = 1_000_000;
    let key = api_key(&env, &env.team, 1).await;
    let store = env.another_instance(CALLERS);
    let callers: Vec<_> = (0..CALLERS)
        .map(|_| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                let mut remaining = Vec::with_capacity(EACH);
                for _ in 0..EACH {
                    let decision = store
                        .admit(&key.hash, at(100.0), LIMIT, MINUTE)
                        .await
                        .unwrap()
                        .unwrap()
                        .rate
                        .unwrap();
                    assert!(decision.allowed);
                    remaining.push(decision.remaining);
                }
                remaining
            })
        })
        .collect();
    let mut remaining = Vec::new();
    for caller in callers {
        remaining.extend(caller.await.unwrap());
    }
    remaining.sort_unstable();
    let admitted = u32::try_from(CALLERS * EACH).unwrap();
    let expected: Vec<u32> = (LIMIT - admitted..LIMIT).collect();
    assert!(
        remaining == expected,
        "each admission counted once, in some order"
    );
    assert_eq!(stored_counters(&env).await, [60]);
}
