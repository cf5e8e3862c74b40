//! `procflow serve` with `PROCFLOW_LOG_FORMAT=json`: one flat JSON line per request, without
//! the API key; and `/metrics` on the binary, counting by route pattern.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::time::Duration;

use procflow_postgres::testing::migrated_database;
use serde_json::Value;

use super::support::{admin, create_team, run, serve_with_json_logs, serving_address, text};

/// `GET path` over plain HTTP/1.1 with a bearer key: the status, the `X-Request-Id` and the
/// body.
fn get_with_key(address: SocketAddr, path: &str, key: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {key}\r\nConnection: close\r\n\r\n"
    )
    .expect("request");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("response");
    let (head, body) = response.split_once("\r\n\r\n").expect("a head and a body");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {response:?}"));
    let request_id = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("x-request-id")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no X-Request-Id in {head:?}"));
    (status, request_id, body.to_owned())
}

#[tokio::test(flavor = "multi_thread")]
async fn json_logs_have_one_flat_line_per_request_without_the_key() {
    let db = migrated_database().await;
    let admin = admin(&db);
    let team = create_team(&admin, "Logs", "boss@logs.example").await;
    let team = text(&team, "team_id");
    let key = run(
        &admin,
        &[
            "create-api-key",
            "--team",
            team,
            "--admin-email",
            "boss@logs.example",
        ],
    )
    .await;
    let key = text(&key, "key").to_owned();

    let (mut serving, stderr) = serve_with_json_logs(db.url(), &[]);
    let pid = serving.0.id().to_string();

    let sent_key = key.clone();
    let (lines, request_id, metrics) = tokio::task::spawn_blocking(move || {
        let mut lines = BufReader::new(stderr).lines();
        let mut logs = Vec::new();
        let address = serving_address(&mut lines, &mut logs);
        let (status, request_id, body) =
            get_with_key(address, "/api/v1/process-templates?limit=5", &sent_key);
        assert_eq!(status, 200, "{body}");
        let (status, _, metrics) = get_with_key(address, "/metrics", "not-needed");
        assert_eq!(status, 200, "{metrics}");
        let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(killed.success());
        // The rest of the log, until the process closes stderr.
        logs.extend(lines.map_while(Result::ok));
        (logs, request_id, metrics)
    })
    .await
    .unwrap();
    assert!(serving.0.wait().unwrap().success());

    let all = lines.join("\n");
    assert!(!all.contains(&key), "the API key leaked: {all}");
    let entries: Vec<Value> = lines
        .iter()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("log lines are JSON ({e}): {line}"))
        })
        .collect();
    let access: Vec<&Value> = entries
        .iter()
        .filter(|entry| entry["message"] == "request" && entry["request.id"] == request_id)
        .collect();
    assert_eq!(access.len(), 1, "one access line per request: {all}");
    let line = access[0];
    assert_eq!(line["level"], "INFO", "{line}");
    assert_eq!(line["http.method"], "GET", "{line}");
    assert_eq!(
        line["http.route"], "/api/v1/process-templates",
        "the route pattern, not the path: {line}"
    );
    assert_eq!(line["http.status"], 200, "{line}");
    assert!(
        line["duration_ms"].as_f64().is_some_and(|ms| ms >= 0.0),
        "{line}"
    );
    assert!(
        line.get("fields").is_none() && line.get("spans").is_none(),
        "flat: {line}"
    );
    assert!(
        !line.to_string().contains("limit=5"),
        "no query string in the access line: {line}"
    );

    assert!(
        metrics.contains(
            r#"procflow_http_requests_total{method="GET",route="/api/v1/process-templates",status="200"} 1"#
        ),
        "{metrics}"
    );
    assert!(metrics.contains("procflow_db_pool_size "), "{metrics}");
    assert!(metrics.contains("procflow_outbox_backlog "), "{metrics}");
}
