//! Fault tests of the connection pool: an exhausted pool, a stopped, crashed, silent or absent
//! database all answer `StoreError::Unavailable` within the pool's timeout (never a panic,
//! never `Other`, never a hang), and the same `PgStore` recovers on its own when PostgreSQL
//! comes back.
//!
//! The tests that stop PostgreSQL run on a `DisposableServer` of their own; the others on a
//! database of the shared test server.
#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "fixtures of a test fail loudly"
)]

use std::future::Future;
use std::net::{Ipv4Addr, TcpListener};
use std::time::{Duration, Instant};

use diesel::sql_types::BigInt;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};
use procflow_domain::error::{DomainError, DomainResult, StoreError};
use procflow_domain::ids::{TeamId, UserId};
use procflow_domain::ports::TeamStore;
use procflow_domain::team::{Member, Role, Subscription, Team};
use procflow_postgres::testing::migrated_database;
use procflow_postgres::{PgStore, PoolConfig};
use procflow_testkit::DisposableServer;
use time::macros::datetime;
use uuid::Uuid;

/// The pool timeout of these tests: how long a call may wait for a free connection before it
/// answers `Unavailable`. Opening a connection keeps the default timeout (5 s): on a busy
/// machine, setting one up can take longer than 300 ms with nothing wrong, and the fixtures
/// that seed and warm the pool must not fail for it (this made the suite fail about once in
/// six runs under load). Only the silent-server test shortens it, as it is what it checks.
const TIMEOUT: Duration = Duration::from_millis(300);

/// How long any single call may take before the test calls it a hang: the pool timeout plus
/// generous slack for a loaded machine.
const HANG: Duration = Duration::from_secs(5);

/// How long a restarted server may take before the same store answers again.
const RECOVERY: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------------------------------
// Fixtures

/// A disposable server with a migrated database `faults`, and that database's URL.
async fn disposable_database() -> (DisposableServer, String) {
    let server = DisposableServer::start().await;
    let url = server.create_database("faults").await;
    procflow_postgres::migrate(&url).await.expect("migrate");
    (server, url)
}

fn store(url: &str, max_size: usize) -> PgStore {
    PgStore::new(&PoolConfig {
        max_size,
        timeout: TIMEOUT,
        ..PoolConfig::new(url)
    })
    .expect("pool")
}

fn team() -> Team {
    Team {
        id: TeamId::from_uuid(Uuid::from_u128(0xA << 100)),
        name: "Team a".into(),
        base_url: "https://a.example".into(),
        timezone: "Europe/Paris".into(),
        subscription: Subscription::Active,
        created_at: datetime!(2026-01-01 0:00 UTC),
    }
}

async fn seed_team(store: &PgStore) -> Team {
    let team = team();
    let admin = Member {
        id: UserId::from_uuid(Uuid::from_u128((0xA << 100) + 1)),
        team_id: team.id,
        email: "admin@a.example".parse().expect("email"),
        name: None,
        role: Role::Admin,
        active: true,
        created_at: team.created_at,
    };
    store.create_team(&team, &admin).await.expect("team");
    team
}

/// `call`'s answer and how long it took; a call that takes longer than `HANG` fails the test.
async fn timed<T>(
    what: &str,
    call: impl Future<Output = DomainResult<T>>,
) -> (DomainResult<T>, Duration) {
    let started = Instant::now();
    match tokio::time::timeout(HANG, call).await {
        Ok(answer) => (answer, started.elapsed()),
        Err(_) => panic!("{what}: no answer within {HANG:?} (the pool timeout is {TIMEOUT:?})"),
    }
}

#[track_caller]
fn assert_unavailable<T: std::fmt::Debug>(what: &str, answer: &DomainResult<T>) {
    match answer {
        Err(DomainError::Store(StoreError::Unavailable(_))) => {}
        other => panic!("{what}: expected Store(Unavailable), got {other:?}"),
    }
}

/// A connection outside the store, for locking and watching.
async fn connect(url: &str) -> AsyncPgConnection {
    AsyncPgConnection::establish(url).await.expect("connect")
}

/// A connection holding `LOCK TABLE teams IN ACCESS EXCLUSIVE MODE` in an open transaction:
/// every store call that reads `teams` blocks, holding its pooled connection, until the
/// transaction ends.
async fn lock_teams(url: &str) -> AsyncPgConnection {
    let mut conn = connect(url).await;
    conn.batch_execute("BEGIN; LOCK TABLE teams IN ACCESS EXCLUSIVE MODE")
        .await
        .expect("lock teams");
    conn
}

/// `LOCK TABLE teams IN ACCESS EXCLUSIVE MODE` in a prepared transaction: unlike a session's
/// lock, a shutdown does not release it (a fast stop ends the locking session too, and a call
/// waiting on its lock could take it and finish before its own backend stops), and it outlives
/// a restart until [`release_prepared_lock`].
async fn lock_teams_through_a_stop(url: &str) {
    connect(url)
        .await
        .batch_execute(
            "BEGIN; LOCK TABLE teams IN ACCESS EXCLUSIVE MODE; \
             PREPARE TRANSACTION 'faults-teams-lock'",
        )
        .await
        .expect("lock teams in a prepared transaction");
}

async fn release_prepared_lock(url: &str) {
    connect(url)
        .await
        .batch_execute("ROLLBACK PREPARED 'faults-teams-lock'")
        .await
        .expect("release the prepared lock");
}

/// Waits (at most `HANG`) until `waiters` sessions of the database wait for a lock: the
/// store's calls then hold their pooled connections.
async fn wait_for_lock_waiters(url: &str, waiters: i64) {
    // A session of its own: pg_stat_activity is a snapshot for a transaction's duration.
    let mut observer = connect(url).await;
    let started = Instant::now();
    loop {
        let waiting: i64 = diesel::select(diesel::dsl::sql::<BigInt>(
            "(SELECT count(*) FROM pg_stat_activity \
             WHERE datname = current_database() AND wait_event_type = 'Lock')",
        ))
        .get_result(&mut observer)
        .await
        .expect("pg_stat_activity");
        if waiting >= waiters {
            return;
        }
        assert!(
            started.elapsed() < HANG,
            "{waiting} of {waiters} sessions wait for the lock after {HANG:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Calls `call` until it answers something other than `Unavailable`, for at most `RECOVERY`
/// (a pause of 50 ms between calls: this waits for a server to come back); returns that
/// answer and how many calls it took.
async fn once_available<T, F, Fut>(mut call: F) -> (DomainResult<T>, u32)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = DomainResult<T>>,
{
    let started = Instant::now();
    let mut calls = 0;
    loop {
        calls += 1;
        let (answer, _) = timed("a call after the restart", call()).await;
        match answer {
            Err(DomainError::Store(StoreError::Unavailable(_))) if started.elapsed() < RECOVERY => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            answer => return (answer, calls),
        }
    }
}

/// A port of 127.0.0.1 that nothing listens on.
fn closed_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind");
    listener.local_addr().expect("address").port()
}

// ---------------------------------------------------------------------------------------------
// An exhausted pool

#[tokio::test(flavor = "multi_thread")]
async fn an_exhausted_pool_answers_unavailable_after_its_timeout() {
    let db = migrated_database().await;
    let store = store(db.url(), 1);
    let team = seed_team(&store).await;

    // The only connection is taken by a call that blocks on a lock held outside the store.
    let mut locker = lock_teams(db.url()).await;
    let holder = tokio::spawn({
        let store = store.clone();
        async move { store.get_team(team.id).await }
    });
    wait_for_lock_waiters(db.url(), 1).await;
    assert_eq!(store.status().size, 1);
    assert_eq!(store.status().available, 0);

    let (answer, waited) = timed("get_team on an exhausted pool", store.get_team(team.id)).await;
    assert_unavailable("get_team on an exhausted pool", &answer);
    assert!(
        waited >= TIMEOUT - Duration::from_millis(20),
        "answered after {waited:?}"
    );
    eprintln!("exhausted pool: Unavailable after {waited:?}");

    // `/readyz` says not ready while the pool is exhausted.
    let (ping, waited) = timed("ping on an exhausted pool", store.ping()).await;
    assert_unavailable("ping on an exhausted pool", &ping);
    eprintln!("exhausted pool: ping Unavailable after {waited:?}");

    // Released: the blocked call finishes, and the connection serves the next calls.
    locker.batch_execute("COMMIT").await.expect("commit");
    let held = tokio::time::timeout(HANG, holder)
        .await
        .expect("the holder finishes")
        .expect("the holder did not panic");
    assert_eq!(held.expect("the held call succeeds"), team);
    let (answer, _) = timed("get_team once released", store.get_team(team.id)).await;
    assert_eq!(answer.expect("get_team once released"), team);
    timed("ping once released", store.ping())
        .await
        .0
        .expect("ping once released");
    assert_eq!(store.status().size, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_workers_pool_keeps_the_configuration_and_is_counted_until_dropped() {
    let db = migrated_database().await;
    let counter = procflow_postgres::StatementCounter::default();
    let shared = PgStore::new(&PoolConfig {
        max_size: 4,
        timeout: TIMEOUT,
        statement_counter: Some(counter.clone()),
        ..PoolConfig::new(db.url())
    })
    .expect("pool");
    assert_eq!(
        shared.status().max_size,
        4,
        "no worker yet: the store's own pool"
    );
    let first = shared.for_worker(1).expect("first worker's pool");
    let second = shared.for_worker(2).expect("second worker's pool");
    assert_eq!(
        shared.status().max_size,
        3,
        "the workers' pools, summed, in place of the one they were split from"
    );
    assert_eq!(
        first.status(),
        shared.status(),
        "any of them reports the sum"
    );

    // The shared pool's timeout and statement counter hold for a worker's own pool.
    let team = seed_team(&first).await;
    let counted = counter.get();
    assert!(counted > 0, "the worker's statements are counted");
    let mut locker = lock_teams(db.url()).await;
    let holder = tokio::spawn({
        let first = first.clone();
        async move { first.get_team(team.id).await }
    });
    wait_for_lock_waiters(db.url(), 1).await;
    let (answer, waited) = timed(
        "get_team on a worker's exhausted pool",
        first.get_team(team.id),
    )
    .await;
    assert_unavailable("get_team on a worker's exhausted pool", &answer);
    assert!(
        waited >= TIMEOUT - Duration::from_millis(20) && waited < HANG,
        "answered after {waited:?}: the shared pool's timeout"
    );
    locker.batch_execute("COMMIT").await.expect("commit");
    tokio::time::timeout(HANG, holder)
        .await
        .expect("the holder finishes")
        .expect("the holder did not panic")
        .expect("the held call succeeds");
    assert_eq!(
        second
            .get_team(team.id)
            .await
            .expect("another worker's pool serves"),
        team
    );

    // A worker that stops drops its pool, and the sum with it.
    drop(second);
    assert_eq!(shared.status().max_size, 1);
    drop(first);
    assert_eq!(
        shared.status().max_size,
        4,
        "no worker left: the store's own pool"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_blocked_on_a_lock_answers_unavailable_after_the_lock_timeout() {
    let db = migrated_database().await;
    let store = PgStore::new(&PoolConfig {
        max_size: 1,
        timeout: TIMEOUT,
        lock_timeout: TIMEOUT,
        ..PoolConfig::new(db.url())
    })
    .expect("pool");
    let team = seed_team(&store).await;

    let mut locker = lock_teams(db.url()).await;
    let (answer, waited) = timed("get_team behind a lock", store.get_team(team.id)).await;
    assert_unavailable("get_team behind a lock", &answer);
    assert!(
        waited >= TIMEOUT - Duration::from_millis(20),
        "answered after {waited:?}"
    );
    eprintln!("locked: get_team Unavailable after {waited:?}");
    // The connection it held is back in the pool, usable, once the lock goes.
    locker.batch_execute("ROLLBACK").await.expect("rollback");
    let (answer, _) = timed("get_team once unlocked", store.get_team(team.id)).await;
    assert_eq!(answer.expect("get_team once unlocked"), team);
    assert_eq!(store.status().size, 1);
}

// ---------------------------------------------------------------------------------------------
// A stopped database

#[tokio::test(flavor = "multi_thread")]
async fn a_stopped_database_answers_unavailable_and_the_pool_recovers_when_it_returns() {
    let (server, url) = disposable_database().await;
    let store = store(&url, 2);
    let team = seed_team(&store).await;
    store.ping().await.expect("ping before the stop");
    assert!(store.status().size >= 1, "{:?}", store.status());

    server.stop().await;
    // The first calls find the pooled connection that the stop closed; later ones find no
    // connection and cannot make one. Each answers Unavailable, within the timeout.
    for attempt in 0..3 {
        let (answer, waited) = timed("get_team while stopped", store.get_team(team.id)).await;
        assert_unavailable(&format!("get_team while stopped, call {attempt}"), &answer);
        eprintln!("stopped: get_team Unavailable after {waited:?}");
        let (ping, waited) = timed("ping while stopped", store.ping()).await;
        assert_unavailable(&format!("ping while stopped, call {attempt}"), &ping);
        eprintln!("stopped: ping Unavailable after {waited:?}");
    }

    server.restart().await;
    let restarted = Instant::now();
    let (answer, calls) = once_available(|| store.get_team(team.id)).await;
    assert_eq!(answer.expect("get_team after the restart"), team);
    eprintln!(
        "restarted: the same store answered after {calls} call(s), {:?}",
        restarted.elapsed()
    );
    store.ping().await.expect("ping after the restart");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_in_flight_when_the_database_stops_answers_unavailable() {
    let (server, url) = disposable_database().await;
    let store = store(&url, 2);
    let team = seed_team(&store).await;

    lock_teams_through_a_stop(&url).await;
    let in_flight = tokio::spawn({
        let store = store.clone();
        async move { store.get_team(team.id).await }
    });
    wait_for_lock_waiters(&url, 1).await;

    server.stop().await;
    let answer = tokio::time::timeout(HANG, in_flight)
        .await
        .expect("the call in flight answers")
        .expect("the call in flight did not panic");
    assert_unavailable("a call in flight during a fast stop", &answer);

    server.restart().await;
    release_prepared_lock(&url).await;
    let (answer, _) = once_available(|| store.get_team(team.id)).await;
    assert_eq!(answer.expect("get_team after the restart"), team);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_in_flight_when_the_database_crashes_answers_unavailable() {
    let (server, url) = disposable_database().await;
    let store = store(&url, 2);
    let team = seed_team(&store).await;
    // Durable before the crash (`synchronous_commit` is off on test servers).
    connect(&url)
        .await
        .batch_execute("CHECKPOINT")
        .await
        .expect("checkpoint");

    // Two calls in flight, both blocked on the lock: a plain read, and a transaction.
    let _locker = lock_teams(&url).await;
    let reading = tokio::spawn({
        let store = store.clone();
        async move { store.get_team(team.id).await.map(|_| ()) }
    });
    let writing = tokio::spawn({
        let store = store.clone();
        async move {
            let mut other = crate::team();
            other.id = TeamId::from_uuid(Uuid::from_u128(0xB << 100));
            let admin = Member {
                id: UserId::from_uuid(Uuid::from_u128((0xB << 100) + 1)),
                team_id: other.id,
                email: "admin@b.example".parse().expect("email"),
                name: None,
                role: Role::Admin,
                active: true,
                created_at: other.created_at,
            };
            store.create_team(&other, &admin).await
        }
    });
    wait_for_lock_waiters(&url, 2).await;

    server.stop_immediately().await;
    for (what, call) in [
        ("a read in flight during a crash", reading),
        ("a transaction in flight during a crash", writing),
    ] {
        let answer = tokio::time::timeout(HANG, call)
            .await
            .unwrap_or_else(|_| panic!("{what}: no answer within {HANG:?}"))
            .unwrap_or_else(|err| panic!("{what}: panicked: {err}"));
        assert_unavailable(what, &answer);
    }
    let (answer, _) = timed("get_team after the crash", store.get_team(team.id)).await;
    assert_unavailable("get_team after the crash", &answer);

    server.restart().await;
    let (answer, _) = once_available(|| store.get_team(team.id)).await;
    assert_eq!(answer.expect("get_team after the crash recovery"), team);
}

// ---------------------------------------------------------------------------------------------
// No database at all

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_connection_answers_unavailable() {
    let store = store(
        &format!("postgres://postgres@127.0.0.1:{}/procflow", closed_port()),
        2,
    );
    let (answer, waited) = timed("get_team, connection refused", store.get_team(team().id)).await;
    assert_unavailable("get_team, connection refused", &answer);
    eprintln!("refused: get_team Unavailable after {waited:?}");
    let (ping, _) = timed("ping, connection refused", store.ping()).await;
    assert_unavailable("ping, connection refused", &ping);
    assert_eq!(store.status().size, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_never_answers_answers_unavailable_after_the_timeout() {
    // Accepts TCP connections (the kernel does, into the backlog) but never speaks.
    let silent = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind");
    let port = silent.local_addr().expect("address").port();
    let store = PgStore::new(&PoolConfig {
        max_size: 2,
        timeout: TIMEOUT,
        connect_timeout: TIMEOUT,
        ..PoolConfig::new(format!("postgres://postgres@127.0.0.1:{port}/procflow"))
    })
    .expect("pool");

    let (answer, waited) = timed("get_team, silent server", store.get_team(team().id)).await;
    assert_unavailable("get_team, silent server", &answer);
    assert!(
        waited >= TIMEOUT - Duration::from_millis(20),
        "answered after {waited:?}"
    );
    eprintln!("silent: get_team Unavailable after {waited:?}");
    let (ping, _) = timed("ping, silent server", store.ping()).await;
    assert_unavailable("ping, silent server", &ping);
    drop(silent);
}

/// A sweep of `Idempotency-Key` records deletes a record only if it is still past its time
/// when the sweep gets to it: a key claimed again by a new request while the sweep waited for
/// its row (the claim takes the row over, in flight, made now) is that request's, and stays.
/// Else the request's answer is recorded nowhere and its retry runs again.
#[tokio::test(flavor = "multi_thread")]
async fn a_sweep_leaves_a_key_claimed_again_while_it_waited_for_its_row() {
    use procflow_domain::ports::{IdempotencyStore, KeyLifetimes};
    let lifetimes = KeyLifetimes {
        answered: time::Duration::hours(24),
        in_flight: time::Duration::seconds(60),
    };
    let db = migrated_database().await;
    let url = db.url();
    let store = std::sync::Arc::new(store(url, 2));
    let team = seed_team(&store).await;
    // An answered record past its day, and a claim left past its lease by a dead request.
    for (key, status, age) in [
        ("expired", "201", "25 hours"),
        ("stale", "NULL", "2 minutes"),
    ] {
        let mut conn = connect(url).await;
        conn.batch_execute(&format!(
            "INSERT INTO idempotency_keys (team_id, key, request_hash, response_status, created_at) \
             VALUES ('{}', '{key}', '\\x00', {status}, now() - interval '{age}')",
            team.id
        ))
        .await
        .expect("record");
        // A new request claims the key (the claim's takeover, not committed yet) while the
        // sweep runs into its row.
        let mut claim = connect(url).await;
        claim
            .batch_execute(&format!(
                "BEGIN; UPDATE idempotency_keys SET request_hash = '\\x01', response_status = NULL, \
                   response_body = NULL, created_at = now(), completed_at = NULL \
                 WHERE team_id = '{}' AND key = '{key}'",
                team.id
            ))
            .await
            .expect("claim");
        let sweeping = {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .sweep_keys(time::OffsetDateTime::now_utc(), lifetimes)
                    .await
            })
        };
        wait_for_lock_waiters(url, 1).await;
        claim.batch_execute("COMMIT").await.expect("commit");
        let swept = sweeping.await.expect("sweep task").expect("sweep");
        assert_eq!(swept, 0, "{key}: the sweep deleted the new claim");
        let kept: i64 = diesel::select(diesel::dsl::sql::<BigInt>(&format!(
            "(SELECT count(*) FROM idempotency_keys WHERE key = '{key}' AND request_hash = '\\x01')"
        )))
        .get_result(&mut conn)
        .await
        .expect("count");
        assert_eq!(kept, 1, "{key}: the new claim is gone");
    }
}
