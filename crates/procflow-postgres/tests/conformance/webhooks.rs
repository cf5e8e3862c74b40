//! `WebhookStore`, `DeliveryQueue` and `EventFeed`: team scoping, one delivery per (event,
//! endpoint), leases and their fencing, failure counting, the log, the feed and the sweep.

use procflow_domain::error::{DomainError, Resource};
use procflow_domain::etag::{ETag, IfMatch, Tagged};
use procflow_domain::ids::{DeliveryId, EventId, HolderId};
use procflow_domain::queue::Lease;
use procflow_domain::team::Team;
use procflow_domain::values::{Limit, PageRequest};
use procflow_domain::webhook::{
    Attempt, AttemptOutcome, Delivery, DeliveryFilter, DeliveryOrigin, DeliveryStatus, EventNames,
    FAILURES_BEFORE_DISABLE, NewDelivery, NewWebhook, RetrySchedule, Settlement, WebhookEndpoint,
    WebhookEvent, WebhookPatch,
};
use procflow_postgres::PoolConfig;
use time::Duration;
use uuid::Uuid;

use super::env::{ClaimJobs, Env, Queues, conformance_test};
use super::support::{document, published, start};

/// Every delivery of `hook` (of the main team), newest first: the first page of its log.
pub async fn deliveries_of(env: &Env, hook: &WebhookEndpoint) -> Vec<Delivery> {
    env.store
        .list_deliveries(
            env.team.id,
            hook.id,
            DeliveryFilter::default(),
            PageRequest::default(),
        )
        .await
        .unwrap()
        .items
}

pub async fn endpoint(env: &Env, team: &Team) -> WebhookEndpoint {
    env.webhooks
        .create(
            team,
            NewWebhook {
                url: "https://hooks.example.com/in".parse().unwrap(),
                events: None,
                description: Some("ops".into()),
                enabled: None,
            },
        )
        .await
        .unwrap()
}

fn delivery(
    env: &Env,
    endpoint: &WebhookEndpoint,
    event: u128,
    origin: DeliveryOrigin,
) -> NewDelivery {
    NewDelivery {
        id: DeliveryId::from_uuid(Uuid::now_v7()),
        team_id: endpoint.team_id,
        webhook_id: endpoint.id,
        event_id: EventId::from_uuid(Uuid::from_u128(0xE0 + event)),
        event: WebhookEvent::RunCreated,
        origin,
        payload: format!("{{\"n\":{event}}}"),
        created_at: env.clock_now(),
    }
}

fn answered(env: &Env, status: u16) -> Attempt {
    Attempt {
        at: env.clock_now(),
        outcome: AttemptOutcome::Response {
            status,
            body: "ok".into(),
            retry_after: None,
        },
    }
}

conformance_test!(endpoints_are_kept_per_team_and_changed_under_lock);
async fn endpoints_are_kept_per_team_and_changed_under_lock(env: Env) {
    let ours = endpoint(&env, &env.team).await;
    let theirs = endpoint(&env, &env.other).await;
    assert_eq!(
        env.store.get_webhook(env.team.id, ours.id).await.unwrap(),
        ours
    );
    assert_eq!(
        env.store.get_webhook(env.team.id, theirs.id).await,
        Err(DomainError::NotFound(Resource::Webhook))
    );
    assert_eq!(
        env.store.insert_webhook(&ours).await.map_err(|e| e.code()),
        Err(procflow_domain::ErrorCode::Conflict)
    );
    let page = env
        .store
        .list_webhooks(env.team.id, PageRequest::default())
        .await
        .unwrap();
    assert_eq!(page.items, vec![ours.clone()]);
    let unknown = PageRequest {
        limit: Limit::default(),
        cursor: Some(procflow_domain::values::Cursor::after(theirs.id.as_uuid())),
    };
    assert!(matches!(
        env.store.list_webhooks(env.team.id, unknown).await,
        Err(DomainError::Validation(_))
    ));

    let patch = WebhookPatch {
        events: Some(EventNames::parse(&["process_run.completed".to_owned()]).unwrap()),
        description: Some(None),
        enabled: Some(false),
        ..WebhookPatch::default()
    };
    let stale = IfMatch::OneOf(vec![ETag::from_opaque("stale")]);
    assert_eq!(
        env.webhooks
            .update(&env.team, ours.id, patch.clone(), Some(&stale))
            .await,
        Err(DomainError::PreconditionFailed)
    );
    assert_eq!(
        env.store.get_webhook(env.team.id, ours.id).await.unwrap(),
        ours,
        "a failed precondition changes nothing"
    );
    let current = IfMatch::OneOf(vec![ours.etag()]);
    let patched = env
        .webhooks
        .update(&env.team, ours.id, patch, Some(&current))
        .await
        .unwrap();
    assert_ne!(patched.etag(), ours.etag());
    assert_eq!(
        env.store.get_webhook(env.team.id, ours.id).await.unwrap(),
        patched
    );
    let rotated = env
        .webhooks
        .rotate_secret(&env.team, ours.id)
        .await
        .unwrap();
    assert_eq!(
        env.store
            .get_webhook(env.team.id, ours.id)
            .await
            .unwrap()
            .secrets,
        rotated.secrets
    );
    assert_eq!(
        env.store
            .enabled_webhooks(&[env.team.id, env.other.id])
            .await
            .unwrap(),
        vec![theirs.clone()]
    );

    assert_eq!(
        env.store.delete_webhook(env.team.id, theirs.id).await,
        Err(DomainError::NotFound(Resource::Webhook))
    );
    env.store
        .delete_webhook(env.team.id, ours.id)
        .await
        .unwrap();
    assert_eq!(
        env.store.get_webhook(env.team.id, ours.id).await,
        Err(DomainError::NotFound(Resource::Webhook))
    );
}

conformance_test!(a_fan_out_repeated_after_a_crash_creates_one_delivery_per_event_and_endpoint);
async fn a_fan_out_repeated_after_a_crash_creates_one_delivery_per_event_and_endpoint(env: Env) {
    let hook = endpoint(&env, &env.team).await;
    let first = vec![
        delivery(&env, &hook, 1, DeliveryOrigin::Event),
        delivery(&env, &hook, 2, DeliveryOrigin::Event),
    ];
    env.store.enqueue(&first).await.unwrap();
    // The same fan-out again, with fresh delivery ids: nothing new.
    let again = vec![
        delivery(&env, &hook, 1, DeliveryOrigin::Event),
        delivery(&env, &hook, 2, DeliveryOrigin::Event),
    ];
    env.store.enqueue(&again).await.unwrap();
    // A redelivery of the same event is a delivery of its own.
    env.store
        .enqueue(&[delivery(&env, &hook, 1, DeliveryOrigin::Redelivery)])
        .await
        .unwrap();
    let log = deliveries_of(&env, &hook).await;
    assert_eq!(log.len(), 3);
    assert_eq!(env.store.deliveries().backlog().await.unwrap().pending, 3);

    // A delivery to an endpoint deleted meanwhile is dropped.
    let gone = endpoint(&env, &env.team).await;
    env.store
        .delete_webhook(env.team.id, gone.id)
        .await
        .unwrap();
    env.store
        .enqueue(&[delivery(&env, &gone, 3, DeliveryOrigin::Event)])
        .await
        .unwrap();
    assert_eq!(env.store.deliveries().backlog().await.unwrap().pending, 3);
}

conformance_test!(a_claimed_delivery_is_held_until_its_lease_runs_out_and_fenced_by_it);
async fn a_claimed_delivery_is_held_until_its_lease_runs_out_and_fenced_by_it(env: Env) {
    let hook = endpoint(&env, &env.team).await;
    env.store
        .enqueue(&[delivery(&env, &hook, 1, DeliveryOrigin::Event)])
        .await
        .unwrap();
    let now = env.clock_now();
    let lease_until = now + Duration::seconds(30);
    let (first, second) = (Uuid::now_v7(), Uuid::now_v7());
    let claimed = env
        .store
        .deliveries()
        .claim_jobs(10, now, lease_until, first)
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(
        (claimed[0].attempt, claimed[0].url.as_str()),
        (1, "https://hooks.example.com/in")
    );
    assert_eq!(claimed[0].secrets, hook.secrets);
    assert!(
        env.store
            .deliveries()
            .claim_jobs(10, now, lease_until, second)
            .await
            .unwrap()
            .is_empty()
    );
    let shown = env
        .store
        .get_delivery(env.team.id, claimed[0].id)
        .await
        .unwrap();
    assert_eq!(
        (shown.status, shown.attempts, shown.next_attempt_at),
        (DeliveryStatus::Delivering, 1, None)
    );

    // The lease runs out (the worker died): another takes it, and the first can no longer record.
    let retaken = env
        .store
        .deliveries()
        .claim_jobs(10, lease_until, lease_until + Duration::seconds(30), second)
        .await
        .unwrap();
    assert_eq!(retaken.len(), 1);
    assert_eq!(retaken[0].attempt, 2);
    let schedule = RetrySchedule::default();
    let settled = Settlement::of(&claimed[0], answered(&env, 200), &schedule, 0.5);
    assert!(
        !env.store
            .deliveries()
            .settle_one(&claimed[0], &settled)
            .await
            .unwrap(),
        "a lost lease records nothing"
    );
    let settled = Settlement::of(&retaken[0], answered(&env, 200), &schedule, 0.5);
    assert!(
        env.store
            .deliveries()
            .settle_one(&retaken[0], &settled)
            .await
            .unwrap()
    );
    let done = env
        .store
        .get_delivery(env.team.id, claimed[0].id)
        .await
        .unwrap();
    assert_eq!(
        (done.status, done.attempts, done.response_status),
        (DeliveryStatus::Delivered, 2, Some(200))
    );
    assert!(
        !env.store
            .deliveries()
            .settle_one(&retaken[0], &settled)
            .await
            .unwrap(),
        "recorded once"
    );
    assert_eq!(env.store.deliveries().backlog().await.unwrap().pending, 0);
}

conformance_test!(concurrent_claims_never_share_a_delivery);
async fn concurrent_claims_never_share_a_delivery(env: Env) {
    let hook = endpoint(&env, &env.team).await;
    let all: Vec<NewDelivery> = (0..40)
        .map(|n| delivery(&env, &hook, n, DeliveryOrigin::Event))
        .collect();
    env.store.enqueue(&all).await.unwrap();
    let second = env.another_instance(PoolConfig::DEFAULT_MAX_SIZE.into());
    let now = env.clock_now();
    let lease_until = now + Duration::minutes(1);
    let claim_all = |store: std::sync::Arc<dyn super::env::Store>| async move {
        let mut claimed = Vec::new();
        for _ in 0..8 {
            claimed.extend(
                store
                    .deliveries()
                    .claim_jobs(3, now, lease_until, Uuid::now_v7())
                    .await
                    .unwrap(),
            );
        }
        claimed
    };
    let (a, b) = tokio::join!(claim_all(env.store.clone()), claim_all(second));
    let rest = env
        .store
        .deliveries()
        .claim_jobs(100, now, lease_until, Uuid::now_v7())
        .await
        .unwrap();
    let mut ids: Vec<_> = a.iter().chain(&b).chain(&rest).map(|d| d.id).collect();
    let claimed = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), claimed, "a delivery was handed to two workers");
    assert_eq!(claimed, 40);
}

conformance_test!(failures_are_retried_then_counted_and_the_tenth_disables_the_endpoint);
async fn failures_are_retried_then_counted_and_the_tenth_disables_the_endpoint(env: Env) {
    let hook = endpoint(&env, &env.team).await;
    let schedule: RetrySchedule = "5s".parse().unwrap();
    let now = env.clock_now();
    let lease = now + Duration::minutes(1);

    // A retry: pending again, due at the schedule's wait, counted nowhere yet.
    env.store
        .enqueue(&[delivery(&env, &hook, 100, DeliveryOrigin::Event)])
        .await
        .unwrap();
    let claimed = env
        .store
        .deliveries()
        .claim_jobs(1, now, lease, Uuid::now_v7())
        .await
        .unwrap()
        .remove(0);
    let retry = Settlement::of(&claimed, answered(&env, 500), &schedule, 0.5);
    assert!(
        env.store
            .deliveries()
            .settle_one(&claimed, &retry)
            .await
            .unwrap()
    );
    let pending = env
        .store
        .get_delivery(env.team.id, claimed.id)
        .await
        .unwrap();
    assert_eq!(pending.status, DeliveryStatus::Pending);
    assert_eq!(pending.next_attempt_at, Some(now + Duration::seconds(5)));
    assert_eq!(pending.error.as_deref(), Some("the endpoint answered 500"));
    assert!(
        env.store
            .deliveries()
            .claim_jobs(1, now, lease, Uuid::now_v7())
            .await
            .unwrap()
            .is_empty(),
        "not due yet"
    );
    let again = env
        .store
        .deliveries()
        .claim_jobs(1, now + Duration::seconds(5), lease, Uuid::now_v7())
        .await
        .unwrap()
        .remove(0);
    let failed = Settlement::of(&again, answered(&env, 500), &schedule, 0.5);
    assert!(
        env.store
            .deliveries()
            .settle_one(&again, &failed)
            .await
            .unwrap()
    );
    assert_eq!(
        env.store
            .get_webhook(env.team.id, hook.id)
            .await
            .unwrap()
            .consecutive_failures,
        1
    );

    // Nine more deliveries fail at once (a schedule of one attempt): the tenth disables.
    for n in 0..FAILURES_BEFORE_DISABLE - 1 {
        env.store
            .enqueue(&[delivery(&env, &hook, u128::from(n), DeliveryOrigin::Event)])
            .await
            .unwrap();
        let claimed = env
            .store
            .deliveries()
            .claim_jobs(1, now + Duration::seconds(5), lease, Uuid::now_v7())
            .await
            .unwrap()
            .remove(0);
        let last: RetrySchedule = "1s".parse().unwrap();
        let settled = Settlement::of(&Settlement_last(&claimed), answered(&env, 503), &last, 0.5);
        assert!(
            env.store
                .deliveries()
                .settle_one(&claimed, &settled)
                .await
                .unwrap()
        );
    }
    let disabled = env.store.get_webhook(env.team.id, hook.id).await.unwrap();
    assert_eq!(disabled.consecutive_failures, FAILURES_BEFORE_DISABLE);
    assert!(!disabled.enabled);
    assert_eq!(
        disabled.disabled_reason,
        Some(procflow_domain::webhook::DisabledReason::ConsecutiveFailures)
    );
    let enabled = env
        .webhooks
        .update(
            &env.team,
            hook.id,
            WebhookPatch {
                enabled: Some(true),
                ..WebhookPatch::default()
            },
            None,
        )
        .await
        .unwrap();
    assert_eq!(
        (
            enabled.enabled,
            enabled.disabled_reason,
            enabled.consecutive_failures
        ),
        (true, None, 0)
    );
}

/// The claim as if it were the schedule's last attempt.
#[allow(non_snake_case, reason = "reads as the settlement's input")]
fn Settlement_last(
    claimed: &procflow_domain::webhook::ClaimedDelivery,
) -> procflow_domain::webhook::ClaimedDelivery {
    procflow_domain::webhook::ClaimedDelivery {
        attempt: 2,
        ..claimed.clone()
    }
}

conformance_test!(a_delivery_resets_the_count_and_a_test_does_not_count);
async fn a_delivery_resets_the_count_and_a_test_does_not_count(env: Env) {
    let hook = endpoint(&env, &env.team).await;
    let schedule: RetrySchedule = "1s".parse().unwrap();
    let now = env.clock_now();
    let lease = now + Duration::minutes(1);
    for (n, origin, status) in [
        (1, DeliveryOrigin::Event, 500),
        (2, DeliveryOrigin::Test, 500),
        (3, DeliveryOrigin::Redelivery, 500),
    ] {
        env.store
            .enqueue(&[delivery(&env, &hook, n, origin)])
            .await
            .unwrap();
        let claimed = env
            .store
            .deliveries()
            .claim_jobs(1, now, lease, Uuid::now_v7())
            .await
            .unwrap()
            .remove(0);
        let settled = Settlement::of(
            &Settlement_last(&claimed),
            answered(&env, status),
            &schedule,
            0.5,
        );
        env.store
            .deliveries()
            .settle_one(&claimed, &settled)
            .await
            .unwrap();
    }
    assert_eq!(
        env.store
            .get_webhook(env.team.id, hook.id)
            .await
            .unwrap()
            .consecutive_failures,
        2
    );
    env.store
        .enqueue(&[delivery(&env, &hook, 4, DeliveryOrigin::Event)])
        .await
        .unwrap();
    let claimed = env
        .store
        .deliveries()
        .claim_jobs(1, now, lease, Uuid::now_v7())
        .await
        .unwrap()
        .remove(0);
    let settled = Settlement::of(&claimed, answered(&env, 204), &schedule, 0.5);
    env.store
        .deliveries()
        .settle_one(&claimed, &settled)
        .await
        .unwrap();
    assert_eq!(
        env.store
            .get_webhook(env.team.id, hook.id)
            .await
            .unwrap()
            .consecutive_failures,
        0
    );
}

conformance_test!(a_released_delivery_is_due_again_with_its_attempt_uncounted);
async fn a_released_delivery_is_due_again_with_its_attempt_uncounted(env: Env) {
    let hook = endpoint(&env, &env.team).await;
    env.store
        .enqueue(&[
            delivery(&env, &hook, 1, DeliveryOrigin::Event),
            delivery(&env, &hook, 2, DeliveryOrigin::Event),
        ])
        .await
        .unwrap();
    let now = env.clock_now();
    let holder = HolderId::from_uuid(Uuid::now_v7());
    let lease = Lease {
        holder,
        token: Uuid::now_v7(),
        until: now + Duration::minutes(1),
    };
    let claimed = env
        .store
        .deliveries()
        .claim_due(1, now, &lease)
        .await
        .unwrap()
        .jobs;
    let elsewhere = HolderId::from_uuid(Uuid::now_v7());
    assert_eq!(
        env.store
            .deliveries()
            .release(elsewhere, now)
            .await
            .unwrap(),
        0,
        "another holder gives back nothing of this one's"
    );
    assert_eq!(
        env.store.deliveries().release(holder, now).await.unwrap(),
        1
    );
    assert_eq!(
        env.store.deliveries().release(holder, now).await.unwrap(),
        0
    );
    let back = env
        .store
        .get_delivery(env.team.id, claimed[0].id)
        .await
        .unwrap();
    assert_eq!((back.status, back.attempts), (DeliveryStatus::Pending, 0));
    assert_eq!(
        env.store
            .deliveries()
            .claim_jobs(10, now, now + Duration::minutes(1), Uuid::now_v7())
            .await
            .unwrap()
            .len(),
        2
    );
}

conformance_test!(the_log_is_newest_first_filtered_paged_and_team_scoped);
async fn the_log_is_newest_first_filtered_paged_and_team_scoped(env: Env) {
    let hook = endpoint(&env, &env.team).await;
    let theirs = endpoint(&env, &env.other).await;
    let all: Vec<NewDelivery> = (0..3)
        .map(|n| delivery(&env, &hook, n, DeliveryOrigin::Event))
        .collect();
    env.store.enqueue(&all).await.unwrap();
    env.store
        .enqueue(&[delivery(&env, &theirs, 9, DeliveryOrigin::Event)])
        .await
        .unwrap();
    let now = env.clock_now();
    let claimed = env
        .store
        .deliveries()
        .claim_jobs(1, now, now + Duration::minutes(1), Uuid::now_v7())
        .await
        .unwrap()
        .remove(0);
    let settled = Settlement::of(
        &claimed,
        answered(&env, 200),
        &RetrySchedule::default(),
        0.5,
    );
    env.store
        .deliveries()
        .settle_one(&claimed, &settled)
        .await
        .unwrap();

    let two = PageRequest {
        limit: Limit::new(2).unwrap(),
        cursor: None,
    };
    let page = env
        .store
        .list_deliveries(env.team.id, hook.id, DeliveryFilter::default(), two)
        .await
        .unwrap();
    assert_eq!(
        page.items.iter().map(|d| d.id).collect::<Vec<_>>(),
        vec![all[2].id, all[1].id]
    );
    assert!(page.has_more);
    let rest = env
        .store
        .list_deliveries(
            env.team.id,
            hook.id,
            DeliveryFilter::default(),
            PageRequest {
                cursor: page.next_cursor,
                ..two
            },
        )
        .await
        .unwrap();
    assert_eq!(
        rest.items.iter().map(|d| d.id).collect::<Vec<_>>(),
        vec![all[0].id]
    );
    assert!(!rest.has_more);
    let delivered = DeliveryFilter {
        status: Some(DeliveryStatus::Delivered),
    };
    let only = env
        .store
        .list_deliveries(env.team.id, hook.id, delivered, PageRequest::default())
        .await
        .unwrap();
    assert_eq!(
        only.items.iter().map(|d| d.id).collect::<Vec<_>>(),
        vec![claimed.id]
    );
    let wrong_cursor = PageRequest {
        cursor: Some(procflow_domain::values::Cursor::after(all[1].id.as_uuid())),
        ..PageRequest::default()
    };
    assert!(matches!(
        env.store
            .list_deliveries(env.team.id, hook.id, delivered, wrong_cursor)
            .await,
        Err(DomainError::Validation(_))
    ));

    assert_eq!(
        env.store
            .list_deliveries(
                env.team.id,
                theirs.id,
                DeliveryFilter::default(),
                PageRequest::default()
            )
            .await,
        Err(DomainError::NotFound(Resource::Webhook))
    );
    let their_delivery = env
        .store
        .list_deliveries(
            env.other.id,
            theirs.id,
            DeliveryFilter::default(),
            PageRequest::default(),
        )
        .await
        .unwrap()
        .items
        .remove(0);
    assert_eq!(
        env.store.get_delivery(env.team.id, their_delivery.id).await,
        Err(DomainError::NotFound(Resource::Delivery))
    );
}

conformance_test!(the_feed_lists_the_teams_webhook_events_oldest_first);
async fn the_feed_lists_the_teams_webhook_events_oldest_first(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let theirs = published(&env, &env.other, document()).await;
    let mut runs = Vec::new();
    for _ in 0..3 {
        runs.push(
            env.procflow
                .create_run(&env.team, start(&template))
                .await
                .unwrap(),
        );
        env.clock.advance(Duration::seconds(1));
    }
    env.procflow
        .create_run(&env.other, start(&theirs))
        .await
        .unwrap();
    let page = env
        .store
        .list_events(
            env.team.id,
            None,
            PageRequest {
                limit: Limit::new(2).unwrap(),
                cursor: None,
            },
        )
        .await
        .unwrap();
    let ran = |events: &[procflow_domain::event::Event]| {
        events
            .iter()
            .filter_map(|e| e.payload.run_id())
            .collect::<Vec<_>>()
    };
    assert_eq!(ran(&page.items), vec![runs[0].id, runs[1].id]);
    assert!(page.has_more);
    let rest = env
        .store
        .list_events(
            env.team.id,
            None,
            PageRequest {
                limit: Limit::new(2).unwrap(),
                cursor: page.next_cursor,
            },
        )
        .await
        .unwrap();
    assert_eq!(ran(&rest.items), vec![runs[2].id]);
    let completed = env
        .store
        .list_events(
            env.team.id,
            Some(WebhookEvent::RunCompleted),
            PageRequest::default(),
        )
        .await
        .unwrap();
    assert!(completed.items.is_empty());
    let unknown = PageRequest {
        cursor: page.next_cursor,
        ..PageRequest::default()
    };
    assert!(matches!(
        env.store.list_events(env.other.id, None, unknown).await,
        Err(DomainError::Validation(_))
    ));
    // A task completed without webhook_enabled is an event of the outbox, not of the feed.
    let tasks = env
        .procflow
        .list_tasks(&env.team, runs[0].id, PageRequest::default())
        .await
        .unwrap()
        .items;
    let plain = tasks.iter().find(|t| !t.webhook_enabled).unwrap();
    let update = procflow_domain::service::UpdateTask {
        completed: Some(true),
        ..Default::default()
    };
    env.procflow
        .update_task(&env.team, runs[0].id, plain.id, update)
        .await
        .unwrap();
    let all = env
        .store
        .list_events(env.team.id, None, PageRequest::default())
        .await
        .unwrap();
    assert_eq!(all.items.len(), 3);
}

conformance_test!(the_sweep_removes_ended_deliveries_and_dispatched_events_older_than_the_cutoff);
async fn the_sweep_removes_ended_deliveries_and_dispatched_events_older_than_the_cutoff(env: Env) {
    let hook = endpoint(&env, &env.team).await;
    let template = published(&env, &env.team, document()).await;
    env.clock.advance(Duration::seconds(1));
    env.procflow
        .create_run(&env.team, start(&template))
        .await
        .unwrap();
    assert_eq!(
        env.webhooks
            .dispatch(100, Duration::minutes(1))
            .await
            .unwrap()
            .taken,
        1
    );
    env.store
        .enqueue(&[delivery(&env, &hook, 1, DeliveryOrigin::Event)])
        .await
        .unwrap();
    let now = env.clock_now();
    let claimed = env
        .store
        .deliveries()
        .claim_jobs(1, now, now + Duration::minutes(1), Uuid::now_v7())
        .await
        .unwrap()
        .remove(0);
    let settled = Settlement::of(
        &claimed,
        answered(&env, 200),
        &RetrySchedule::default(),
        0.5,
    );
    env.store
        .deliveries()
        .settle_one(&claimed, &settled)
        .await
        .unwrap();

    assert_eq!(
        env.store.deliveries().sweep(now).await.unwrap(),
        0,
        "nothing older than the cutoff"
    );
    let later = now + Duration::days(31);
    assert_eq!(
        env.store.deliveries().sweep(later).await.unwrap(),
        1,
        "the pending one stays"
    );
    assert_eq!(env.store.deliveries().backlog().await.unwrap().pending, 1);
    assert_eq!(env.store.sweep_events(later).await.unwrap(), 1);
    assert!(
        env.store
            .list_events(env.team.id, None, PageRequest::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );
}

conformance_test!(outcomes_recorded_together_keep_the_fence_and_the_counts);
async fn outcomes_recorded_together_keep_the_fence_and_the_counts(env: Env) {
    let hook = endpoint(&env, &env.team).await;
    let schedule: RetrySchedule = "5s".parse().unwrap();
    let now = env.clock_now();
    let all: Vec<NewDelivery> = (0..4)
        .map(|n| delivery(&env, &hook, n, DeliveryOrigin::Event))
        .collect();
    env.store.enqueue(&all).await.unwrap();
    let claimed = env
        .store
        .deliveries()
        .claim_jobs(4, now, now + Duration::minutes(1), Uuid::now_v7())
        .await
        .unwrap();
    assert_eq!(claimed.len(), 4);
    let lost = procflow_domain::webhook::ClaimedDelivery {
        lease: Uuid::now_v7(),
        ..claimed[3].clone()
    };
    let outcomes = vec![
        (claimed[1].clone(), 200),
        (Settlement_last(&claimed[0]), 500),
        (claimed[2].clone(), 503),
        (lost, 200),
    ];
    let settled: Vec<_> = outcomes
        .into_iter()
        .map(|(c, status)| {
            let s = Settlement::of(&c, answered(&env, status), &schedule, 0.5);
            (c, s)
        })
        .collect();
    let recorded = env.store.deliveries().settle(&settled).await.unwrap();
    assert_eq!(recorded, vec![true, true, true, false]);
    // In the order given, the failure counts after the delivery.
    let status = |i: usize| {
        let store = env.store.clone();
        let id = claimed[i].id;
        let team = env.team.id;
        async move { store.get_delivery(team, id).await.unwrap().status }
    };
    assert_eq!(status(0).await, DeliveryStatus::Failed);
    assert_eq!(status(1).await, DeliveryStatus::Delivered);
    assert_eq!(status(2).await, DeliveryStatus::Pending);
    assert_eq!(
        status(3).await,
        DeliveryStatus::Delivering,
        "the lost lease wrote nothing"
    );
    assert_eq!(
        env.store
            .get_webhook(env.team.id, hook.id)
            .await
            .unwrap()
            .consecutive_failures,
        1
    );
}
