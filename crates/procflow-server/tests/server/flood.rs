//! Issue 29, point 1: a keyless flood from one address (hundreds of connections posting to
//! `/instance/<random>/tasks/<random>?token=<wrong>`) must not take the database away from
//! everyone: keyed reads keep a median under 100 ms and `/readyz` stays 200, because refused
//! guest posts are refused from memory and the few that reach the store hold one row lock for
//! one statement. Bounded: 10 s of flood, loopback only.

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use procflow_postgres::testing::migrated_database;
use procflow_server::ServeConfig;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use super::support::{admin, create_team, run, text, url};

/// Flooding connections, each posting one form after another.
const CONNECTIONS: usize = 300;
/// How long the flood lasts.
const FLOOD: Duration = Duration::from_secs(10);
/// Each flooding connection's pause between posts: about 750 posts a second in all, more
/// than the 280 a second of the measurement.
const PACE: Duration = Duration::from_millis(400);

/// One HTTP/1.1 exchange on a kept-alive connection: the status.
async fn exchange(stream: &mut BufReader<TcpStream>, request: &[u8]) -> std::io::Result<u16> {
    stream.get_mut().write_all(request).await?;
    let mut line = String::new();
    stream.read_line(&mut line).await?;
    let status = line
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no status line: {line:?}")))?;
    let mut length = 0;
    loop {
        line.clear();
        stream.read_line(&mut line).await?;
        if line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await?;
    Ok(status)
}

async fn connect(address: SocketAddr) -> BufReader<TcpStream> {
    BufReader::new(TcpStream::connect(address).await.unwrap())
}

fn random_id(seed: &mut u64) -> String {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    uuid::Uuid::from_u64_pair(*seed, seed.rotate_left(17)).to_string()
}

/// What the flood's answers were.
#[derive(Default)]
struct Tally {
    sent: AtomicU64,
    too_many: AtomicU64,
    not_found: AtomicU64,
    other: AtomicU64,
}

/// One flooding connection: wrong-token posts to random runs until `stop`.
async fn flood(address: SocketAddr, n: u64, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
    let mut seed = 0x9E37_79B9_7F4A_7C15 ^ (n + 1);
    let mut stream = connect(address).await;
    while !stop.load(Ordering::Relaxed) {
        let (run, task) = (random_id(&mut seed), random_id(&mut seed));
        let body = "action=save";
        let request = format!(
            "POST /instance/{run}/tasks/{task}?token=wrong{n}token HTTP/1.1\r\nHost: {address}\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        match exchange(&mut stream, request.as_bytes()).await {
            Ok(status) => {
                tally.sent.fetch_add(1, Ordering::Relaxed);
                let counter = match status {
                    429 => &tally.too_many,
                    404 => &tally.not_found,
                    _ => &tally.other,
                };
                counter.fetch_add(1, Ordering::Relaxed);
            }
            // The server closed the connection (a 4xx may close it): open another.
            Err(_) => stream = connect(address).await,
        }
        tokio::time::sleep(PACE).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(clippy::print_stderr, reason = "the figures are the test's report")]
async fn a_keyless_flood_from_one_address_leaves_keyed_reads_and_readiness_alone() {
    let db = migrated_database().await;
    let admin = admin(&db);
    let team = create_team(&admin, "Flooded", "ann@flood.example").await;
    let key = run(
        &admin,
        &[
            "create-api-key",
            "--team",
            text(&team, "team_id"),
            "--admin-email",
            "ann@flood.example",
        ],
    )
    .await;
    let key = text(&key, "key").to_owned();

    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let mut config = ServeConfig {
        db_pool_size: 8,
        ..ServeConfig::new(url(&db), address)
    };
    config.http.workers = Some(2);
    // The probes' key makes about 20 requests a second: keep its own limit out of the way.
    config.http.rate_limit_per_minute = 100_000;
    let server = procflow_server::start(config, listener).await.unwrap();
    let handle = server.handle();
    let serving = tokio::spawn(server);

    let stop = Arc::new(AtomicBool::new(false));
    let tally = Arc::new(Tally::default());
    let flooders: Vec<_> = (0..CONNECTIONS as u64)
        .map(|n| tokio::spawn(flood(address, n, Arc::clone(&stop), Arc::clone(&tally))))
        .collect();

    // Probes, one after the other on two connections of their own, while the flood lasts.
    let keyed = format!(
        "GET /api/v1/process-templates HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {key}\r\n\r\n"
    );
    let ready = format!("GET /readyz HTTP/1.1\r\nHost: {address}\r\n\r\n");
    let mut reads = connect(address).await;
    let mut probes = connect(address).await;
    let mut latencies = Vec::new();
    let mut read_statuses = Vec::new();
    let mut readiness = Vec::new();
    let started = Instant::now();
    while started.elapsed() < FLOOD {
        let sent = Instant::now();
        // A failed exchange (the server closed the connection) counts as status 0.
        let status = match exchange(&mut reads, keyed.as_bytes()).await {
            Ok(status) => status,
            Err(_) => {
                reads = connect(address).await;
                0
            }
        };
        latencies.push(sent.elapsed());
        read_statuses.push(status);
        if latencies.len() % 5 == 0 {
            readiness.push(match exchange(&mut probes, ready.as_bytes()).await {
                Ok(status) => status,
                Err(_) => {
                    probes = connect(address).await;
                    0
                }
            });
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    stop.store(true, Ordering::Relaxed);
    for flooder in flooders {
        flooder.await.unwrap();
    }
    handle.stop(true).await;
    serving.await.unwrap().unwrap();

    latencies.sort_unstable();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    let (sent, too_many, not_found, other) = (
        tally.sent.load(Ordering::Relaxed),
        tally.too_many.load(Ordering::Relaxed),
        tally.not_found.load(Ordering::Relaxed),
        tally.other.load(Ordering::Relaxed),
    );
    let ready_200 = readiness.iter().filter(|status| **status == 200).count();
    let reads_200 = read_statuses
        .iter()
        .filter(|status| **status == 200)
        .count();
    eprintln!(
        "flood: {sent} posts in {FLOOD:?} from {CONNECTIONS} connections ({too_many} answered 429, \
         {not_found} 404, {other} other); keyed reads: {reads_200} of {} answered 200 (p50 {:?}, p90 {:?}, \
         max {:?}); /readyz: {ready_200} of {} answered 200",
        latencies.len(),
        at(0.5),
        at(0.9),
        at(1.0),
        readiness.len()
    );
    assert!(sent > 2_000, "the flood flooded: {sent} posts");
    assert!(
        too_many > sent / 2,
        "most of the flood was over the limit: {too_many}"
    );
    assert!(
        at(0.5) < Duration::from_millis(100),
        "keyed reads' median {:?}",
        at(0.5)
    );
    assert_eq!(
        reads_200,
        read_statuses.len(),
        "keyed reads: {read_statuses:?}"
    );
    assert_eq!(ready_200, readiness.len(), "/readyz: {readiness:?}");
}
