//! `procflow serve` as a child process of the fuzz and chaos drivers (`make fuzz`, `make
//! chaos`): the release binary the operators run, on a loopback port, that can be killed with
//! SIGKILL and started again over the same database.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long a started server may take to answer `/healthz`.
const START_DEADLINE: Duration = Duration::from_secs(30);

/// The `procflow` binary: `$PROCFLOW_BIN`, else `target/release/procflow` of the workspace.
#[must_use]
pub fn procflow_bin() -> PathBuf {
    std::env::var_os("PROCFLOW_BIN").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/procflow"),
        PathBuf::from,
    )
}

/// A free port on 127.0.0.1 (bound, read, released: another process may take it first, which
/// the server's start then reports).
#[must_use]
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// Runs `procflow admin <args>` over `db_url` and returns the JSON object it prints.
pub fn admin(db_url: &str, args: &[&str]) -> Value {
    let out = Command::new(procflow_bin())
        .arg("admin")
        .args(args)
        .env("DATABASE_URL", db_url)
        .env("RUST_LOG", "warn")
        .output()
        .expect("running procflow admin");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "procflow admin {args:?} failed: {text}"
    );
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("procflow admin {args:?}: {e}: {text}"))
}

/// A running `procflow serve`; killed when dropped.
pub struct Served {
    port: u16,
    db_url: String,
    env: Vec<(String, String)>,
    log: PathBuf,
    child: Option<Child>,
}

impl Served {
    /// Starts `procflow serve` over `db_url` on a free port with these extra settings
    /// (`PROCFLOW_...` variables), its log appended to `log`, and waits until it answers.
    pub async fn start(db_url: &str, env: &[(&str, &str)], log: &Path) -> Self {
        let mut served = Self {
            port: free_port(),
            db_url: db_url.to_owned(),
            env: env
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            log: log.to_owned(),
            child: None,
        };
        served.spawn().await;
        served
    }

    /// `http://127.0.0.1:<port>`
    #[must_use]
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The process id, while it runs.
    #[must_use]
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|child| matches!(child.try_wait(), Ok(None)))
    }

    /// Kills the process with SIGKILL (no shutdown of any kind) and reaps it.
    pub fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the process again, same port, database and settings, and waits until it answers.
    pub async fn restart(&mut self) {
        self.kill9();
        self.spawn().await;
    }

    async fn spawn(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("the server's log file");
        let mut command = Command::new(procflow_bin());
        command
            .arg("serve")
            .env("DATABASE_URL", &self.db_url)
            .env("PROCFLOW_BIND", format!("127.0.0.1:{}", self.port))
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log handle"))
            .stderr(log);
        for (k, v) in &self.env {
            command.env(k, v);
        }
        self.child = Some(command.spawn().expect("starting procflow serve"));
        procflow_notify::install_tls();
        let client = reqwest::Client::new();
        let until = Instant::now() + START_DEADLINE;
        loop {
            let answer = client
                .get(format!("{}/healthz", self.base()))
                .timeout(Duration::from_secs(1))
                .send()
                .await;
            if answer.is_ok_and(|a| a.status().is_success()) {
                return;
            }
            if let Some(Ok(Some(status))) = self.child.as_mut().map(Child::try_wait) {
                panic!(
                    "procflow serve exited with {status}; see {}",
                    self.log.display()
                );
            }
            assert!(
                Instant::now() < until,
                "procflow serve did not answer within {START_DEADLINE:?}; see {}",
                self.log.display()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.kill9();
    }
}
