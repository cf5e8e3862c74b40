//! `make chaos`'s driver (scripts/chaos.sh): a release `procflow serve` (a child process) on a
//! PostgreSQL of its own, put through three faults under load, then a table of what held.
//!
//! 1. `kill -9` of the server under a mixed write load (start runs, complete tasks, invite)
//!    from clients that record every acknowledged write; after a restart every acknowledged
//!    write is there with its outbox event, and every event reaches a loopback webhook receiver.
//! 2. PostgreSQL stopped (as a crash would) under load: requests answer 503 `unavailable` within
//!    the pool timeout while it is down, and the same server process recovers once it is back.
//! 3. The pool exhausted (a session locks the runs table; the pool's connections all wait on
//!    it): requests beyond the pool answer 503 within the pool timeout, `/readyz` 503 within
//!    1 s, and the server recovers when the lock is released.
//! 4. A keyless flood from one address (1,000 connections posting wrong tokens to random
//!    runs): refused from memory, so keyed reads keep a median under 100 ms and `/readyz`
//!    stays 200 (issue 29).
//!
//! Exits 1 when a property does not hold. `cargo run -p procflow-tests --example chaos -- <dir>`
//! (the server's log goes to `<dir>/server.log`).

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line driver: it fails loudly, at the failing step, and prints its report"
)]

mod database;
mod flood;
mod kill;
mod load;
mod pool;
mod table;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use procflow_testkit::DisposableServer;
use procflow_testkit::receiver::Receiver;
use procflow_tests::{Remote, Served};
use reqwest::Method;
use serde_json::{Value, json};

use crate::table::Table;

/// The server's pool: small, so that scenario 3 can fill it.
const POOL_SIZE: &str = "4";

/// `procflow_postgres::PoolConfig::DEFAULT_TIMEOUT`: how long a request waits for a connection.
const POOL_TIMEOUT: Duration = Duration::from_secs(5);

/// Everything the scenarios share.
pub struct Rig {
    pub pg: DisposableServer,
    pub db_url: String,
    pub served: Served,
    pub team: Remote,
    pub template: String,
    pub receiver: Receiver,
}

#[tokio::main(flavor = "multi_thread", worker_threads = 4)]
async fn main() -> ExitCode {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "target/chaos".into()),
    );
    std::fs::create_dir_all(&dir).expect("the work directory");
    let pg = DisposableServer::start().await;
    let db_url = pg.create_database("chaos").await;
    procflow_postgres::migrate(&db_url)
        .await
        .expect("migrating");
    let receiver = Receiver::start().await;
    let served = Served::start(
        &db_url,
        &[
            ("PROCFLOW_WEBHOOK_ALLOW_PRIVATE", "true"),
            ("PROCFLOW_RATE_LIMIT_PER_MINUTE", "10000000"),
            ("PROCFLOW_DB_POOL_SIZE", POOL_SIZE),
        ],
        &dir.join("server.log"),
    )
    .await;
    let team = Remote::create_team(&db_url, &served.base(), "chaos");
    let template = team.published_template(&document()).await;
    team.call(
        Method::POST,
        "/api/v1/webhooks",
        Some(&json!({"url": format!("{}/hook", receiver.url())})),
        201,
    )
    .await;
    let mut rig = Rig {
        pg,
        db_url,
        served,
        team,
        template,
        receiver,
    };
    let mut table = Table::default();
    kill::run(&mut rig, &mut table).await;
    database::run(&mut rig, &mut table).await;
    pool::run(&mut rig, &mut table).await;
    flood::run(&mut rig, &mut table).await;
    table.print();
    if table.all_held() {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "chaos: a property did not hold (see the table; the server's log is in {})",
            dir.display()
        );
        ExitCode::FAILURE
    }
}

/// Three plain tasks, each sending `process_step.completed`.
fn document() -> Value {
    let task = |n: u32| json!({"title": format!("Step {n}"), "webhook_enabled": true});
    json!({"title": "Chaos", "sections": [{"title": "All", "tasks": [task(1), task(2), task(3)]}]})
}
