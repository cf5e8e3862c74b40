//! Scenario 3: the pool exhausted. A session locks the runs table, as a stuck migration or
//! transaction would; requests that reach the table keep their connection while they wait on
//! the lock, so the pool empties and the requests after them wait for a connection.

use std::time::{Duration, Instant};

use procflow_testkit::Session;

use crate::database::{READYZ_BOUND, readyz};
use crate::load::{Load, ms, wait_for};
use crate::table::Table;
use crate::{POOL_TIMEOUT, Rig};

const NAME: &str = "3 pool exhaustion";

/// How long the lock is held: long enough for two rounds of checkouts to time out (a request
/// already waiting when the lock is taken, then the one its client sends next).
const HELD_FOR: Duration = Duration::from_secs(12);

pub async fn run(rig: &mut Rig, table: &mut Table) {
    let load = Load::start(&rig.team, &rig.template, 12);
    let warm = wait_for(&load, Duration::from_secs(10), |s| {
        s.iter()
            .filter(|x| x.status.is_some_and(|st| st < 300))
            .count()
            >= 20
    })
    .await;
    assert!(warm, "the load did not get going before the fault");
    let session = Session::open(&rig.db_url).await;
    session
        .execute("BEGIN; LOCK TABLE runs IN ACCESS EXCLUSIVE MODE")
        .await;
    let locked_at = Instant::now();
    // Let the pool fill with waiting requests and the first checkouts time out.
    tokio::time::sleep(POOL_TIMEOUT + Duration::from_secs(1)).await;
    let readyz_full = readyz(&rig.served.base()).await;
    tokio::time::sleep(HELD_FOR.saturating_sub(locked_at.elapsed())).await;
    session.execute("ROLLBACK").await;
    let released_at = Instant::now();
    let recovered = wait_for(&load, Duration::from_secs(30), |s| {
        s.iter()
            .any(|x| x.sent >= released_at && x.status.is_some_and(|st| st < 300))
    })
    .await;
    let readyz_after = readyz(&rig.served.base()).await;
    let samples = load.stop().await;
    drop(session);

    // Answered while the lock was held, whenever sent: the clients' requests in flight when
    // the lock was taken are the first to wait for a connection and time out.
    let refused: Vec<_> = samples
        .iter()
        .filter(|s| s.sent + s.latency >= locked_at && s.sent + s.latency <= released_at)
        .filter(|s| s.status == Some(503) && s.code.as_deref() == Some("unavailable"))
        .collect();
    let slowest_refusal = refused.iter().map(|s| s.latency).max().unwrap_or_default();
    let held = samples
        .iter()
        .filter(|s| s.sent < released_at && s.sent + s.latency > released_at)
        .count();
    let server_errors = samples
        .iter()
        .filter(|s| s.status.is_some_and(|st| st >= 500 && st != 503))
        .count();
    let first_ok = samples
        .iter()
        .filter(|s| s.sent >= released_at && s.status.is_some_and(|st| st < 300))
        .map(|s| s.sent + s.latency - released_at)
        .min();

    table.figure(NAME, "requests answered", samples.len());
    table.check(
        NAME,
        "503 unavailable while exhausted",
        refused.len(),
        !refused.is_empty(),
    );
    table.check(
        NAME,
        "slowest 503",
        ms(slowest_refusal),
        slowest_refusal <= POOL_TIMEOUT + Duration::from_secs(1),
    );
    table.figure(NAME, "requests waiting on the lock at release", held);
    table.check(
        NAME,
        "/readyz while exhausted",
        readyz_full.map_or("no answer".into(), |(s, d)| format!("{s} in {}", ms(d))),
        readyz_full.is_some_and(|(s, d)| s == 503 && d <= READYZ_BOUND),
    );
    table.check(
        NAME,
        "5xx other than 503",
        server_errors,
        server_errors == 0,
    );
    table.check(
        NAME,
        "first 2xx after the lock is released",
        first_ok.map_or("never".into(), ms),
        recovered,
    );
    table.check(
        NAME,
        "/readyz after",
        readyz_after.map_or("no answer".into(), |(s, d)| format!("{s} in {}", ms(d))),
        readyz_after.is_some_and(|(s, _)| s == 200),
    );
}
