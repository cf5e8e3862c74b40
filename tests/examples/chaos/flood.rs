//! Scenario 4 (issue 29, point 1): a keyless flood from one address. 1,000 connections post
//! wrong-token forms to random runs (`/instance/<random>/tasks/<random>?token=<wrong>`) as
//! fast as the server answers, for 10 s, while a keyed read and `/readyz` are probed. The
//! refused posts must be refused from memory: keyed reads keep a median under 100 ms,
//! `/readyz` stays 200, and no post is answered 5xx (the pool is 4 connections here).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use crate::Rig;
use crate::table::Table;

const SCENARIO: &str = "4. keyless flood";
const CONNECTIONS: u64 = 1_000;
const FLOOD: Duration = Duration::from_secs(10);

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

async fn connect(address: SocketAddr) -> Option<BufReader<TcpStream>> {
    TcpStream::connect(address).await.ok().map(BufReader::new)
}

#[derive(Default)]
struct Tally {
    answered: AtomicU64,
    too_many: AtomicU64,
    server_errors: AtomicU64,
    failed: AtomicU64,
}

async fn flood(address: SocketAddr, n: u64, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
    let mut seed = 0x9E37_79B9_7F4A_7C15 ^ (n + 1);
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        uuid::Uuid::from_u64_pair(seed, seed.rotate_left(17))
    };
    let mut stream = connect(address).await;
    while !stop.load(Ordering::Relaxed) {
        let Some(open) = stream.as_mut() else {
            tally.failed.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(50)).await;
            stream = connect(address).await;
            continue;
        };
        let (run, task) = (next(), next());
        let request = format!(
            "POST /instance/{run}/tasks/{task}?token=wrong{n}token HTTP/1.1\r\nHost: {address}\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 11\r\n\r\naction=save"
        );
        match exchange(open, request.as_bytes()).await {
            Ok(status) => {
                tally.answered.fetch_add(1, Ordering::Relaxed);
                if status == 429 {
                    tally.too_many.fetch_add(1, Ordering::Relaxed);
                } else if status >= 500 {
                    tally.server_errors.fetch_add(1, Ordering::Relaxed);
                }
            }
            Err(_) => stream = connect(address).await,
        }
    }
}

pub async fn run(rig: &mut Rig, table: &mut Table) {
    let address: SocketAddr = rig
        .served
        .base()
        .trim_start_matches("http://")
        .parse()
        .expect("the server's address");
    let stop = Arc::new(AtomicBool::new(false));
    let tally = Arc::new(Tally::default());
    let flooders: Vec<_> = (0..CONNECTIONS)
        .map(|n| tokio::spawn(flood(address, n, Arc::clone(&stop), Arc::clone(&tally))))
        .collect();
    let keyed = format!(
        "GET /api/v1/process-templates HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\n\r\n",
        rig.team.key
    );
    let ready = format!("GET /readyz HTTP/1.1\r\nHost: {address}\r\n\r\n");
    let mut reads = connect(address)
        .await
        .expect("a connection for keyed reads");
    let mut probes = connect(address).await.expect("a connection for /readyz");
    let (mut latencies, mut reads_ok, mut ready_ok, mut ready_probes) = (Vec::new(), 0, 0, 0);
    let started = Instant::now();
    while started.elapsed() < FLOOD {
        let sent = Instant::now();
        match exchange(&mut reads, keyed.as_bytes()).await {
            Ok(200) => reads_ok += 1,
            Ok(_) => {}
            Err(_) => {
                reads = connect(address)
                    .await
                    .expect("a connection for keyed reads")
            }
        }
        latencies.push(sent.elapsed());
        if latencies.len() % 5 == 0 {
            ready_probes += 1;
            match exchange(&mut probes, ready.as_bytes()).await {
                Ok(200) => ready_ok += 1,
                Ok(_) => {}
                Err(_) => probes = connect(address).await.expect("a connection for /readyz"),
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let elapsed = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    for flooder in flooders {
        let _ = flooder.await;
    }
    latencies.sort_unstable();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    let answered = tally.answered.load(Ordering::Relaxed);
    let too_many = tally.too_many.load(Ordering::Relaxed);
    let server_errors = tally.server_errors.load(Ordering::Relaxed);
    table.figure(
        SCENARIO,
        "flood: posts answered (1,000 connections, 10 s)",
        format!(
            "{answered} ({:.0}/s), {too_many} of them 429",
            answered as f64 / elapsed.as_secs_f64()
        ),
    );
    table.figure(
        SCENARIO,
        "flood: connections that failed to open",
        tally.failed.load(Ordering::Relaxed),
    );
    table.check(
        SCENARIO,
        "flood: posts answered 5xx",
        server_errors,
        server_errors == 0,
    );
    table.check(
        SCENARIO,
        "keyed reads: median (p90, max)",
        format!("{:?} ({:?}, {:?})", at(0.5), at(0.9), at(1.0)),
        at(0.5) < Duration::from_millis(100),
    );
    table.check(
        SCENARIO,
        "keyed reads answered 200",
        format!("{reads_ok} of {}", latencies.len()),
        reads_ok == latencies.len(),
    );
    table.check(
        SCENARIO,
        "/readyz answered 200",
        format!("{ready_ok} of {ready_probes}"),
        ready_ok == ready_probes,
    );
}
