//! Fixtures: the admin of a test database, admin commands parsed from argv, the demo template,
//! a raw HTTP GET.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::Child;
use std::time::Duration;

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

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
