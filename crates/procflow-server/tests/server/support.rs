//! Fixtures: the admin of a test database, admin commands parsed from argv, the demo template,
//! a raw HTTP GET, `procflow serve` with JSON logs.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, ChildStderr, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use procflow_postgres::testing::TestDatabase;
use procflow_server::cli::{AdminArgs, AdminCommand, Command};
use procflow_server::config::DatabaseUrl;
use procflow_server::{Admin, Cli};
use serde_json::Value;

pub fn url(db: &TestDatabase) -> DatabaseUrl {
    db.url().parse().expect("database URL")
}

pub fn admin(db: &TestDatabase) -> Admin {
    procflow_server::admin_on(&url(db)).expect("admin")
}

/// `procflow admin <args>` as the CLI parses it.
pub fn command(args: &[&str]) -> AdminCommand {
    let argv = ["procflow", "admin"].iter().chain(args);
    match Cli::try_parse_from(argv)
        .expect("valid admin command")
        .command
    {
        Command::Admin(AdminArgs { command }) => command,
        other => panic!("not an admin command: {other:?}"),
    }
}

/// Runs an admin command; its JSON output, or the error envelope.
pub async fn run(admin: &Admin, args: &[&str]) -> Value {
    match admin.run(command(args)).await {
        Ok(value) => value,
        Err(error) => error.to_json(),
    }
}

/// `admin create-team --name NAME --admin-email EMAIL`: its JSON output (or error).
pub async fn create_team(admin: &Admin, name: &str, admin_email: &str) -> Value {
    run(
        admin,
        &["create-team", "--name", name, "--admin-email", admin_email],
    )
    .await
}

/// The error code of an output, if it is an error envelope.
pub fn error_code(output: &Value) -> Option<&str> {
    output["error"]["code"].as_str()
}

pub fn text<'a>(output: &'a Value, field: &str) -> &'a str {
    output[field]
        .as_str()
        .unwrap_or_else(|| panic!("no string {field} in {output}"))
}

pub fn demo_template() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/examples/demo-template.json"
    ))
}

/// `GET path` over plain HTTP/1.1; the status code and the body.
pub fn get(address: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .expect("request");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("response");
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {response:?}"));
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// A `procflow` child process, killed if the test fails before it stops.
pub struct Serving(pub Child);

/// `procflow serve` against `database_url` on a free loopback port, one HTTP worker, JSON logs
/// on its piped stderr; then `env` (the caller's `PROCFLOW_PUBLIC_URL` and `RUST_LOG` are
/// unset first).
pub fn serve_with_json_logs(database_url: &str, env: &[(&str, &str)]) -> (Serving, ChildStderr) {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_procflow"));
    for variable in ["PROCFLOW_PUBLIC_URL", "RUST_LOG"] {
        command.env_remove(variable);
    }
    command
        .arg("serve")
        .env("DATABASE_URL", database_url)
        .env("PROCFLOW_BIND", "127.0.0.1:0")
        .env("PROCFLOW_LOG_FORMAT", "json")
        .env("PROCFLOW_HTTP_WORKERS", "1")
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut serving = Serving(command.spawn().expect("procflow serve starts"));
    let stderr = serving.0.stderr.take().expect("a piped stderr");
    (serving, stderr)
}

/// Reads JSON log `lines` up to the start-up line, keeping each in `logs`: the address it
/// serves on. Panics when serve ends first, a line is not JSON, or after 60 s.
pub fn serving_address(
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    logs: &mut Vec<String>,
) -> SocketAddr {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(Instant::now() < deadline, "no start-up line: {logs:?}");
        let Some(Ok(line)) = lines.next() else {
            panic!("serve ended before serving: {logs:?}");
        };
        let entry: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("log lines are JSON ({e}): {line}"));
        logs.push(line);
        if entry["message"] == "procflow is serving" {
            return entry["listen"]
                .as_str()
                .and_then(|listen| listen.parse().ok())
                .unwrap_or_else(|| panic!("no address in {entry}"));
        }
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
