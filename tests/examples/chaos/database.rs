//! Scenario 2: PostgreSQL crashes and comes back under load; the server answers 503
//! `unavailable` quickly meanwhile and recovers by itself.

use std::time::{Duration, Instant};

use crate::load::{Load, Sample, ms, wait_for};
use crate::table::Table;
use crate::{POOL_TIMEOUT, Rig};

const NAME: &str = "2 PostgreSQL restart";

/// How long PostgreSQL stays down.
const DOWN_FOR: Duration = Duration::from_secs(4);

/// `/readyz` answers within a second as a client sees it (its deadline on the database is
/// 800 ms, `procflow_http::routes::health::READY_DEADLINE`).
pub const READYZ_BOUND: Duration = Duration::from_secs(1);

pub async fn run(rig: &mut Rig, table: &mut Table) {
    let load = Load::start(&rig.team, &rig.template, 6);
    let warm = wait_for(&load, Duration::from_secs(10), |s| ok_count(s) >= 20).await;
    assert!(warm, "the load did not get going before the fault");
    let pid = rig.served.pid();
    rig.pg.stop_immediately().await;
    let down_at = Instant::now();
    tokio::time::sleep(DOWN_FOR).await;
    let readyz_down = readyz(&rig.served.base()).await;
    let restart_at = Instant::now();
    rig.pg.restart().await;
    let up_at = Instant::now();
    let recovered = wait_for(&load, Duration::from_secs(30), |s| {
        s.iter()
            .any(|x| x.sent >= up_at && x.status.is_some_and(|st| st < 300))
    })
    .await;
    let samples = load.stop().await;

    // Answers to requests sent and answered while the database was down (`pg_ctl start` may
    // return a moment after it accepts connections again).
    let during: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.sent >= down_at && s.sent + s.latency <= restart_at)
        .collect();
    let unavailable = during
        .iter()
        .filter(|s| s.status == Some(503) && s.code.as_deref() == Some("unavailable"))
        .count();
    let other: Vec<String> = during
        .iter()
        .filter(|s| !(s.status == Some(503) && s.code.as_deref() == Some("unavailable")))
        .map(|s| format!("{:?}/{:?}", s.status, s.code))
        .collect();
    let slowest = samples
        .iter()
        .filter(|s| s.sent + s.latency >= down_at && s.sent <= up_at)
        .map(|s| s.latency)
        .max()
        .unwrap_or_default();
    let first_ok = samples
        .iter()
        .filter(|s| s.sent >= up_at && s.status.is_some_and(|st| st < 300))
        .map(|s| s.sent + s.latency - up_at)
        .min();
    let server_errors = samples
        .iter()
        .filter(|s| s.status.is_some_and(|st| st >= 500 && st != 503))
        .count();

    table.figure(NAME, "requests answered", samples.len());
    table.check(
        NAME,
        "answered while down: 503 unavailable",
        format!("{unavailable} of {}", during.len()),
        !during.is_empty() && other.is_empty(),
    );
    if !other.is_empty() {
        table.check(NAME, "other answers while down", other.join(" "), false);
    }
    table.check(
        NAME,
        "slowest answer around the outage",
        ms(slowest),
        slowest <= POOL_TIMEOUT + Duration::from_secs(1),
    );
    table.check(
        NAME,
        "/readyz while down",
        readyz_down.map_or("no answer".into(), |(s, d)| format!("{s} in {}", ms(d))),
        readyz_down.is_some_and(|(s, d)| s == 503 && d <= READYZ_BOUND),
    );
    table.check(
        NAME,
        "5xx other than 503",
        server_errors,
        server_errors == 0,
    );
    table.check(
        NAME,
        "first 2xx after PostgreSQL is back",
        first_ok.map_or("never".into(), ms),
        recovered,
    );
    table.check(
        NAME,
        "same server process",
        if rig.served.pid() == pid { "yes" } else { "no" },
        rig.served.is_running() && rig.served.pid() == pid,
    );
}

fn ok_count(samples: &[Sample]) -> usize {
    samples
        .iter()
        .filter(|s| s.status.is_some_and(|st| st < 300))
        .count()
}

/// `/readyz`'s status and how long it took.
pub async fn readyz(base: &str) -> Option<(u16, Duration)> {
    procflow_notify::install_tls();
    let sent = Instant::now();
    let answer = reqwest::Client::new()
        .get(format!("{base}/readyz"))
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .ok()?;
    Some((answer.status().as_u16(), sent.elapsed()))
}
