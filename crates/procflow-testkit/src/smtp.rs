//! An SMTP server on loopback for the email tests: `scripts/smtp-sink.py` (aiosmtpd) started
//! from the virtualenv `make mail-tools` makes, on a free port, stopped when dropped. It keeps
//! every message accepted, parsed, with when it arrived; recipients named `soft-...` get a 451
//! the first time, `hard-...` a 550 always, and a message to `slow-...` is answered after a
//! pause (100 ms).

#![allow(
    clippy::panic,
    clippy::expect_used,
    reason = "a test fixture fails loudly, at the test's line"
)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// One message as the server accepted it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Email {
    /// The envelope's sender.
    pub mail_from: String,
    /// The envelope's recipients.
    pub rcpt_tos: Vec<String>,
    /// The `From` header.
    pub from: String,
    /// The `To` header.
    pub to: String,
    /// The `Subject` header, decoded.
    pub subject: String,
    /// The `Message-ID` header.
    pub message_id: String,
    /// The top-level content type (`multipart/alternative`).
    pub content_type: String,
    /// The `text/plain` part, decoded.
    pub text: Option<String>,
    /// The `text/html` part, decoded.
    pub html: Option<String>,
    /// When the server reported it (as it arrived, before its answer).
    pub at: Instant,
}

#[derive(Default)]
struct Received {
    messages: Vec<Email>,
    refused: Vec<(String, u16)>,
}

type Inbox = Arc<(Mutex<Received>, Condvar)>;

/// The running server.
pub struct SmtpServer {
    child: Child,
    stdin: Option<ChildStdin>,
    port: u16,
    inbox: Inbox,
}

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn text(value: &serde_json::Value, key: &str) -> String {
    value[key].as_str().unwrap_or_default().to_owned()
}

impl SmtpServer {
    /// Starts the server; panics with what to run when the virtualenv is missing.
    #[must_use]
    pub fn start() -> Self {
        let root = workspace_root();
        let python = std::env::var_os("PROCFLOW_SMTP_PYTHON")
            .map_or_else(|| root.join("target/tools/smtp/bin/python"), PathBuf::from);
        assert!(
            python.exists(),
            "{} is missing: run `make mail-tools` (the email tests' SMTP server)",
            python.display()
        );
        let mut child = Command::new(&python)
            .arg(root.join("scripts/smtp-sink.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the SMTP server");
        let stdout = child.stdout.take().expect("its stdout");
        let mut lines = BufReader::new(stdout).lines();
        let first = lines.next().expect("the port line").expect("a line");
        let port = first
            .strip_prefix("port ")
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("the SMTP server said {first:?}, not its port"));
        let inbox: Inbox = Arc::default();
        let kept = inbox.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let value: serde_json::Value =
                    serde_json::from_str(&line).expect("a JSON line per message");
                let (received, arrived) = &*kept;
                if let Some(address) = value["refused"].as_str() {
                    let code = value["code"].as_u64().and_then(|c| u16::try_from(c).ok());
                    received
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .refused
                        .push((address.to_owned(), code.unwrap_or_default()));
                    arrived.notify_all();
                    continue;
                }
                let email = Email {
                    mail_from: text(&value, "mail_from"),
                    rcpt_tos: value["rcpt_tos"]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|v| v.as_str().map(str::to_owned))
                                .collect()
                        })
                        .unwrap_or_default(),
                    from: text(&value, "from"),
                    to: text(&value, "to"),
                    subject: text(&value, "subject"),
                    message_id: text(&value, "message_id"),
                    content_type: text(&value, "content_type"),
                    text: value["text"].as_str().map(str::to_owned),
                    html: value["html"].as_str().map(str::to_owned),
                    at: Instant::now(),
                };
                received
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .messages
                    .push(email);
                arrived.notify_all();
            }
        });
        let stdin = child.stdin.take();
        Self {
            child,
            stdin,
            port,
            inbox,
        }
    }

    /// Its port on 127.0.0.1.
    #[must_use]
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `smtp://127.0.0.1:<port>` (plain SMTP).
    #[must_use]
    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Every message accepted so far, in order.
    #[must_use]
    pub fn messages(&self) -> Vec<Email> {
        self.inbox
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .messages
            .clone()
    }

    /// Every recipient refused so far, with the reply code (451 or 550), in order.
    #[must_use]
    pub fn refused(&self) -> Vec<(String, u16)> {
        self.inbox
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .refused
            .clone()
    }

    /// Waits until at least `count` recipients were refused (panics after `within`), and
    /// returns them all, with their reply codes.
    #[must_use]
    pub fn wait_for_refused(&self, count: usize, within: Duration) -> Vec<(String, u16)> {
        let deadline = Instant::now() + within;
        let (received, arrived) = &*self.inbox;
        let mut kept = received.lock().unwrap_or_else(PoisonError::into_inner);
        while kept.refused.len() < count {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "{} recipients were refused, not {count}, within {within:?}",
                kept.refused.len()
            );
            kept = arrived
                .wait_timeout(kept, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        kept.refused.clone()
    }

    /// Waits until at least `count` messages arrived (panics after `within`), and returns
    /// them all.
    #[must_use]
    pub fn wait_for(&self, count: usize, within: Duration) -> Vec<Email> {
        let deadline = Instant::now() + within;
        let (received, arrived) = &*self.inbox;
        let mut kept = received.lock().unwrap_or_else(PoisonError::into_inner);
        while kept.messages.len() < count {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "{} emails arrived, not {count}, within {within:?}",
                kept.messages.len()
            );
            kept = arrived
                .wait_timeout(kept, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        kept.messages.clone()
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        // Its stdin closing stops it; killing makes sure.
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
