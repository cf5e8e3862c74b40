//! The claim rule of every leased queue (webhook deliveries and emails alike): a holder's
//! renewals keep its jobs however long their attempts run; a holder that stops renewing loses
//! them one lease after its last renewal, to the next claim, which reports whose they were; a
//! renewal and a takeover racing for a job never both win. Time is the tests' own (each call
//! names its `now`), never slept.

use std::sync::Arc;

use procflow_domain::ids::{DeliveryId, EmailId, EventId, HolderId};
use procflow_domain::mail::{MailContent, MailKind, MailOutcome, Mails, NewMail};
use procflow_domain::ports::LeasedQueue;
use procflow_domain::queue::{Claim, Job, Lease, Takeover};
use procflow_domain::webhook::{
    AttemptOutcome, Deliveries, DeliveryOrigin, NewDelivery, RetrySchedule, WebhookEndpoint,
    WebhookEvent,
};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use super::env::{Env, Queues, Store, conformance_test};
use super::webhooks::endpoint;

const LEASE: Duration = Duration::seconds(5);

/// One queue of a store, with how a test makes its jobs and ends one.
struct Kind<J: Job> {
    queue: for<'a> fn(&'a (dyn Store + 'static)) -> &'a dyn LeasedQueue<J>,
    id: fn(&J::Claimed) -> Uuid,
    success: fn() -> J::Outcome,
}

// By hand: the derives would ask `J: Copy`, and a kind is only function pointers.
impl<J: Job> Clone for Kind<J> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<J: Job> Copy for Kind<J> {}

fn deliveries() -> Kind<Deliveries> {
    Kind {
        queue: |store| store.deliveries(),
        id: |claimed| claimed.id.as_uuid(),
        success: || AttemptOutcome::Response {
            status: 200,
            body: "ok".into(),
            retry_after: None,
        },
    }
}

fn mails() -> Kind<Mails> {
    Kind {
        queue: |store| store.mails(),
        id: |claimed| claimed.id.as_uuid(),
        success: || MailOutcome::Sent,
    }
}

/// Queues `count` webhook deliveries (to a new endpoint of the team) and `count` emails, due
/// at the test clock's now.
async fn enqueue(env: &Env, count: u128) {
    let hook = endpoint(env, &env.team).await;
    let now = env.clock_now();
    let deliveries: Vec<NewDelivery> = (0..count).map(|n| delivery(&hook, 0xD0 + n, now)).collect();
    env.store.enqueue(&deliveries).await.unwrap();
    let mails: Vec<NewMail> = (0..count)
        .map(|n| NewMail {
            id: EmailId::from_uuid(Uuid::now_v7()),
            team_id: env.team.id,
            event_id: EventId::from_uuid(Uuid::from_u128(0xEE0 + n)),
            kind: MailKind::GuestInvitation,
            recipient: format!("guest{n}@example.org").parse().unwrap(),
            content: MailContent {
                team_name: "Team a".into(),
                run_title: "Onboarding".into(),
                task_title: None,
                due_date: None,
                share_url: Some("https://a.example/instance/x?token=t".into()),
                comment: None,
                problem: None,
            },
            created_at: now,
        })
        .collect();
    env.store.enqueue_mail(&mails).await.unwrap();
}

/// A delivery to `hook` of event `n` (its payload names it), created and due at `at`.
fn delivery(hook: &WebhookEndpoint, n: u128, at: OffsetDateTime) -> NewDelivery {
    NewDelivery {
        id: DeliveryId::from_uuid(Uuid::now_v7()),
        team_id: hook.team_id,
        webhook_id: hook.id,
        event_id: EventId::from_uuid(Uuid::from_u128(n)),
        event: WebhookEvent::RunCreated,
        origin: DeliveryOrigin::Event,
        payload: format!("{{\"n\":{n}}}"),
        created_at: at,
    }
}

fn holder(n: u128) -> HolderId {
    HolderId::from_uuid(Uuid::from_u128(0x4011_0000 + n))
}

fn lease(holder: HolderId, until: OffsetDateTime) -> Lease {
    Lease {
        holder,
        token: Uuid::now_v7(),
        until,
    }
}

fn done<J: Job>(kind: &Kind<J>, claimed: &J::Claimed, at: OffsetDateTime) -> J::Settlement {
    J::settle(
        claimed,
        at,
        (kind.success)(),
        &RetrySchedule::default(),
        0.5,
    )
}

conformance_test!(a_dead_holders_jobs_are_taken_over_one_lease_after_its_last_renewal);
async fn a_dead_holders_jobs_are_taken_over_one_lease_after_its_last_renewal(env: Env) {
    enqueue(&env, 2).await;
    let other = env.another_instance(4);
    let t0 = env.clock_now();
    dead_holder(&deliveries(), &env.store, &other, t0).await;
    dead_holder(&mails(), &env.store, &other, t0).await;
}

async fn dead_holder<J: Job>(
    kind: &Kind<J>,
    mine: &Arc<dyn Store>,
    theirs: &Arc<dyn Store>,
    t0: OffsetDateTime,
) {
    let (a, b) = ((kind.queue)(&**mine), (kind.queue)(&**theirs));
    let (dead, survivor) = (holder(1), holder(2));
    let held = a.claim_due(10, t0, &lease(dead, t0 + LEASE)).await.unwrap();
    assert_eq!(held.jobs.len(), 2);
    assert!(held.taken_over.is_empty(), "pending jobs are no takeover");

    let early = t0 + LEASE - Duration::seconds(1);
    let none = b
        .claim_due(10, early, &lease(survivor, early + LEASE))
        .await;
    assert!(none.unwrap().jobs.is_empty(), "held until the lease ends");
    // The holder renews once, then dies: its jobs are free one lease after that renewal.
    let renewed_until = early + LEASE;
    assert_eq!(a.renew(dead, renewed_until).await.unwrap(), 2);
    let first_end = t0 + LEASE + Duration::seconds(1);
    let none = b
        .claim_due(10, first_end, &lease(survivor, first_end + LEASE))
        .await;
    assert!(
        none.unwrap().jobs.is_empty(),
        "a renewed lease does not end when the claim's first would have"
    );

    let taken = b
        .claim_due(10, renewed_until, &lease(survivor, renewed_until + LEASE))
        .await
        .unwrap();
    assert_eq!(
        taken.jobs.len(),
        2,
        "taken over when the renewed lease ends"
    );
    assert!(taken.jobs.iter().all(|job| J::attempt(job) == 2));
    assert_eq!(
        taken.taken_over,
        vec![Takeover {
            from: Some(dead),
            jobs: 2
        }]
    );
    assert_eq!(taken.count_taken_over(), 2);

    // What the dead holder would still do (had it only been cut off) changes nothing.
    let late = renewed_until + Duration::seconds(1);
    let lost = a
        .settle_one(&held.jobs[0], &done(kind, &held.jobs[0], late))
        .await;
    assert!(!lost.unwrap(), "its outcome is fenced off");
    assert_eq!(a.renew(dead, late + LEASE).await.unwrap(), 0);
    assert_eq!(a.release(dead, late).await.unwrap(), 0);
    let again = b.claim_due(10, late, &lease(holder(3), late + LEASE)).await;
    assert!(
        again.unwrap().jobs.is_empty(),
        "the survivor's claim is its own"
    );

    assert_eq!(b.renew(survivor, late + LEASE).await.unwrap(), 2);
    for job in &taken.jobs {
        assert!(b.settle_one(job, &done(kind, job, late)).await.unwrap());
    }
    assert_eq!(b.backlog().await.unwrap().pending, 0);
    assert_eq!(
        b.renew(survivor, late + LEASE).await.unwrap(),
        0,
        "none in flight"
    );
    let ids = |jobs: &[J::Claimed]| jobs.iter().map(kind.id).collect::<Vec<_>>();
    assert_eq!(
        ids(&taken.jobs),
        ids(&held.jobs),
        "the same jobs, oldest first"
    );
}

conformance_test!(a_living_holders_jobs_are_never_taken_over_however_long_its_attempt);
async fn a_living_holders_jobs_are_never_taken_over_however_long_its_attempt(env: Env) {
    enqueue(&env, 1).await;
    let other = env.another_instance(4);
    let t0 = env.clock_now();
    living_holder(&deliveries(), &env.store, &other, t0).await;
    living_holder(&mails(), &env.store, &other, t0).await;
}

async fn living_holder<J: Job>(
    kind: &Kind<J>,
    mine: &Arc<dyn Store>,
    theirs: &Arc<dyn Store>,
    t0: OffsetDateTime,
) {
    let (a, b) = ((kind.queue)(&**mine), (kind.queue)(&**theirs));
    let (slow, eager) = (holder(1), holder(2));
    let held = a.claim_due(1, t0, &lease(slow, t0 + LEASE)).await.unwrap();
    assert_eq!(held.jobs.len(), 1);
    // Ten leases long: another claims just before each renewal (the latest it could find
    // the job free), and the holder renews a third of a lease after the last.
    let step = LEASE / 3;
    let mut now = t0;
    for _ in 0..30 {
        now += step;
        let claimed = b.claim_due(10, now, &lease(eager, now + LEASE)).await;
        assert!(
            claimed.unwrap().jobs.is_empty(),
            "taken from a living holder"
        );
        assert_eq!(a.renew(slow, now + LEASE).await.unwrap(), 1);
    }
    let job = &held.jobs[0];
    assert!(a.settle_one(job, &done(kind, job, now)).await.unwrap());
    assert_eq!(J::attempt(job), 1, "one attempt, never repeated");
    assert_eq!(a.backlog().await.unwrap().pending, 0);
}

conformance_test!(a_renewal_keeps_its_holders_jobs_in_flight_and_nothing_else);
async fn a_renewal_keeps_its_holders_jobs_in_flight_and_nothing_else(env: Env) {
    enqueue(&env, 3).await;
    let t0 = env.clock_now();
    renewal_is_by_holder(&deliveries(), &env.store, t0).await;
    renewal_is_by_holder(&mails(), &env.store, t0).await;
}

async fn renewal_is_by_holder<J: Job>(kind: &Kind<J>, store: &Arc<dyn Store>, t0: OffsetDateTime) {
    let queue = (kind.queue)(&**store);
    let (a, b) = (holder(1), holder(2));
    let mut of_a = queue.claim_due(2, t0, &lease(a, t0 + LEASE)).await.unwrap();
    let of_b = queue.claim_due(2, t0, &lease(b, t0 + LEASE)).await.unwrap();
    assert_eq!((of_a.jobs.len(), of_b.jobs.len()), (2, 1));
    let ended = of_a.jobs.remove(0);
    assert!(
        queue
            .settle_one(&ended, &done(kind, &ended, t0))
            .await
            .unwrap()
    );

    assert_eq!(
        queue.renew(a, t0 + 3 * LEASE).await.unwrap(),
        1,
        "the job in flight, not the one ended"
    );
    let end = t0 + LEASE;
    let taken = queue
        .claim_due(10, end, &lease(holder(3), end + LEASE))
        .await
        .unwrap();
    assert_eq!(
        taken.jobs.iter().map(kind.id).collect::<Vec<_>>(),
        vec![(kind.id)(&of_b.jobs[0])],
        "only b's job, which a's renewal left alone"
    );
    assert_eq!(
        taken.taken_over,
        vec![Takeover {
            from: Some(b),
            jobs: 1
        }]
    );
    assert_eq!(queue.release(a, end).await.unwrap(), 1);
    let back = queue
        .claim_due(10, end, &lease(holder(4), end + LEASE))
        .await
        .unwrap();
    assert_eq!(back.jobs.len(), 1, "given back, due at once");
    assert!(
        back.taken_over.is_empty(),
        "a job given back is no takeover"
    );
}

conformance_test!(
    a_renewal_and_a_takeover_racing_never_both_win,
    worker_threads = 4
);
async fn a_renewal_and_a_takeover_racing_never_both_win(env: Env) {
    enqueue(&env, 6).await;
    let other = env.another_instance(4);
    let t0 = env.clock_now();
    racing(&deliveries(), &env.store, &other, t0).await;
    racing(&mails(), &env.store, &other, t0).await;
}

async fn racing<J: Job>(
    kind: &Kind<J>,
    mine: &Arc<dyn Store>,
    theirs: &Arc<dyn Store>,
    t0: OffsetDateTime,
) {
    let (a, b) = ((kind.queue)(&**mine), (kind.queue)(&**theirs));
    let (renewer, taker) = (holder(1), holder(2));
    let all = a
        .claim_due(10, t0, &lease(renewer, t0 + LEASE))
        .await
        .unwrap();
    let count = u64::try_from(all.jobs.len()).unwrap();
    assert_eq!(count, 6);
    let mut end = t0 + LEASE;
    for _ in 0..10 {
        // At the very end of the lease its holder renews while another instance claims.
        let taking = lease(taker, end + LEASE);
        let (renewed, taken) =
            tokio::join!(a.renew(renewer, end + LEASE), b.claim_due(10, end, &taking));
        let (renewed, taken) = (renewed.unwrap(), taken.unwrap());
        let taken_count = u64::try_from(taken.jobs.len()).unwrap();
        assert_eq!(
            renewed + taken_count,
            count,
            "each job renewed by its holder or taken over, never both nor neither"
        );
        assert_eq!(taken.count_taken_over(), taken_count);
        // What the other took goes back to the renewer, for the next round.
        assert_eq!(b.release(taker, end).await.unwrap(), taken_count);
        let back = a.claim_due(10, end, &lease(renewer, end + LEASE)).await;
        assert_eq!(
            u64::try_from(back.unwrap().jobs.len()).unwrap(),
            taken_count
        );
        end += LEASE;
    }
}

conformance_test!(a_dead_holders_delivery_to_a_deleted_endpoint_is_never_taken_over);
async fn a_dead_holders_delivery_to_a_deleted_endpoint_is_never_taken_over(env: Env) {
    enqueue(&env, 1).await;
    let t0 = env.clock_now();
    let queue = env.store.deliveries();
    let held = queue
        .claim_due(1, t0, &lease(holder(1), t0 + LEASE))
        .await
        .unwrap();
    assert_eq!(held.jobs.len(), 1);
    env.webhooks
        .delete(&env.team, held.jobs[0].webhook_id)
        .await
        .unwrap();
    let end = t0 + LEASE;
    let taken = queue
        .claim_due(10, end, &lease(holder(2), end + LEASE))
        .await;
    assert!(taken.unwrap().jobs.is_empty(), "its endpoint is gone");
    assert_eq!(queue.backlog().await.unwrap().pending, 0);
}

conformance_test!(
    holders_draining_one_queue_take_each_job_once_and_never_fail,
    worker_threads = 4
);
async fn holders_draining_one_queue_take_each_job_once_and_never_fail(env: Env) {
    // Enough jobs, all due at the same instant (as a burst of events or a bulk redelivery
    // makes them), for the holders' claims and settles to overlap many times.
    const JOBS: u128 = 10_000;
    enqueue(&env, JOBS).await;
    let stores: Vec<_> = (0..4).map(|_| env.another_instance(8)).collect();
    let t0 = env.clock_now();
    draining(&deliveries(), &stores, t0, JOBS).await;
    draining(&mails(), &stores, t0, JOBS).await;
}

/// Each instance, as its own holder, claims batches and settles each job's outcome while it
/// claims more, as a worker does (its attempts end one by one, its claims go on), until
/// nothing is due. The clock stands still, so no lease runs out and no job may be taken twice;
/// and no holder's statements may fail because of another's.
async fn draining<J: Job>(
    kind: &Kind<J>,
    stores: &[Arc<dyn Store>],
    t0: OffsetDateTime,
    jobs: u128,
) {
    let drain = |store: Arc<dyn Store>, who: HolderId| {
        let kind = *kind;
        async move {
            let mut taken = Vec::new();
            let mut settling = tokio::task::JoinSet::new();
            loop {
                let claim = (kind.queue)(&*store)
                    .claim_due(128, t0, &lease(who, t0 + LEASE))
                    .await
                    .unwrap_or_else(|error| panic!("{who:?} claiming: {error}"));
                if claim.jobs.is_empty() && settling.is_empty() {
                    return taken;
                }
                assert_eq!(claim.count_taken_over(), 0, "no lease ran out");
                taken.extend(claim.jobs.iter().map(kind.id));
                // Attempts end in any order, and the settles record what ended together:
                // here the claim's last and first jobs, then its last but one and second...
                let mut ended = Vec::with_capacity(claim.jobs.len());
                let (mut first, mut last) = (0, claim.jobs.len());
                while first < last {
                    last -= 1;
                    ended.push(claim.jobs[last].clone());
                    if first < last {
                        ended.push(claim.jobs[first].clone());
                        first += 1;
                    }
                }
                for chunk in ended.chunks(4) {
                    // At most 6 settles and the claim at once: the holder's 8 connections
                    // serve them all without a wait for a slot (a slow engine, Citus on a
                    // busy machine, must not fail a settle on the pool's timeout).
                    while settling.len() >= 6 {
                        settling.join_next().await.unwrap().unwrap();
                    }
                    let store = Arc::clone(&store);
                    let settled: Vec<_> = chunk
                        .iter()
                        .map(|job| (job.clone(), done(&kind, job, t0)))
                        .collect();
                    settling.spawn(async move {
                        let recorded = (kind.queue)(&*store)
                            .settle(&settled)
                            .await
                            .unwrap_or_else(|error| panic!("{who:?} settling: {error}"));
                        assert!(
                            recorded.iter().all(|r| *r),
                            "every outcome of its own claim"
                        );
                    });
                }
                while claim.jobs.is_empty() && !settling.is_empty() {
                    settling.join_next().await.unwrap().unwrap();
                }
            }
        }
    };
    let holders: Vec<_> = stores
        .iter()
        .zip(1..)
        .map(|(store, n)| tokio::spawn(drain(Arc::clone(store), holder(n))))
        .collect();
    let mut all = Vec::new();
    for taken in holders {
        all.extend(taken.await.unwrap());
    }
    let count = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), count, "no job taken by two holders");
    assert_eq!(u128::try_from(count).unwrap(), jobs, "every job taken");
}

// PostgreSQL only: the order of two claims is forced with a row lock the test holds (skipped
// by `make test-citus`: it sees the claims wait in the coordinator's pg_stat_activity).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_claim_that_waited_for_another_takes_what_that_one_left() {
    use diesel::sql_types::Uuid as SqlUuid;
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};

    let env = Env::postgres().await;
    let hook = endpoint(&env, &env.team).await;
    let t0 = env.clock_now();
    // Four deliveries due a second apart, oldest first.
    let queued: Vec<NewDelivery> = (0..4_u8)
        .map(|n| {
            delivery(
                &hook,
                0xF0 + u128::from(n),
                t0 - Duration::seconds(4 - i64::from(n)),
            )
        })
        .collect();
    env.store.enqueue(&queued).await.unwrap();
    let ids: Vec<Uuid> = queued.iter().map(|d| d.id.as_uuid()).collect();

    // The first claim stops at the second-oldest delivery, held by the test; the second claim
    // starts while the first waits there.
    let url = env.pg().db.url().to_owned();
    let mut holding = AsyncPgConnection::establish(&url).await.unwrap();
    holding.batch_execute("BEGIN").await.unwrap();
    diesel::sql_query(
        "SELECT id FROM webhook_deliveries WHERE team_id = $1 AND id = $2 FOR UPDATE",
    )
    .bind::<SqlUuid, _>(hook.team_id.as_uuid())
    .bind::<SqlUuid, _>(ids[1])
    .execute(&mut holding)
    .await
    .unwrap();
    let claim = |n: u128| {
        let store = env.another_instance(1);
        tokio::spawn(async move {
            store
                .deliveries()
                .claim_due(2, t0, &lease(holder(n), t0 + LEASE))
                .await
        })
    };
    let first = claim(1);
    waiting_for_locks(&url, 1).await;
    let second = claim(2);
    waiting_for_locks(&url, 2).await;
    holding.batch_execute("COMMIT").await.unwrap();

    let taken = |claim: Claim<Deliveries>| -> Vec<Uuid> {
        claim.jobs.iter().map(|d| d.id.as_uuid()).collect()
    };
    let first = taken(first.await.unwrap().expect("the first claim"));
    let second = taken(second.await.unwrap().expect("the second claim"));
    assert_eq!(first, ids[..2], "the first claim: the two oldest");
    // Not nothing: it read the due rows after the first claim committed, not before.
    assert_eq!(second, ids[2..], "the second claim: the two the first left");
}

/// Polls until `count` sessions of the test's database wait for a lock (bounded: 10 s).
async fn waiting_for_locks(url: &str, count: i64) {
    use diesel::sql_types::BigInt;
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};

    #[derive(diesel::QueryableByName)]
    struct Waiting {
        #[diesel(sql_type = BigInt)]
        waiting: i64,
    }
    let mut conn = AsyncPgConnection::establish(url).await.unwrap();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let now: Waiting = diesel::sql_query(
            "SELECT count(*) AS waiting FROM pg_stat_activity \
             WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
        .get_result(&mut conn)
        .await
        .unwrap();
        if now.waiting >= count {
            return;
        }
        assert!(
            std::time::Instant::now() < until,
            "{} of {count} sessions waiting for a lock after 10 s",
            now.waiting
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}
