//! `WindowLimiter`: events counted under several names at once, admitted only when every name
//! has room, exact across instances, refusals counted nowhere, idle rows swept (PostgreSQL).

use std::sync::Arc;

use diesel::QueryableByName;
use diesel::sql_types::BigInt;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use procflow_domain::ports::RateDecision;
use procflow_domain::window::WindowLimit;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

use super::env::{Env, Store, conformance_test};

const T0: OffsetDateTime = datetime!(2026-03-01 9:00 UTC);
const MINUTE: Duration = Duration::seconds(60);

fn at(seconds: f64) -> OffsetDateTime {
    T0 + Duration::seconds_f64(seconds)
}

fn limit(name: &str, limit: u32) -> WindowLimit {
    WindowLimit {
        name: name.to_owned(),
        limit,
    }
}

async fn post(store: &Arc<dyn Store>, limits: &[WindowLimit], now: OffsetDateTime) -> RateDecision {
    store.admit_all(limits, now, MINUTE).await.unwrap()
}

conformance_test!(an_event_is_admitted_only_while_every_name_has_room);
async fn an_event_is_admitted_only_while_every_name_has_room(env: Env) {
    let store = &env.store;
    let run_a = [limit("run:a", 2), limit("address:1", 3)];
    let run_b = [limit("run:b", 2), limit("address:1", 3)];
    assert!(post(store, &run_a, at(0.0)).await.allowed);
    assert!(post(store, &run_a, at(1.0)).await.allowed);
    let refused = post(store, &run_a, at(2.0)).await;
    assert_eq!(
        refused,
        RateDecision {
            allowed: false,
            remaining: 0,
            reset_at: at(60.0)
        },
        "run a is full"
    );
    // The refusal was counted nowhere: the address has exactly one slot left.
    let last = post(store, &run_b, at(3.0)).await;
    assert!(last.allowed);
    assert_eq!(last.remaining, 0);
    let address_full = post(store, &run_b, at(4.0)).await;
    assert!(!address_full.allowed, "the address is full");
    assert_eq!(address_full.reset_at, at(60.0));
    // The window rolls: at 60 s the first post of the address has left it.
    assert!(post(store, &run_b, at(60.0)).await.allowed);
    assert!(!post(store, &run_b, at(60.5)).await.allowed);
    // Long after, everything is back; names in any order.
    let reversed = [limit("address:1", 3), limit("run:a", 2)];
    assert_eq!(post(store, &reversed, at(600.0)).await.remaining, 1);
}

conformance_test!(
    of_90_concurrent_posts_from_two_instances_exactly_the_limit_are_admitted,
    worker_threads = 4
);
async fn of_90_concurrent_posts_from_two_instances_exactly_the_limit_are_admitted(env: Env) {
    let instances = [0, 1].map(|_| env.another_instance(20));
    // Two addresses post to one run; each address alone has room for 50, the run for 60.
    for now in [at(0.0), at(60.0)] {
        let calls: Vec<_> = (0..90)
            .map(|i| {
                let store = Arc::clone(&instances[i % 2]);
                let limits = [
                    limit("run:shared", 60),
                    limit(&format!("address:{}", i % 2), 50),
                ];
                tokio::spawn(async move { store.admit_all(&limits, now, MINUTE).await })
            })
            .collect();
        let mut admitted = 0;
        for call in calls {
            if call.await.unwrap().unwrap().allowed {
                admitted += 1;
            }
        }
        assert_eq!(admitted, 60, "exactly the run's limit at {now}");
    }
}

// PostgreSQL only: what the table keeps.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_idle_for_a_whole_window_are_swept() {
    #[derive(QueryableByName)]
    struct Count {
        #[diesel(sql_type = BigInt)]
        n: i64,
    }
    let env = Env::postgres().await;
    for i in 0..5 {
        post(&env.store, &[limit(&format!("address:{i}"), 5)], at(0.0)).await;
    }
    post(&env.store, &[limit("address:late", 5)], at(200.0)).await;
    let mut conn = AsyncPgConnection::establish(env.pg().db.url())
        .await
        .unwrap();
    let rows: Count = diesel::sql_query("SELECT count(*) AS n FROM rate_windows")
        .get_result(&mut conn)
        .await
        .unwrap();
    assert_eq!(rows.n, 1, "only the row still in its window is left");
}

conformance_test!(a_refusal_says_which_names_were_full_and_until_when);
async fn a_refusal_says_which_names_were_full_and_until_when(env: Env) {
    let store = &env.store;
    let limits = [limit("run:a", 5), limit("address:1", 2)];
    assert!(post(store, &limits, at(0.5)).await.allowed);
    assert!(post(store, &limits, at(10.0)).await.allowed);
    let refused = store.decide_all(&limits, at(20.0), MINUTE).await.unwrap();
    assert_eq!(
        refused.full_until,
        [None, Some(at(60.0))],
        "the address alone was full, until second 0's post leaves"
    );
    assert_eq!(refused.decision.reset_at, at(60.0));
    let admitted = store.decide_all(&limits, at(60.0), MINUTE).await.unwrap();
    assert!(admitted.decision.allowed);
    assert_eq!(admitted.full_until, [None, None]);
    assert_eq!(
        (admitted.decision.remaining, admitted.decision.reset_at),
        (0, at(70.0))
    );
}

conformance_test!(posts_count_in_their_whole_second_and_leave_when_the_window_passes_it);
async fn posts_count_in_their_whole_second_and_leave_when_the_window_passes_it(env: Env) {
    let store = &env.store;
    let limits = [limit("address:2", 3)];
    for at_s in [5.0, 5.999, 6.5] {
        assert!(post(store, &limits, at(at_s)).await.allowed);
    }
    // Two in second 5, one in second 6: both of second 5 leave when second 65 begins.
    assert_eq!(post(store, &limits, at(64.999)).await.reset_at, at(65.0));
    let admitted = post(store, &limits, at(65.0)).await;
    assert!(admitted.allowed);
    assert_eq!((admitted.remaining, admitted.reset_at), (1, at(66.0)));
    assert_eq!(post(store, &limits, at(65.5)).await.remaining, 0);
    assert_eq!(post(store, &limits, at(65.6)).await.reset_at, at(66.0));
}

conformance_test!(
    of_concurrent_posts_from_two_instances_over_a_window_rollover_exactly_the_limit_count,
    worker_threads = 4
);
async fn of_concurrent_posts_from_two_instances_over_a_window_rollover_exactly_the_limit_count(
    env: Env,
) {
    let store = &env.store;
    // 20 posts in second 0, then 100 racing posts: half at 59.9 s (second 0's posts still
    // count: 30 more fit), half at 60.1 s (they have left: the limit is back to 50 counted).
    for _ in 0..20 {
        assert!(
            post(store, &[limit("address:r", 50)], at(0.0))
                .await
                .allowed
        );
    }
    let instances = [0, 1].map(|_| env.another_instance(20));
    let calls: Vec<_> = (0..100)
        .map(|i| {
            let store = Arc::clone(&instances[i % 2]);
            let now = if i < 50 { at(59.9) } else { at(60.1) };
            tokio::spawn(async move {
                let decision = store
                    .admit_all(&[limit("address:r", 50)], now, MINUTE)
                    .await
                    .unwrap();
                (now, decision.allowed)
            })
        })
        .collect();
    let mut admitted_at_60 = 0;
    let mut admitted = 0;
    for call in calls {
        let (now, allowed) = call.await.unwrap();
        if allowed {
            admitted += 1;
            if now == at(60.1) {
                admitted_at_60 += 1;
            }
        }
    }
    assert!(
        admitted >= 30,
        "at least the 30 that fit before 60 s: {admitted}"
    );
    assert!(
        admitted <= 50,
        "never more than the limit counted at 60 s: {admitted}"
    );
    // Whatever the order, at 60.1 s exactly the limit is counted in the window (second 1
    // to 60): a post now is refused, and the window's count is the limit.
    let last = post(store, &[limit("address:r", 50)], at(60.2)).await;
    assert!(!last.allowed);
    assert!(admitted_at_60 <= 50);
}
