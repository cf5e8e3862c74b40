//! Attachment bytes across process deaths (API contract 14.2), on the real binary and a local
//! storage directory: `procflow worker` alone sweeps the bytes no row names; and a
//! `procflow serve` killed with SIGKILL in the middle of an upload loses no file it had
//! acknowledged, leaves no row without its bytes, and, restarted, sweeps what the cut upload
//! left.
//!
//! The sweep leaves bytes younger than `SWEEP_GRACE` (an hour, by the wall clock against the
//! files' modification times): the tests age the files past it instead of waiting, the same
//! as moving the clock an hour and a half ahead.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use procflow_client::wire::bodies::CreateRunBody;
use procflow_client::{Client, PageRequest, WriteOptions};
use procflow_domain::service::SWEEP_GRACE;
use procflow_postgres::testing::migrated_database;
use procflow_testkit::Session;
use serde_json::Value;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::support::{
    Serving, admin, create_team, demo_template, run, serve_with_json_logs, serving_address, text,
};

/// How long a test waits for what should happen within a few seconds.
const WAIT: Duration = Duration::from_secs(30);

/// Past the sweep's grace.
fn aged() -> SystemTime {
    let grace = Duration::from_secs(SWEEP_GRACE.whole_seconds().unsigned_abs());
    SystemTime::now() - grace - Duration::from_secs(30 * 60)
}

fn age(file: &Path, to: SystemTime) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(file)
        .and_then(|f| f.set_modified(to))
        .unwrap_or_else(|e| panic!("cannot age {}: {e}", file.display()));
}

/// Every file under `root`, as paths relative to it, sorted.
fn files_under(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.map_while(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(relative) = path.strip_prefix(root) {
                found.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    found.sort();
    found
}

fn storage_url(root: &Path) -> String {
    format!("file://{}", root.display())
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `len` bytes that do not compress and differ by `seed` (xorshift).
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    let mut bytes = Vec::with_capacity(len + 8);
    while bytes.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bytes.extend_from_slice(&state.to_le_bytes());
    }
    bytes.truncate(len);
    bytes
}

/// A child's JSON log lines, kept as they come (read to the end, so the child never blocks on
/// a full pipe).
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<Value>>>);

impl Logs {
    fn keep(&self, lines: impl Iterator<Item = std::io::Result<String>> + Send + 'static) {
        let kept = self.0.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                if let Ok(entry) = serde_json::from_str(&line) {
                    kept.lock().unwrap().push(entry);
                }
            }
        });
    }

    /// The lines whose message is `message`.
    fn logged(&self, message: &str) -> Vec<Value> {
        let lines = self.0.lock().unwrap();
        lines
            .iter()
            .filter(|entry| entry["message"] == message)
            .cloned()
            .collect()
    }
}

/// `procflow serve` on `storage`, its address and its logs.
fn serve(database_url: &str, storage: &Path) -> (Serving, SocketAddr, Logs) {
    let url = storage_url(storage);
    let (serving, stderr) = serve_with_json_logs(
        database_url,
        &[("PROCFLOW_STORAGE_URL", &url), ("RUST_LOG", "info")],
    );
    let mut lines = BufReader::new(stderr).lines();
    let address = serving_address(&mut lines, &mut Vec::new());
    let logs = Logs::default();
    logs.keep(lines);
    (serving, address, logs)
}

/// Polls `done` every 20 ms until it holds; panics with `what` after [`WAIT`].
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + WAIT;
    while !done() {
        assert!(Instant::now() < until, "not within {WAIT:?}: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

const ORPHAN_REMOVED: &str = "removed attachment bytes that no row names";
const STAGED_REMOVED: &str = "removed what an upload that never ended left";

#[test]
fn procflow_worker_alone_sweeps_the_bytes_no_row_names() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let db = runtime.block_on(migrated_database());
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("files");
    let team = Uuid::now_v7();
    let files = root.join(format!("teams/{team}/files"));
    std::fs::create_dir_all(&files).unwrap();
    let (orphan, fresh, staged) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
    for (name, written) in [
        (orphan.to_string(), aged()),
        (fresh.to_string(), SystemTime::now()),
        (format!("{staged}#1"), aged()),
    ] {
        std::fs::write(files.join(&name), b"bytes").unwrap();
        age(&files.join(&name), written);
    }

    let mut child = Command::new(env!("CARGO_BIN_EXE_procflow"))
        .arg("worker")
        .env("DATABASE_URL", db.url())
        .env("PROCFLOW_BIND", "127.0.0.1:0")
        .env("PROCFLOW_STORAGE_URL", storage_url(&root))
        .env("PROCFLOW_LOG_FORMAT", "json")
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let logs = Logs::default();
    logs.keep(BufReader::new(child.stderr.take().unwrap()).lines());
    let worker = Serving(child);

    let left = || files_under(&root);
    wait_until("the old orphan and staged file swept", || {
        left() == [format!("teams/{team}/files/{fresh}")]
    });
    wait_until("the removals logged", || {
        !logs.logged(ORPHAN_REMOVED).is_empty() && !logs.logged(STAGED_REMOVED).is_empty()
    });
    assert_eq!(
        logs.logged(ORPHAN_REMOVED)[0]["storage.key"],
        format!("teams/{team}/files/{orphan}")
    );
    assert_eq!(
        logs.logged(STAGED_REMOVED)[0]["storage.path"],
        format!("teams/{team}/files/{staged}#1")
    );
    drop(worker);
}

/// An upload whose body is sent by hand: the head and the first `sent` bytes of a `file` part
/// of `total` bytes, the rest never.
fn start_upload(
    address: SocketAddr,
    path: &str,
    key: &str,
    bytes: &[u8],
    sent: usize,
) -> TcpStream {
    let boundary = "procflow-crash-test-0b7d4e";
    let head = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n"
    );
    let tail = format!("\r\n--{boundary}--\r\n");
    let length = head.len() + bytes.len() + tail.len();
    let mut stream = TcpStream::connect(address).unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {key}\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {length}\r\n\r\n{head}"
    )
    .unwrap();
    stream.write_all(&bytes[..sent]).unwrap();
    stream.flush().unwrap();
    stream
}

#[test]
fn a_serve_killed_mid_upload_loses_nothing_acknowledged_and_leaves_no_row_without_bytes() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let _entered = runtime.enter(); // the clients' reqwest
    procflow_notify::install_tls(); // reqwest's rustls provider, as the binary installs it
    let db = runtime.block_on(migrated_database());
    let (team, key, template) = runtime.block_on(async {
        let admin = admin(&db);
        let team = create_team(&admin, "Files", "boss@files.example").await;
        let team = text(&team, "team_id").to_owned();
        let key = run(
            &admin,
            &[
                "create-api-key",
                "--team",
                &team,
                "--admin-email",
                "boss@files.example",
            ],
        )
        .await;
        let template = demo_template();
        let template = run(
            &admin,
            &[
                "import-template",
                "--team",
                &team,
                template.to_str().unwrap(),
                "--publish",
            ],
        )
        .await;
        (
            team,
            text(&key, "key").to_owned(),
            text(&template, "template_id").to_owned(),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("files");

    let (first, address, _) = serve(db.url(), &root);
    let client = Client::new(&format!("http://{address}"), key.clone()).unwrap();
    let (run_id, task_id) = runtime.block_on(async {
        let created = client
            .create_run(
                &CreateRunBody {
                    template_id: template.clone(),
                    name: Some("Crash".into()),
                    ..CreateRunBody::default()
                },
                &WriteOptions::default(),
            )
            .await
            .unwrap();
        let run_id = created.id.to_string();
        let tasks = client
            .list_run_tasks(&run_id, PageRequest::default())
            .await
            .unwrap();
        (run_id, tasks.data[0].id.to_string())
    });

    // A: uploaded whole, acknowledged with its id and sha256.
    let a_bytes = noise(3 * 1024 * 1024 + 17, 1);
    let a = runtime
        .block_on(client.upload_task_attachment(
            &run_id,
            &task_id,
            "a.bin",
            "application/octet-stream",
            &a_bytes,
            &WriteOptions::default(),
        ))
        .unwrap();
    assert_eq!(a.sha256, sha256_hex(&a_bytes));
    let a_key = format!("teams/{team}/files/{}", a.id);
    assert_eq!(files_under(&root), std::slice::from_ref(&a_key));

    // B: 8 MiB announced, 4 MiB sent; the server is killed once it has written a part of it.
    let b_bytes = noise(8 * 1024 * 1024, 2);
    let path = format!("/api/v1/process-runs/{run_id}/tasks/{task_id}/attachments");
    let upload = start_upload(address, &path, &key, &b_bytes, 4 * 1024 * 1024);
    let staged_bytes = || -> u64 {
        files_under(&root)
            .iter()
            .filter(|f| f.contains('#'))
            .map(|f| root.join(f).metadata().map_or(0, |m| m.len()))
            .sum()
    };
    wait_until("a part of B written to storage", || {
        staged_bytes() >= 1024 * 1024
    });
    let mut first = first;
    first.0.kill().unwrap(); // SIGKILL: no abort of the upload, no clean-up.
    first.0.wait().unwrap();
    drop(upload);
    let left = files_under(&root);
    assert_eq!(left.len(), 2, "A and B's staged part: {left:?}");
    assert_eq!(left[0], a_key);
    assert!(
        left[1].starts_with(&format!("teams/{team}/files/")) && left[1].contains('#'),
        "B's part is a staged file, not an object: {left:?}"
    );
    let b_staged = left[1].clone();

    // Everything older than the grace: what a row names must stay all the same.
    for file in &left {
        age(&root.join(file), aged());
    }
    let (_second, address, logs) = serve(db.url(), &root);
    wait_until("the sweep on start removed B's part", || {
        files_under(&root) == [a_key.clone()]
    });
    wait_until("the removal logged", || {
        !logs.logged(STAGED_REMOVED).is_empty()
    });
    assert_eq!(logs.logged(STAGED_REMOVED)[0]["storage.path"], b_staged);

    let client = Client::new(&format!("http://{address}"), key).unwrap();
    runtime.block_on(async {
        let listed = client
            .list_task_attachments(&run_id, &task_id, PageRequest::default())
            .await
            .unwrap();
        assert_eq!(listed.data.len(), 1, "A alone: {:?}", listed.data);
        assert_eq!(listed.data[0].id, a.id);
        assert_eq!(listed.data[0].sha256, a.sha256);
        let downloaded = client.download_attachment(&a.id.to_string()).await.unwrap();
        assert_eq!(sha256_hex(&downloaded), a.sha256, "A byte for byte");

        // No row for B, and every row's bytes are stored, whole.
        let rows = Session::open(db.url())
            .await
            .rows("SELECT team_id::text, id::text, size::text FROM task_attachments")
            .await;
        assert_eq!(rows.len(), 1, "{rows:?}");
        for row in rows {
            let [Some(team), Some(id), Some(size)] = row.as_slice() else {
                panic!("{row:?}");
            };
            let stored = root.join(format!("teams/{team}/files/{id}"));
            assert_eq!(
                stored.metadata().map(|m| m.len().to_string()).ok().as_ref(),
                Some(size),
                "{}",
                stored.display()
            );
        }
    });
}
