//! `Outbox` with events that cannot be read: set aside on their own, the rest of the batch
//! dispatched in the same pass, listed for operators, re-queued on request.

use procflow_domain::values::PageRequest;
use serde_json::json;
use time::Duration;

use super::env::{Env, conformance_test};
use super::support::{document, published, start};
use super::webhooks::{deliveries_of, endpoint};

conformance_test!(an_unreadable_event_is_set_aside_and_the_rest_of_its_batch_dispatched);
async fn an_unreadable_event_is_set_aside_and_the_rest_of_its_batch_dispatched(env: Env) {
    let hook = endpoint(&env, &env.team).await;
    let template = published(&env, &env.team, document()).await;
    env.clock.advance(Duration::seconds(1));
    let empty = env
        .append_stored(&env.other, "process_run.created", json!({}))
        .await;
    env.procflow
        .create_run(&env.team, start(&template))
        .await
        .unwrap();
    let newer = env
        .append_stored(&env.team, "process_run.created", json!({"version": 99}))
        .await;

    let dispatched = env
        .webhooks
        .dispatch(100, Duration::minutes(1))
        .await
        .unwrap();
    assert_eq!(dispatched.taken, 3);
    let mut aside: Vec<_> = dispatched.set_aside.iter().map(|d| d.id).collect();
    aside.sort();
    let mut expected = vec![empty, newer];
    expected.sort();
    assert_eq!(aside, expected);
    assert_eq!(
        deliveries_of(&env, &hook).await.len(),
        1,
        "the readable event went out in the same pass"
    );

    let later = env.clock_now() + Duration::hours(2);
    assert!(
        env.store.claim(100, later, later).await.unwrap().is_empty(),
        "events set aside are never claimed again, whatever their lease"
    );
    let dead = env.store.dead_events(10).await.unwrap();
    assert_eq!(dead.len(), 2);
    let newer_dead = dead.iter().find(|d| d.id == newer).unwrap();
    assert_eq!(newer_dead.team_id, env.team.id);
    assert_eq!(newer_dead.kind, "process_run.created");
    assert_eq!(newer_dead.dead_at, env.clock_now());
    assert!(
        newer_dead.error.contains("newer procflow"),
        "{}",
        newer_dead.error
    );
    let empty_dead = dead.iter().find(|d| d.id == empty).unwrap();
    assert!(
        empty_dead.error.contains("missing field"),
        "{}",
        empty_dead.error
    );
    assert_eq!(
        env.store.dead_events(1).await.unwrap().len(),
        1,
        "the limit holds"
    );

    let feed = env
        .store
        .list_events(env.team.id, None, PageRequest::default())
        .await
        .unwrap();
    assert_eq!(
        feed.items.len(),
        1,
        "the feed shows the readable event only"
    );
}

conformance_test!(an_event_whose_payload_names_another_event_is_set_aside);
async fn an_event_whose_payload_names_another_event_is_set_aside(env: Env) {
    let template = published(&env, &env.team, document()).await;
    env.procflow
        .create_run(&env.team, start(&template))
        .await
        .unwrap();
    // Leases the service's own event far away; its copy below has a row id of its own.
    let event = env.events().await.remove(0);
    let copy = env
        .append_stored(
            &env.team,
            "process_run.created",
            procflow_domain::event::to_stored(&event).unwrap(),
        )
        .await;
    let dispatched = env
        .webhooks
        .dispatch(10, Duration::minutes(1))
        .await
        .unwrap();
    assert_eq!(dispatched.taken, 1);
    assert_eq!(dispatched.set_aside.len(), 1);
    assert_eq!(dispatched.set_aside[0].id, copy);
    assert!(
        dispatched.set_aside[0]
            .error
            .contains(&format!("names event {}", event.id)),
        "{:?}",
        dispatched.set_aside
    );
    let later = env.clock_now() + Duration::hours(1);
    assert!(env.store.claim(10, later, later).await.unwrap().is_empty());
}

conformance_test!(a_requeued_event_is_claimed_again_and_only_a_dead_one_can_be);
async fn a_requeued_event_is_claimed_again_and_only_a_dead_one_can_be(env: Env) {
    let template = published(&env, &env.team, document()).await;
    env.procflow
        .create_run(&env.team, start(&template))
        .await
        .unwrap();
    let bad = env
        .append_stored(&env.team, "process_run.created", json!([]))
        .await;
    let now = env.clock_now();
    let claimed = env
        .store
        .claim(10, now, now + Duration::minutes(1))
        .await
        .unwrap();
    assert_eq!(claimed.len(), 2);
    let live = claimed.iter().find(|c| c.id != bad).unwrap().id;
    let unreadable = claimed.iter().find(|c| c.id == bad).unwrap();
    assert_eq!(unreadable.kind, "process_run.created");
    assert!(unreadable.event.is_err());

    env.store
        .set_aside(&[(bad, "cannot be read".into())], now)
        .await
        .unwrap();
    assert!(
        !env.store.requeue(live, now).await.unwrap(),
        "a live event is not dead"
    );
    assert!(
        !env.store
            .requeue(
                procflow_domain::ids::EventId::from_uuid(uuid::Uuid::nil()),
                now
            )
            .await
            .unwrap()
    );
    env.store.complete(&[live]).await.unwrap();
    env.store
        .set_aside(&[(live, "too late".into())], now)
        .await
        .unwrap();
    assert_eq!(
        env.store.dead_events(10).await.unwrap().len(),
        1,
        "a dispatched event is not set aside"
    );

    env.clock.advance(Duration::seconds(5));
    let later = env.clock_now();
    assert!(env.store.requeue(bad, later).await.unwrap());
    assert!(env.store.dead_events(10).await.unwrap().is_empty());
    assert!(!env.store.requeue(bad, later).await.unwrap(), "once only");
    let again = env
        .store
        .claim(10, later, later + Duration::minutes(1))
        .await
        .unwrap();
    assert_eq!(again.iter().map(|c| c.id).collect::<Vec<_>>(), vec![bad]);
}

/// The first shape an outbox held (before 2026-11-24), as an older instance could still write
/// it: set aside with the way out, then upgraded by the migration's function, re-queued, and
/// delivered with the fields filled from its run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_one_event_is_set_aside_then_upgraded_requeued_and_delivered() {
    use diesel::sql_types::BigInt;
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    use procflow_domain::event::{EventPayload, to_stored};

    #[derive(diesel::QueryableByName)]
    struct Changed {
        #[diesel(sql_type = BigInt)]
        changed: i64,
    }

    let env = Env::postgres().await;
    let hook = endpoint(&env, &env.team).await;
    let template = published(&env, &env.team, document()).await;
    env.clock.advance(Duration::seconds(1));
    let run = env
        .procflow
        .create_run(&env.team, start(&template))
        .await
        .unwrap();
    // Leases the service's own event far away, so that only the copy below is dispatched.
    let mut event = env.events().await.remove(0);
    event.id = procflow_domain::ids::EventId::from_uuid(uuid::Uuid::now_v7());
    let mut stored = to_stored(&event).unwrap();
    let object = stored.as_object_mut().unwrap();
    object.remove("version");
    let payload = object["payload"].as_object_mut().unwrap();
    payload.remove("task_count");
    let run_json = payload["run"].as_object_mut().unwrap();
    run_json.remove("due_date");
    run_json.remove("is_shared");
    let id = event.id;
    let mut conn = AsyncPgConnection::establish(env.pg().db.url())
        .await
        .unwrap();
    diesel::sql_query(
        "INSERT INTO outbox (id, team_id, kind, payload, occurred_at, due_at) \
         VALUES ($1, $2, 'process_run.created', $3, $4, $4)",
    )
    .bind::<diesel::sql_types::Uuid, _>(id.as_uuid())
    .bind::<diesel::sql_types::Uuid, _>(env.team.id.as_uuid())
    .bind::<diesel::sql_types::Jsonb, _>(stored)
    .bind::<diesel::sql_types::Timestamptz, _>(env.clock_now())
    .execute(&mut conn)
    .await
    .unwrap();

    let dispatched = env
        .webhooks
        .dispatch(10, Duration::minutes(1))
        .await
        .unwrap();
    assert_eq!(dispatched.set_aside.len(), 1);
    assert!(
        dispatched.set_aside[0]
            .error
            .contains("outbox_upgrade_version_one()")
    );

    let upgraded: Changed = diesel::sql_query("SELECT outbox_upgrade_version_one() AS changed")
        .get_result(&mut conn)
        .await
        .unwrap();
    assert_eq!(
        upgraded.changed, 3,
        "task_count, the run's due date and sharing, its name in the event feed"
    );
    assert!(env.webhooks.requeue(id).await.unwrap());
    let dispatched = env
        .webhooks
        .dispatch(10, Duration::minutes(1))
        .await
        .unwrap();
    assert_eq!((dispatched.taken, dispatched.set_aside.len()), (1, 0));
    let deliveries = deliveries_of(&env, &hook).await;
    assert_eq!(deliveries.len(), 1);
    let sent: serde_json::Value = serde_json::from_str(&deliveries[0].payload).unwrap();
    assert_eq!(sent["id"], json!(id.as_uuid()));
    let EventPayload::RunCreated { task_count, .. } = &event.payload else {
        panic!("{event:?}")
    };
    assert_eq!(sent["data"]["task_count"], json!(task_count));
    assert_eq!(sent["data"]["is_shared"], json!(run.is_shared));
}
