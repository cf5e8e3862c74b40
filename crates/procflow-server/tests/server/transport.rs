//! `procflow serve` against raw TCP clients (issue "Hard to break, round two", points 5 and
//! 6): what actix used to answer on its own (a URI too long, headers too large or too many, a
//! malformed header, a head too slow) comes back in the JSON envelope with an `X-Request-Id`;
//! a body too slow answers 408 (the guest's form too, with a wrong token); a client that does
//! not take its responses loses its connection; and none of it writes an `ERROR` line.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use procflow_postgres::testing::migrated_database;
use serde_json::Value;

use super::support::{admin, create_team, run, serve_with_json_logs, serving_address, text};

/// The time limits the server runs with here: short, so that the test is.
const HEAD: Duration = Duration::from_millis(1_500);
const BODY: Duration = Duration::from_millis(1_000);
const WRITE: Duration = Duration::from_millis(1_000);

/// An answer as read off the wire.
struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }

    /// The envelope's code, after checking the envelope, its content type and the request id.
    #[track_caller]
    fn code(&self) -> String {
        assert!(
            self.header("x-request-id").is_some_and(|id| !id.is_empty()),
            "no X-Request-Id: {}",
            self.head
        );
        assert!(
            self.header("content-type")
                .is_some_and(|t| t.starts_with("application/json")),
            "{}",
            self.head
        );
        let body: Value = serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body));
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(!message.is_empty(), "{body}");
        body["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

fn connect(address: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(15)))
        .expect("timeout");
    stream
}

/// Reads one answer (its head, and a body of its `Content-Length`).
fn read_answer(stream: &mut TcpStream) -> Answer {
    let mut bytes = Vec::new();
    let mut byte = [0_u8; 1];
    while !bytes.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => bytes.push(byte[0]),
            other => panic!(
                "no whole answer ({other:?}) after {:?}",
                String::from_utf8_lossy(&bytes)
            ),
        }
    }
    let head = String::from_utf8(bytes).expect("a text head");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {head:?}"));
    let mut answer = Answer {
        status,
        head,
        body: String::new(),
    };
    let length: usize = answer
        .header("content-length")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0_u8; length];
    stream.read_exact(&mut body).expect("the body");
    answer.body = String::from_utf8(body).expect("a text body");
    answer
}

/// Sends `request` (ignoring a send the server cut short: it may answer before reading it
/// all) and reads the answer.
fn ask(address: SocketAddr, request: &[u8]) -> Answer {
    let mut stream = connect(address);
    let mut writer = stream.try_clone().expect("clone");
    let request = request.to_vec();
    let sending = std::thread::spawn(move || {
        let _ = writer.write_all(&request);
    });
    let answer = read_answer(&mut stream);
    let _ = sending.join();
    answer
}

#[tokio::test(flavor = "multi_thread")]
async fn what_actix_answered_on_its_own_is_answered_in_the_envelope_and_slow_clients_are_cut() {
    let db = migrated_database().await;
    let admin = admin(&db);
    let team = create_team(&admin, "Transport", "boss@transport.example").await;
    let team = text(&team, "team_id");
    let key = run(
        &admin,
        &[
            "create-api-key",
            "--team",
            team,
            "--admin-email",
            "boss@transport.example",
        ],
    )
    .await;
    let key = text(&key, "key").to_owned();
    let settings = [
        ("PROCFLOW_REQUEST_HEAD_TIMEOUT", "1500ms"),
        ("PROCFLOW_REQUEST_BODY_TIMEOUT", "1s"),
        ("PROCFLOW_RESPONSE_WRITE_TIMEOUT", "1s"),
    ];
    let (mut serving, stderr) = serve_with_json_logs(db.url(), &settings);
    let pid = serving.0.id().to_string();

    let logs = tokio::task::spawn_blocking(move || {
        let mut lines = BufReader::new(stderr).lines();
        let mut logs = Vec::new();
        let address = serving_address(&mut lines, &mut logs);
        let host = format!("Host: {address}\r\n");

        // A URI over 64 KiB, a header of 1 MB, too many headers, a malformed header.
        let long = format!("GET /{} HTTP/1.1\r\n{host}\r\n", "a".repeat(70 * 1024));
        let answer = ask(address, long.as_bytes());
        assert_eq!((answer.status, answer.code().as_str()), (414, "uri_too_long"));
        let big = format!("GET /healthz HTTP/1.1\r\n{host}X-Big: {}\r\n\r\n", "b".repeat(1 << 20));
        let answer = ask(address, big.as_bytes());
        assert_eq!((answer.status, answer.code().as_str()), (431, "headers_too_large"));
        let many = format!("GET /healthz HTTP/1.1\r\n{host}{}\r\n", "X-A: 1\r\n".repeat(200));
        let answer = ask(address, many.as_bytes());
        assert_eq!((answer.status, answer.code().as_str()), (431, "headers_too_large"));
        for malformed in [
            format!("GET /healthz HTTP/1.1\r\n{host}Bad Header: x\r\n\r\n"),
            format!("POST /healthz HTTP/1.1\r\n{host}Content-Length: 1\r\nContent-Length: 2\r\n\r\n"),
            "GET /healthz HTTP/1.1\r\n\r\n".to_owned(),
        ] {
            let answer = ask(address, malformed.as_bytes());
            assert_eq!(
                (answer.status, answer.code().as_str()),
                (400, "validation_error"),
                "{malformed:?}"
            );
        }

        // A head that never ends: 408 at the head's limit (a slowloris client).
        let started = Instant::now();
        let answer = ask(address, b"GET /healthz HTTP/1.1\r\nX-Slow: ");
        assert_eq!((answer.status, answer.code().as_str()), (408, "request_timeout"));
        assert!(started.elapsed() >= HEAD && started.elapsed() < HEAD * 3, "{:?}", started.elapsed());

        // A body sent too slowly, to the API and to a guest form with a wrong token.
        let started = Instant::now();
        let slow = format!(
            "POST /api/v1/process-templates HTTP/1.1\r\n{host}Authorization: Bearer {key}\r\n\
             Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"title\""
        );
        let answer = ask(address, slow.as_bytes());
        assert_eq!((answer.status, answer.code().as_str()), (408, "request_timeout"));
        assert!(started.elapsed() < BODY * 4, "{:?}", started.elapsed());
        let run = uuid::Uuid::now_v7();
        let guest = format!(
            "POST /instance/{run}/tasks/{run}?token=wrong HTTP/1.1\r\n{host}\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\naction=sa"
        );
        let started = Instant::now();
        let answer = ask(address, guest.as_bytes());
        assert_eq!(answer.status, 408, "{}", answer.body);
        assert!(answer.header("x-request-id").is_some(), "{}", answer.head);
        assert!(started.elapsed() < BODY * 4, "{:?}", started.elapsed());

        // A client that asks and never reads: 200 documents of the API pipelined, about 30 MB.
        let mut stream = connect(address);
        let pipelined = format!("GET /api/v1/openapi.json HTTP/1.1\r\n{host}\r\n").repeat(200);
        stream.write_all(pipelined.as_bytes()).expect("the requests");
        std::thread::sleep(WRITE * 3);
        let started = Instant::now();
        let mut received = Vec::new();
        let ended = loop {
            let mut chunk = [0_u8; 64 * 1024];
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => break started.elapsed(),
                Ok(n) => received.extend_from_slice(&chunk[..n]),
            }
            assert!(started.elapsed() < Duration::from_secs(20), "the connection stays open");
        };
        let answers = received
            .windows(b"HTTP/1.1 200".len())
            .filter(|w| *w == b"HTTP/1.1 200")
            .count();
        assert!(answers < 200, "{answers} answers in {ended:?}: the client had them all");

        let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(killed.success());
        logs.extend(lines.map_while(Result::ok));
        logs
    })
    .await
    .unwrap();
    assert!(serving.0.wait().unwrap().success());

    let errors: Vec<&String> = logs
        .iter()
        .filter(|line| line.contains("\"level\":\"ERROR\""))
        .collect();
    assert!(
        errors.is_empty(),
        "ERROR lines a client could cause: {errors:#?}"
    );
    let warned = |needle: &str| {
        logs.iter()
            .any(|line| line.contains("\"level\":\"WARN\"") && line.contains(needle))
    };
    assert!(warned("refused a request before any route"), "{logs:#?}");
    assert!(warned("a request body did not arrive in time"), "{logs:#?}");
    assert!(
        warned("a client did not take its response in time"),
        "{logs:#?}"
    );
}
