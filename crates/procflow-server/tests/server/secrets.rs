//! Secrets stay out of the logs and the database (issue 15): a whole scenario on the
//! `procflow serve` binary with JSON logs at debug level (a template, a webhook endpoint and
//! its deliveries, a run started for a member, a form filled and completed, a guest invited
//! who opens the page), then the logs and a `pg_dump` are searched for what must not be
//! there.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use procflow_postgres::testing::migrated_database;
use procflow_testkit::receiver::Receiver;
use serde_json::{Value, json};

use super::support::{admin, demo_template, run, serve_with_json_logs, text};

const ADMIN_EMAIL: &str = "boss.keeper@secrets.example";
const GUEST_EMAIL: &str = "outside.guest@guest.example";
const FORM_NAME: &str = "Zelda Quokkafeather";
const FORM_EMAIL: &str = "zelda.home@private.example";
const FORM_NOTE: &str = "allergic-to-walnuts-7731";

/// One HTTP/1.1 request with the key (when given) and a JSON body (when given): the status
/// and the body.
fn request(
    address: SocketAddr,
    method: &str,
    path: &str,
    key: Option<&str>,
    body: Option<&Value>,
) -> (u16, String) {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n");
    if let Some(key) = key {
        head.push_str(&format!("Authorization: Bearer {key}\r\n"));
    }
    if !body.is_empty() {
        head.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    write!(stream, "{head}\r\n{body}").expect("request");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("response");
    let (head, body) = response.split_once("\r\n\r\n").expect("a head and a body");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {response:?}"));
    (status, body.to_owned())
}

/// `request`, expecting `status`; the body as JSON (null when empty or HTML).
fn expect(
    address: SocketAddr,
    (method, path): (&str, &str),
    key: Option<&str>,
    body: Option<&Value>,
    status: u16,
) -> Value {
    let (got, text) = request(address, method, path, key, body);
    assert_eq!(got, status, "{method} {path}: {text}");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// What the scenario produced that must stay secret.
struct Secrets {
    key: String,
    webhook_secret: String,
    share_token: String,
}

/// Runs the scenario against the server at `address`; the secrets it saw.
fn scenario(address: SocketAddr, key: &str, template: &str, receiver_url: &str) -> Secrets {
    let (plain, key) = (key, Some(key));
    let hook = expect(
        address,
        ("POST", "/api/v1/webhooks"),
        key,
        Some(&json!({"url": receiver_url})),
        201,
    );
    let webhook_secret = hook["data"]["secret"].as_str().unwrap().to_owned();
    let run = expect(
        address,
        ("POST", "/api/v1/process-runs"),
        key,
        Some(&json!({"template_id": template, "actor_email": ADMIN_EMAIL})),
        201,
    );
    let run_id = run["data"]["id"].as_str().unwrap().to_owned();
    let tasks = expect(
        address,
        ("GET", &format!("/api/v1/process-runs/{run_id}/tasks")),
        key,
        None,
        200,
    );
    let first = &tasks["data"][0];
    let value_of = |label: &str| -> Option<Value> {
        match label {
            "Full name" => Some(json!(FORM_NAME)),
            "Personal email" => Some(json!(FORM_EMAIL)),
            "First day" => Some(json!("2027-01-04")),
            "Anything we should know?" => Some(json!(FORM_NOTE)),
            _ => None,
        }
    };
    let values: Vec<Value> = first["custom_elements"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|element| {
            let value = value_of(element["label"].as_str()?)?;
            Some(json!({"id": element["id"], "value": value}))
        })
        .collect();
    assert_eq!(
        values.len(),
        4,
        "the demo's first task has the fields: {first}"
    );
    expect(
        address,
        (
            "PATCH",
            &format!(
                "/api/v1/process-runs/{run_id}/tasks/{}",
                first["id"].as_str().unwrap()
            ),
        ),
        key,
        Some(&json!({"custom_elements": values, "completed": true, "actor_email": ADMIN_EMAIL})),
        200,
    );
    let shared = expect(
        address,
        ("POST", &format!("/api/v1/process-runs/{run_id}/invite")),
        key,
        Some(&json!({"email": GUEST_EMAIL, "enable_reminders": true, "reminder_days": 2})),
        200,
    );
    let share_url = shared["data"]["share_url"].as_str().unwrap();
    let page = &share_url[share_url.find("/instance/").unwrap()..];
    let share_token = page.split_once("token=").unwrap().1.to_owned();
    let (status, html) = request(address, "GET", page, None, None);
    assert_eq!(status, 200, "{html}");
    // A wrong token is logged as a miss, never echoed.
    let wrong = page.replace(&share_token, &"x".repeat(share_token.len()));
    assert_eq!(request(address, "GET", &wrong, None, None).0, 404);
    Secrets {
        key: plain.to_owned(),
        webhook_secret,
        share_token,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn no_key_token_secret_address_or_form_value_reaches_the_logs_or_a_dump() {
    let db = migrated_database().await;
    let admin = admin(&db);
    let team = run(
        &admin,
        &[
            "create-team",
            "--name",
            "Secret Keepers",
            "--admin-email",
            ADMIN_EMAIL,
        ],
    )
    .await;
    let team = text(&team, "team_id").to_owned();
    let key = run(
        &admin,
        &[
            "create-api-key",
            "--team",
            &team,
            "--admin-email",
            ADMIN_EMAIL,
        ],
    )
    .await;
    let key = text(&key, "key").to_owned();
    let template = run(
        &admin,
        &[
            "import-template",
            "--team",
            &team,
            demo_template().to_str().unwrap(),
            "--publish",
        ],
    )
    .await;
    let template = text(&template, "template_id").to_owned();
    let receiver = Receiver::start().await;

    let (mut serving, stderr) = serve_with_json_logs(
        db.url(),
        &[
            ("RUST_LOG", "debug"),
            ("PROCFLOW_WEBHOOK_ALLOW_PRIVATE", "true"),
        ],
    );
    let pid = serving.0.id().to_string();

    // The log is read on a thread of its own from the start, so the server never blocks on
    // a full pipe while the scenario runs.
    let (address_tx, address_rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut logs = Vec::new();
        let mut address_tx = Some(address_tx);
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(tx) = address_tx.as_ref()
                && let Ok(entry) = serde_json::from_str::<Value>(&line)
                && entry["message"] == "procflow is serving"
                && let Some(listen) = entry["listen"].as_str()
            {
                let _ = tx.send(listen.parse::<SocketAddr>().unwrap());
                address_tx = None;
            }
            logs.push(line);
        }
        logs
    });
    let address = address_rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the server started");

    let receiver_url = receiver.url();
    let secrets =
        tokio::task::spawn_blocking(move || scenario(address, &key, &template, &receiver_url))
            .await
            .unwrap();
    // The deliveries were made (and logged by the worker) before the server stops: run
    // created, the step completed.
    let deliveries = receiver.wait_for(2, Duration::from_secs(30)).await;
    let started = Instant::now();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    assert!(serving.0.wait().unwrap().success());
    let logs = reader.join().unwrap();
    assert!(started.elapsed() < Duration::from_secs(30));

    // The log is the one the test means to search: JSON, at debug level, covering the run.
    let entries: Vec<Value> = logs
        .iter()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    assert!(
        entries.iter().any(|entry| entry["level"] == "DEBUG"),
        "debug lines are on"
    );
    let requests = entries
        .iter()
        .filter(|entry| entry["message"] == "request")
        .count();
    assert_eq!(requests, 7, "every request of the scenario has its line");
    let all = logs.join("\n");
    let whsec_key = secrets
        .webhook_secret
        .strip_prefix("whsec_")
        .expect("a Standard Webhooks secret");
    let signature = deliveries[0]
        .header("webhook-signature")
        .expect("a signed delivery")
        .to_owned();
    for (what, secret) in [
        ("the API key", secrets.key.as_str()),
        ("the webhook secret", whsec_key),
        (
            "a delivery's signature",
            &signature[signature.find(',').unwrap() + 1..],
        ),
        ("the share token", secrets.share_token.as_str()),
        ("the admin's email", ADMIN_EMAIL),
        ("the guest's email", GUEST_EMAIL),
        ("an email written in a form", FORM_EMAIL),
        ("a name written in a form", FORM_NAME),
        ("a note written in a form", FORM_NOTE),
    ] {
        assert!(
            !all.contains(secret),
            "{what} is in the logs: {}",
            logs.iter().find(|line| line.contains(secret)).unwrap()
        );
    }
    for domain in ["@secrets.example", "@guest.example", "@private.example"] {
        assert!(
            !all.contains(domain),
            "an address at {domain} is in the logs"
        );
    }

    // The database keeps the key's hash, never the key.
    let dump = pg_dump(db.url());
    assert!(dump.contains("Secret Keepers"), "the dump holds the data");
    assert!(
        !dump.contains(&secrets.key),
        "the API key is in the database"
    );
}

/// The plain-SQL dump of the database at `url`, by the system's newest `pg_dump`.
fn pg_dump(url: &str) -> String {
    let (_, bin) = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL's binaries")
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version: u32 = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin/pg_dump");
            bin.exists().then_some((version, bin))
        })
        .max()
        .expect("a pg_dump");
    let output = Command::new(bin)
        .args(["--no-owner", "--dbname", url])
        .output()
        .expect("pg_dump runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("a UTF-8 dump")
}
