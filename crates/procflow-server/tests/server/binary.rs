//! The `procflow` binary itself: JSON on stdout, exit statuses, configuration from the
//! environment, logs on stderr without secrets, and a graceful stop on SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Command, Output};

use procflow_postgres::testing::migrated_database;
use serde_json::Value;

use super::support::{get, serve_with_json_logs, serving_address};

fn procflow(database_url: Option<&str>) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_procflow"));
    for variable in [
        "DATABASE_URL",
        "PROCFLOW_BIND",
        "PROCFLOW_PUBLIC_URL",
        "PROCFLOW_LOG_FORMAT",
        "RUST_LOG",
    ] {
        command.env_remove(variable);
    }
    if let Some(url) = database_url {
        command.env("DATABASE_URL", url);
    }
    command
}

fn stdout_json(output: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.lines().count(), 1, "one line of JSON: {stdout:?}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout:?}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn commands_print_one_json_object_and_exit_by_outcome() {
    let db = migrated_database().await;

    let migrated = procflow(Some(db.url())).arg("migrate").output().unwrap();
    assert!(migrated.status.success(), "{migrated:?}");
    assert_eq!(stdout_json(&migrated), serde_json::json!({"applied": []}));

    let created = procflow(Some(db.url()))
        .env("PROCFLOW_BIND", "127.0.0.1:9099")
        .args([
            "admin",
            "create-team",
            "--name",
            "Bin",
            "--admin-email",
            "a@bin.example",
        ])
        .output()
        .unwrap();
    assert!(created.status.success(), "{created:?}");
    let created = stdout_json(&created);
    assert!(created["team_id"].is_string() && created["admin_user_id"].is_string());

    let refused = procflow(Some(db.url()))
        .args([
            "admin",
            "add-member",
            "--team",
            "0190d3c4-6f1e-7a4b-9c7d-2b1a3e4f5a6b",
            "--email",
            "b@bin.example",
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(stdout_json(&refused)["error"]["code"], "not_found");

    let unconfigured = procflow(None).arg("migrate").output().unwrap();
    assert_eq!(unconfigured.status.code(), Some(2));
    assert_eq!(
        stdout_json(&unconfigured)["error"]["code"],
        "configuration_error"
    );

    let usage = procflow(Some(db.url()))
        .args([
            "admin",
            "add-member",
            "--team",
            "not-a-uuid",
            "--email",
            "b@bin.example",
        ])
        .output()
        .unwrap();
    assert_eq!(
        usage.status.code(),
        Some(2),
        "usage errors come from the parser"
    );
    assert!(usage.stdout.is_empty());
}

/// The database URL with a password, so that the logs can be searched for it (a server with
/// trust authentication ignores it).
fn with_password(url: &str) -> (String, String) {
    let mut parsed = url::Url::parse(url).unwrap();
    if let Some(password) = parsed.password() {
        return (url.to_owned(), password.to_owned());
    }
    parsed.set_password(Some("never-logged-3141")).unwrap();
    (parsed.to_string(), "never-logged-3141".to_owned())
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_logs_json_without_secrets_and_stops_with_status_0_on_sigterm() {
    let db = migrated_database().await;
    let (url, password) = with_password(db.url());
    let (mut serving, stderr) = serve_with_json_logs(
        &url,
        &[(
            "PROCFLOW_SMTP_URL",
            "smtp://mailer:smtp-secret-2718@127.0.0.1:2525",
        )],
    );
    let pid = serving.0.id().to_string();

    let (logs, address) = tokio::task::spawn_blocking(move || {
        let mut lines = BufReader::new(stderr).lines();
        let mut logs = Vec::new();
        let address = serving_address(&mut lines, &mut logs);
        let (status, body) = get(address, "/healthz");
        assert_eq!(status, 200, "/healthz answered {status}: {body}");
        let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(killed.success());
        // The rest of the log, until the process closes stderr.
        logs.extend(lines.map_while(Result::ok));
        (logs, address)
    })
    .await
    .unwrap();

    let status = serving.0.wait().unwrap();
    assert!(
        status.success(),
        "SIGTERM ends serve with status 0: {status:?}"
    );
    let logs = logs.join("\n");
    assert!(logs.contains("procflow stopped"), "{logs}");
    assert!(logs.contains(&address.to_string()), "{logs}");
    assert!(
        !logs.contains(&password),
        "the database password leaked: {logs}"
    );
    assert!(
        !logs.contains("smtp-secret-2718"),
        "the SMTP password leaked: {logs}"
    );
}

/// The worker's start-up line of a `procflow serve` given `env`.
fn worker_started_line(database_url: &str, env: &[(&str, &str)]) -> Value {
    let (serving, stderr) = serve_with_json_logs(database_url, env);
    let mut lines = BufReader::new(stderr).lines();
    let mut logs = Vec::new();
    serving_address(&mut lines, &mut logs);
    drop(serving);
    logs.iter()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|entry| entry["message"] == "the delivery worker is started")
        .unwrap_or_else(|| panic!("no worker line: {logs:?}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn durations_in_the_environment_take_units_and_reach_the_worker() {
    let db = migrated_database().await;
    let url = db.url().to_owned();
    let started = tokio::task::spawn_blocking(move || {
        worker_started_line(
            &url,
            &[
                ("PROCFLOW_SCHEDULER_INTERVAL", "30s"),
                ("PROCFLOW_WORKER_POLL_MS", "2s"),
                ("PROCFLOW_WORKER_LEASE_SECONDS", "90"),
            ],
        )
    })
    .await
    .unwrap();
    assert_eq!(started["scheduler.interval_ms"], 30_000, "{started}");
    assert_eq!(started["worker.poll_ms"], 2_000, "{started}");
    assert_eq!(started["worker.lease_ms"], 90_000, "{started}");
}

#[test]
fn a_bad_duration_in_the_environment_stops_start_up_naming_the_variable() {
    for (variable, value) in [
        ("PROCFLOW_SCHEDULER_INTERVAL", "30x"),
        ("PROCFLOW_SCHEDULER_INTERVAL", "0"),
        ("PROCFLOW_WORKER_POLL_MS", "1m30s"),
    ] {
        let refused = procflow(Some("postgres://nobody@127.0.0.1:1/none"))
            .arg("serve")
            .env(variable, value)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(
            refused.status.code(),
            Some(2),
            "{variable}={value} is a usage error: {stderr}"
        );
        assert!(refused.stdout.is_empty(), "{variable}={value}");
        assert!(
            stderr.contains(variable) && stderr.contains("500ms, 30s, 5m, 2h or 1d"),
            "{variable}={value} should be named with the accepted forms: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
