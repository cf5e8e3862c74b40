//! `IdempotencyStore`: a key is claimed once, replays its response, refuses another request,
//! is released on abandon, expires after its TTL, belongs to one team, and exactly one of
//! many concurrent claims wins, across instances.

use std::sync::Arc;

use procflow_domain::ids::TeamId;
use procflow_domain::ports::{IdempotencyBegin, KeyLifetimes, StoredResponse};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

use super::env::{Env, Store, conformance_test};

const T0: OffsetDateTime = datetime!(2026-03-01 9:00 UTC);
const TTL: Duration = Duration::hours(24);
const LEASE: Duration = Duration::seconds(60);
const LIFETIMES: KeyLifetimes = KeyLifetimes {
    answered: TTL,
    in_flight: LEASE,
};
const FIRST: [u8; 32] = [1; 32];
const SECOND: [u8; 32] = [2; 32];

async fn begin(
    store: &Arc<dyn Store>,
    team: TeamId,
    key: &str,
    hash: &[u8; 32],
    now: OffsetDateTime,
) -> IdempotencyBegin {
    store.begin(team, key, hash, now, LIFETIMES).await.unwrap()
}

fn created(body: &str) -> StoredResponse {
    StoredResponse {
        status: 201,
        body: body.as_bytes().to_vec(),
    }
}

conformance_test!(a_finished_request_is_replayed_to_the_same_request);
async fn a_finished_request_is_replayed_to_the_same_request(env: Env) {
    let (store, team) = (&env.store, env.team.id);

    assert_eq!(
        begin(store, team, "k1", &FIRST, T0).await,
        IdempotencyBegin::Started
    );
    store
        .finish(team, "k1", &created(r#"{"data":1}"#), T0)
        .await
        .unwrap();

    for later in [Duration::seconds(1), Duration::hours(23)] {
        assert_eq!(
            begin(store, team, "k1", &FIRST, T0 + later).await,
            IdempotencyBegin::Replay(created(r#"{"data":1}"#))
        );
    }
}

conformance_test!(an_error_response_is_kept_and_replayed_with_its_status);
async fn an_error_response_is_kept_and_replayed_with_its_status(env: Env) {
    let (store, team) = (&env.store, env.team.id);
    let refused = StoredResponse {
        status: 400,
        body: b"{\"error\":{}}".to_vec(),
    };

    assert_eq!(
        begin(store, team, "k1", &FIRST, T0).await,
        IdempotencyBegin::Started
    );
    store.finish(team, "k1", &refused, T0).await.unwrap();
    assert_eq!(
        begin(store, team, "k1", &FIRST, T0).await,
        IdempotencyBegin::Replay(refused)
    );
}

conformance_test!(the_same_key_with_another_request_is_a_mismatch_in_flight_or_finished);
async fn the_same_key_with_another_request_is_a_mismatch_in_flight_or_finished(env: Env) {
    let (store, team) = (&env.store, env.team.id);

    assert_eq!(
        begin(store, team, "k1", &FIRST, T0).await,
        IdempotencyBegin::Started
    );
    assert_eq!(
        begin(store, team, "k1", &SECOND, T0).await,
        IdempotencyBegin::Mismatch
    );
    store.finish(team, "k1", &created("{}"), T0).await.unwrap();
    assert_eq!(
        begin(store, team, "k1", &SECOND, T0).await,
        IdempotencyBegin::Mismatch
    );
    // The mismatch changed nothing: the first request is still replayed.
    assert_eq!(
        begin(store, team, "k1", &FIRST, T0).await,
        IdempotencyBegin::Replay(created("{}"))
    );
}

conformance_test!(a_key_whose_request_is_running_is_in_flight);
async fn a_key_whose_request_is_running_is_in_flight(env: Env) {
    let (store, team) = (&env.store, env.team.id);

    assert_eq!(
        begin(store, team, "k1", &FIRST, T0).await,
        IdempotencyBegin::Started
    );
    assert_eq!(
        begin(store, team, "k1", &FIRST, T0 + Duration::seconds(5)).await,
        IdempotencyBegin::InFlight
    );
}

conformance_test!(an_abandoned_key_starts_again_and_any_request_may_claim_it);
async fn an_abandoned_key_starts_again_and_any_request_may_claim_it(env: Env) {
    let (store, team) = (&env.store, env.team.id);

    assert_eq!(
        begin(store, team, "k1", &FIRST, T0).await,
        IdempotencyBegin::Started
    );
    store.abandon(team, "k1").await.unwrap();
    assert_eq!(
        begin(store, team, "k1", &FIRST, T0).await,
        IdempotencyBegin::Started
    );
    store.abandon(team, "k1").await.unwrap();
    assert_eq!(
        begin(store, team, "k1", &SECOND, T0).await,
        IdempotencyBegin::Started
    );
}

conformance_test!(abandon_does_not_release_a_finished_key);
async fn abandon_does_not_release_a_finished_key(env: Env) {
    let (store, team) = (&env.store, env.team.id);

    assert_eq!(
        begin(store, team, "k1", &FIRST, T0).await,
        IdempotencyBegin::Started
    );
    store.finish(team, "k1", &created("{}"), T0).await.unwrap();
    store.abandon(team, "k1").await.unwrap();
    assert_eq!(
        begin(store, team, "k1", &FIRST, T0).await,
        IdempotencyBegin::Replay(created("{}"))
    );
}

conformance_test!(a_record_older_than_the_ttl_counts_as_absent);
async fn a_record_older_than_the_ttl_counts_as_absent(env: Env) {
    let (store, team) = (&env.store, env.team.id);

    assert_eq!(
        begin(store, team, "done", &FIRST, T0).await,
        IdempotencyBegin::Started
    );
    store
        .finish(team, "done", &created("old"), T0)
        .await
        .unwrap();
    assert_eq!(
        begin(store, team, "stuck", &FIRST, T0).await,
        IdempotencyBegin::Started
    );

    // At exactly the TTL the answered record still holds.
    assert_eq!(
        begin(store, team, "done", &FIRST, T0 + TTL).await,
        IdempotencyBegin::Replay(created("old"))
    );

    // Past it, a finished, an in-flight and a mismatching request all start afresh.
    let later = T0 + TTL + Duration::seconds(1);
    assert_eq!(
        begin(store, team, "done", &SECOND, later).await,
        IdempotencyBegin::Started
    );
    assert_eq!(
        begin(store, team, "stuck", &FIRST, later).await,
        IdempotencyBegin::Started
    );
    // The replacement is a fresh record: in flight, for the new request, from `later`.
    assert_eq!(
        begin(store, team, "done", &SECOND, later + LEASE).await,
        IdempotencyBegin::InFlight
    );
    store
        .finish(team, "done", &created("new"), later)
        .await
        .unwrap();
    assert_eq!(
        begin(store, team, "done", &SECOND, later).await,
        IdempotencyBegin::Replay(created("new"))
    );
}

conformance_test!(a_request_in_flight_past_its_lease_frees_its_key);
async fn a_request_in_flight_past_its_lease_frees_its_key(env: Env) {
    let (store, team) = (&env.store, env.team.id);

    assert_eq!(
        begin(store, team, "k1", &FIRST, T0).await,
        IdempotencyBegin::Started
    );
    // Its instance died: no finish, no abandon. Up to the lease the key is held.
    assert_eq!(
        begin(store, team, "k1", &FIRST, T0 + LEASE).await,
        IdempotencyBegin::InFlight
    );
    // Past it, the retry runs, and holds the key in its turn.
    let retry = T0 + LEASE + Duration::seconds(1);
    assert_eq!(
        begin(store, team, "k1", &FIRST, retry).await,
        IdempotencyBegin::Started
    );
    assert_eq!(
        begin(store, team, "k1", &FIRST, retry + LEASE).await,
        IdempotencyBegin::InFlight
    );
    // Once answered, the record lasts its day, far beyond the lease.
    store
        .finish(team, "k1", &created("retried"), retry)
        .await
        .unwrap();
    assert_eq!(
        begin(store, team, "k1", &FIRST, retry + Duration::hours(23)).await,
        IdempotencyBegin::Replay(created("retried"))
    );
}

conformance_test!(a_sweep_deletes_what_begin_no_longer_counts_and_keeps_the_rest);
async fn a_sweep_deletes_what_begin_no_longer_counts_and_keeps_the_rest(env: Env) {
    let (store, team, other) = (&env.store, env.team.id, env.other.id);
    let now = T0 + TTL + Duration::seconds(1);
    for (team, key, at, answered) in [
        (team, "old", T0, true),
        (other, "old", T0, true),
        (team, "recent", now - Duration::hours(1), true),
        (team, "dead", now - Duration::minutes(2), false),
        (team, "running", now - Duration::seconds(10), false),
    ] {
        assert_eq!(
            begin(store, team, key, &FIRST, at).await,
            IdempotencyBegin::Started
        );
        if answered {
            store.finish(team, key, &created(key), at).await.unwrap();
        }
    }

    assert_eq!(store.sweep_keys(now, LIFETIMES).await.unwrap(), 3);
    assert_eq!(store.sweep_keys(now, LIFETIMES).await.unwrap(), 0);
    assert_eq!(
        begin(store, team, "recent", &FIRST, now).await,
        IdempotencyBegin::Replay(created("recent"))
    );
    assert_eq!(
        begin(store, team, "running", &FIRST, now).await,
        IdempotencyBegin::InFlight
    );
    // Another request with a swept key is no mismatch: the key is free.
    assert_eq!(
        begin(store, team, "old", &SECOND, now).await,
        IdempotencyBegin::Started
    );
}

conformance_test!(two_teams_with_the_same_key_are_independent);
async fn two_teams_with_the_same_key_are_independent(env: Env) {
    let (store, team, other) = (&env.store, env.team.id, env.other.id);

    assert_eq!(
        begin(store, team, "k1", &FIRST, T0).await,
        IdempotencyBegin::Started
    );
    assert_eq!(
        begin(store, other, "k1", &SECOND, T0).await,
        IdempotencyBegin::Started
    );
    store.finish(other, "k1", &created("b"), T0).await.unwrap();
    assert_eq!(
        begin(store, team, "k1", &FIRST, T0).await,
        IdempotencyBegin::InFlight,
        "finishing the other team's key left this one in flight"
    );
    store.abandon(team, "k1").await.unwrap();
    assert_eq!(
        begin(store, other, "k1", &SECOND, T0).await,
        IdempotencyBegin::Replay(created("b")),
        "abandoning this team's key left the other's"
    );
}

conformance_test!(
    of_50_concurrent_begins_from_two_instances_exactly_one_starts,
    worker_threads = 4
);
async fn of_50_concurrent_begins_from_two_instances_exactly_one_starts(env: Env) {
    let team = env.team.id;
    let instances = [0, 1].map(|_| env.another_instance(25));

    // A fresh key, then the same key again once its record expired: both races have one winner.
    for now in [T0, T0 + TTL + Duration::seconds(1)] {
        let calls: Vec<_> = (0..50)
            .map(|i| {
                let store = Arc::clone(&instances[i % 2]);
                tokio::spawn(async move { store.begin(team, "race", &FIRST, now, LIFETIMES).await })
            })
            .collect();
        let mut started = 0;
        for call in calls {
            match call.await.unwrap().unwrap() {
                IdempotencyBegin::Started => started += 1,
                IdempotencyBegin::InFlight => {}
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(started, 1, "exactly one begin started at {now}");
    }
}
