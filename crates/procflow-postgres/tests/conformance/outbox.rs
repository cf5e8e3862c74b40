//! `Outbox`: leases, completion and retries; two workers never hold the same event.

use procflow_postgres::PoolConfig;
use time::Duration;

use super::env::{Env, conformance_test};
use super::support::{document, published, start};

conformance_test!(a_leased_event_is_not_handed_out_again_until_its_lease_runs_out);
async fn a_leased_event_is_not_handed_out_again_until_its_lease_runs_out(env: Env) {
    let template = published(&env, &env.team, document()).await;
    env.procflow
        .create_run(&env.team, start(&template))
        .await
        .unwrap();
    let now = env.clock_now();
    let lease = now + Duration::seconds(30);
    let claimed = env.store.claim(10, now, lease).await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].attempts, 0);
    assert!(env.store.claim(10, now, lease).await.unwrap().is_empty());
    let after_lease = env
        .store
        .claim(10, lease, lease + Duration::seconds(30))
        .await
        .unwrap();
    assert_eq!(after_lease.len(), 1, "an expired lease is taken again");

    let id = claimed[0].id;
    let retry_at = lease + Duration::minutes(5);
    env.store.retry(id, retry_at, "HTTP 500").await.unwrap();
    assert!(
        env.store
            .claim(10, lease + Duration::minutes(1), retry_at)
            .await
            .unwrap()
            .is_empty()
    );
    let retried = env
        .store
        .claim(10, retry_at, retry_at + Duration::seconds(30))
        .await
        .unwrap();
    assert_eq!(retried[0].attempts, 1);

    env.store.complete(&[id]).await.unwrap();
    let far = retry_at + Duration::days(1);
    assert!(env.store.claim(10, far, far).await.unwrap().is_empty());
}

conformance_test!(concurrent_claims_never_share_an_event);
async fn concurrent_claims_never_share_an_event(env: Env) {
    let template = published(&env, &env.team, document()).await;
    for _ in 0..40 {
        env.procflow
            .create_run(&env.team, start(&template))
            .await
            .unwrap();
    }
    let second = env.another_instance(PoolConfig::DEFAULT_MAX_SIZE.into());
    let now = env.clock_now();
    let lease = now + Duration::minutes(1);
    let (a, b) = tokio::join!(
        async {
            let mut all = Vec::new();
            for _ in 0..8 {
                all.extend(env.store.claim(3, now, lease).await.unwrap());
            }
            all
        },
        async {
            let mut all = Vec::new();
            for _ in 0..8 {
                all.extend(second.claim(3, now, lease).await.unwrap());
            }
            all
        }
    );
    // Skipped rows may leave some events to a later claim; none may be claimed twice.
    let rest = env.store.claim(100, now, lease).await.unwrap();
    let mut ids: Vec<_> = a.iter().chain(&b).chain(&rest).map(|e| e.id).collect();
    let claimed = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), claimed, "an event was handed to both workers");
    assert_eq!(claimed, 40);
}
