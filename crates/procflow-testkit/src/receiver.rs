//! A webhook receiver on loopback for tests and the bench: a small HTTP/1.1 server that keeps
//! every request it is sent, with when it arrived, and answers from a script (200 once the
//! script runs out). It can be stopped (connections refused) and started again on the same
//! port, made to hold a request without answering, or to answer after a pause.

#![allow(
    clippy::panic,
    clippy::expect_used,
    reason = "a test fixture fails loudly, at the test's line"
)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

/// One request as received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received {
    /// `POST`, ...
    pub method: String,
    /// The path and query.
    pub path: String,
    /// Header names in lower case, with their values, in order.
    pub headers: Vec<(String, String)>,
    /// The body, byte for byte.
    pub body: Vec<u8>,
    /// When its last byte arrived.
    pub at: Instant,
}

impl Received {
    /// The first value of a header (`name` in lower case).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// How the receiver answers one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// This status, with `Retry-After` when given.
    Status(u16, Option<u64>),
    /// This status after this pause (a receiver that takes its time).
    After(Duration, u16),
    /// Never answer (the connection stays open until the receiver stops).
    Hang,
}

#[derive(Default)]
struct State {
    /// Requests answered, kept or not.
    count: usize,
    /// Whether to keep each request (tests) or only count them (the bench's sink).
    discard: bool,
    received: Vec<Received>,
    script: VecDeque<Answer>,
    default: Option<Answer>,
}

/// The receiver. Dropping it stops it.
pub struct Receiver {
    address: SocketAddr,
    state: Arc<Mutex<State>>,
    arrived: Arc<Notify>,
    task: Option<JoinHandle<()>>,
}

impl Receiver {
    /// A receiver on a free loopback port.
    ///
    /// # Panics
    /// When no loopback port can be bound.
    pub async fn start() -> Self {
        Self::start_on(0).await
    }

    /// A receiver on this loopback port (0: any free one).
    ///
    /// # Panics
    /// When the port cannot be bound.
    pub async fn start_on(port: u16) -> Self {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("a loopback port");
        let address = listener.local_addr().expect("its address");
        let mut receiver = Self {
            address,
            state: Arc::default(),
            arrived: Arc::default(),
            task: None,
        };
        receiver.task = Some(receiver.serve(listener));
        receiver
    }

    fn serve(&self, listener: TcpListener) -> JoinHandle<()> {
        let (state, arrived) = (self.state.clone(), self.arrived.clone());
        tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            while let Ok((stream, _)) = listener.accept().await {
                connections.spawn(connection(stream, state.clone(), arrived.clone()));
            }
        })
    }

    /// `http://127.0.0.1:<port>`
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// The port.
    #[must_use]
    pub fn port(&self) -> u16 {
        self.address.port()
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Answers the next requests with these, in order, then with the default.
    pub fn script(&self, answers: impl IntoIterator<Item = Answer>) {
        self.state().script.extend(answers);
    }

    /// Answers every request not scripted with this (200 unless set).
    pub fn answer_by_default(&self, answer: Answer) {
        self.state().default = Some(answer);
    }

    /// Keeps no request, only counts them (a sink for load).
    pub fn discard_requests(&self) {
        self.state().discard = true;
    }

    /// How many requests arrived.
    #[must_use]
    pub fn count(&self) -> usize {
        self.state().count
    }

    /// Every request so far, in order of arrival.
    #[must_use]
    pub fn received(&self) -> Vec<Received> {
        self.state().received.clone()
    }

    /// Waits until at least `count` requests arrived, at most `deadline`; answers them.
    ///
    /// # Panics
    /// When they did not arrive in time.
    pub async fn wait_for(&self, count: usize, deadline: Duration) -> Vec<Received> {
        let waited = tokio::time::timeout(deadline, async {
            loop {
                let notified = self.arrived.notified();
                let received = self.received();
                if received.len() >= count {
                    return received;
                }
                notified.await;
            }
        })
        .await;
        match waited {
            Ok(received) => received,
            Err(_) => panic!(
                "{count} requests did not arrive within {deadline:?}; {} did",
                self.received().len()
            ),
        }
    }

    /// Stops listening and drops every connection: new connections are refused.
    pub fn stop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }

    /// Listens again on the same port.
    ///
    /// # Panics
    /// When the port was taken meanwhile.
    pub async fn restart(&mut self) {
        self.stop();
        // The aborted task releases the socket once it is dropped by the runtime.
        let listener = loop {
            match TcpListener::bind(self.address).await {
                Ok(listener) => break listener,
                Err(error) if error.kind() == std::io::ErrorKind::AddrInUse => {
                    tokio::task::yield_now().await;
                }
                Err(error) => panic!("cannot listen again on {}: {error}", self.address),
            }
        };
        self.task = Some(self.serve(listener));
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.stop();
    }
}

async fn connection(stream: TcpStream, state: Arc<Mutex<State>>, arrived: Arc<Notify>) {
    let mut reader = BufReader::new(stream);
    loop {
        let Some(request) = read_request(&mut reader).await else {
            return;
        };
        let answer = {
            let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
            state.count += 1;
            if !state.discard {
                state.received.push(request);
            }
            state
                .script
                .pop_front()
                .or_else(|| state.default.clone())
                .unwrap_or(Answer::Status(200, None))
        };
        arrived.notify_waiters();
        let (status, retry_after) = match answer {
            Answer::Hang => {
                std::future::pending::<()>().await;
                return;
            }
            Answer::Status(status, retry_after) => (status, retry_after),
            Answer::After(pause, status) => {
                tokio::time::sleep(pause).await;
                (status, None)
            }
        };
        let extra = retry_after.map_or(String::new(), |s| format!("retry-after: {s}\r\n"));
        let response = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n{extra}\r\nok"
        );
        if reader
            .get_mut()
            .write_all(response.as_bytes())
            .await
            .is_err()
        {
            return;
        }
    }
}

async fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Received> {
    let mut line = String::new();
    if reader.read_line(&mut line).await.ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    let mut headers = Vec::new();
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim().to_owned());
        if name == "content-length" {
            length = value.parse().ok()?;
        }
        headers.push((name, value));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await.ok()?;
    Some(Received {
        method,
        path,
        headers,
        body,
        at: Instant::now(),
    })
}
