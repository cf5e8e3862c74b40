//! `make fuzz`'s driver (scripts/fuzz.sh): a release `procflow serve` on a throwaway database
//! (the test kit's: a private PostgreSQL, or `DATABASE_URL`'s server), two seeded teams with
//! every id the API's operations take, then the command after `--` (schemathesis) with the ids
//! in its environment; exits with the command's status.
//!
//! ```text
//! cargo run -p procflow-tests --example fuzz -- <work dir> -- <command> [args...]
//! ```
//!
//! The server's log goes to `<work dir>/server.log`. The command sees `PF_BASE_URL`, `PF_KEY`
//! and `PF_OTHER_KEY` (two teams), `PF_WFC_AUTH` (a Web Fuzzing Commons auth file naming both
//! keys, users `fuzz` and `other`), and the first
//! team's `PF_TEMPLATE_ID` (for authoring), `PF_RUN_TEMPLATE_ID` (published, for starting runs),
//! `PF_RUN_ID`, `PF_TASK_ID`, `PF_RUN_TASK_IDS`, `PF_UNSHARE_RUN_ID`, `PF_SHARED_RUN_ID`,
//! `PF_SHARED_TASK_ID`, `PF_SHARED_ATTACHMENT_ID`, `PF_SHARE_TOKEN`, `PF_WEBHOOK_ID`,
//! `PF_DELIVERY_ID`.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line driver: it fails loudly, at the failing step, and prints its report"
)]

use std::path::PathBuf;
use std::process::{Command, ExitCode};

use procflow_postgres::testing::migrated_database;
use procflow_testkit::receiver::Receiver;
use procflow_tests::{Remote, Served, demo_document};
use reqwest::Method;
use serde_json::json;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, command) = match args.as_slice() {
        [dir, dashes, command @ ..] if dashes == "--" && !command.is_empty() => {
            (PathBuf::from(dir), command.to_vec())
        }
        _ => {
            eprintln!("usage: fuzz <work dir> -- <command> [args...]");
            return ExitCode::from(2);
        }
    };
    std::fs::create_dir_all(&dir).expect("the work directory");
    let database = migrated_database().await;
    // Deliveries of the fuzzed webhooks land here; private addresses are allowed for it.
    let receiver = Receiver::start().await;
    let served = Served::start(
        database.url(),
        &[
            // The fuzzer sends thousands of requests a minute with one key: the limit itself
            // is tested by the API suite (tests/tests/api/rate_limit.rs).
            ("PROCFLOW_RATE_LIMIT_PER_MINUTE", "10000000"),
            ("PROCFLOW_GUEST_POSTS_PER_MINUTE", "10000000"),
            ("PROCFLOW_GUEST_POSTS_PER_MINUTE_PER_ADDRESS", "10000000"),
            ("PROCFLOW_WEBHOOK_ALLOW_PRIVATE", "true"),
        ],
        &dir.join("server.log"),
    )
    .await;
    let base = served.base();
    let team = Remote::create_team(database.url(), &base, "fuzz");
    let other = Remote::create_team(database.url(), &base, "other");
    let mut env = seed(&team, &receiver.url()).await;
    // The other team has things of its own, so that a leak between teams would show.
    let other_template = other.published_template(&demo_document()).await;
    other.start_run(&other_template).await;
    let auth = dir.join("auth.json");
    let user = |name: &str, key: &str| json!({"name": name, "fixedHeaders": [{"name": "Authorization", "value": format!("Bearer {key}")}]});
    let document = json!({"auth": [user("fuzz", &team.key), user("other", &other.key)]});
    std::fs::write(&auth, document.to_string()).expect("writing the auth file");
    env.extend([
        ("PF_WFC_AUTH", auth.display().to_string()),
        ("PF_BASE_URL", base.clone()),
        ("PF_KEY", team.key.clone()),
        ("PF_OTHER_KEY", other.key.clone()),
    ]);
    eprintln!("fuzz: procflow serve on {base}, two teams seeded; running {command:?}");
    let status = Command::new(&command[0])
        .args(&command[1..])
        .envs(env)
        .status()
        .expect("running the fuzz command");
    drop(served);
    drop(database);
    match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    }
}

/// Seeds the first team: templates, runs, a shared run, webhook endpoints and a delivery.
async fn seed(team: &Remote, receiver: &str) -> Vec<(&'static str, String)> {
    let template = team.published_template(&demo_document()).await;
    let run_template = team.published_template(&demo_document()).await;
    let run = team.start_run(&template).await;
    let run_tasks = team.run_task_ids(&run).await;
    let task = run_tasks[0].clone();
    let unshare = team.start_run(&template).await;
    team.call(
        Method::POST,
        &format!("/api/v1/process-runs/{unshare}/invite"),
        Some(&json!({})),
        200,
    )
    .await;
    let shared = team.start_run(&template).await;
    let shared_task = team.run_task_ids(&shared).await.remove(0);
    let share = team
        .call(
            Method::POST,
            &format!("/api/v1/process-runs/{shared}/invite"),
            Some(&json!({})),
            200,
        )
        .await;
    // A file of the shared task, for the guest's download.
    let shared_attachment = team
        .upload(
            &format!("/api/v1/process-runs/{shared}/tasks/{shared_task}/attachments"),
            "seeded.txt",
            b"seeded bytes",
        )
        .await;
    let share_url = share["share_url"].as_str().expect("share_url");
    let token = url::Url::parse(share_url)
        .expect("share_url is a URL")
        .query_pairs()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.into_owned())
        .expect("the share token");
    let webhook = create_webhook(team, receiver).await;
    let delivery = team
        .call(
            Method::POST,
            &format!("/api/v1/webhooks/{webhook}/test"),
            Some(&json!({})),
            202,
        )
        .await;
    vec![
        ("PF_TEMPLATE_ID", template),
        ("PF_RUN_TEMPLATE_ID", run_template),
        ("PF_RUN_ID", run),
        ("PF_TASK_ID", task),
        ("PF_RUN_TASK_IDS", run_tasks.join(",")),
        ("PF_UNSHARE_RUN_ID", unshare),
        ("PF_SHARED_RUN_ID", shared),
        ("PF_SHARED_TASK_ID", shared_task),
        ("PF_SHARED_ATTACHMENT_ID", shared_attachment),
        ("PF_SHARE_TOKEN", token),
        ("PF_WEBHOOK_ID", webhook),
        (
            "PF_DELIVERY_ID",
            delivery["id"].as_str().expect("delivery id").to_owned(),
        ),
    ]
}

async fn create_webhook(team: &Remote, receiver: &str) -> String {
    let webhook = team
        .call(
            Method::POST,
            "/api/v1/webhooks",
            Some(&json!({"url": format!("{receiver}/hook")})),
            201,
        )
        .await;
    webhook["id"].as_str().expect("webhook id").to_owned()
}
