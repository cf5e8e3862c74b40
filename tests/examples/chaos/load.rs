//! A steady load of reads and writes (list runs, start a run) that records every answer.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use procflow_tests::Remote;
use reqwest::Method;
use serde_json::json;
use tokio::task::JoinSet;

/// One answer (or its absence) as a client saw it.
#[derive(Clone, Debug)]
pub struct Sample {
    pub sent: Instant,
    pub latency: Duration,
    /// None: no HTTP answer (connection refused or reset, or the client's timeout).
    pub status: Option<u16>,
    /// The error envelope's `code`, when there is one.
    pub code: Option<String>,
}

/// Clients sending requests back to back until stopped.
pub struct Load {
    stop: Arc<AtomicBool>,
    samples: Arc<Mutex<Vec<Sample>>>,
    clients: JoinSet<()>,
}

impl Load {
    /// `clients` clients, alternating `GET /process-runs` and `POST /process-runs`.
    pub fn start(team: &Remote, template: &str, clients: usize) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let samples = Arc::new(Mutex::new(Vec::new()));
        let mut set = JoinSet::new();
        for client in 0..clients {
            let (team, template) = (team.clone(), template.to_owned());
            let (stop, samples) = (stop.clone(), samples.clone());
            set.spawn(async move {
                let mut n = client;
                while !stop.load(Ordering::SeqCst) {
                    n += 1;
                    let sent = Instant::now();
                    let answer = if n % 2 == 0 {
                        team.try_call(Method::GET, "/api/v1/process-runs?limit=5", None)
                            .await
                    } else {
                        let body = json!({"template_id": template});
                        team.try_call(Method::POST, "/api/v1/process-runs", Some(&body))
                            .await
                    };
                    let latency = sent.elapsed();
                    let (status, code) = match answer {
                        Ok((status, body)) => (
                            Some(status.as_u16()),
                            body["error"]["code"].as_str().map(str::to_owned),
                        ),
                        Err(_) => (None, None),
                    };
                    samples.lock().unwrap().push(Sample {
                        sent,
                        latency,
                        status,
                        code,
                    });
                    if status.is_none() {
                        // Refused at once: do not spin.
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                }
            });
        }
        Self {
            stop,
            samples,
            clients: set,
        }
    }

    /// The samples so far.
    pub fn samples(&self) -> Vec<Sample> {
        self.samples.lock().unwrap().clone()
    }

    /// Stops the clients, waits for them, and returns every sample.
    pub async fn stop(mut self) -> Vec<Sample> {
        self.stop.store(true, Ordering::SeqCst);
        while self.clients.join_next().await.is_some() {}
        self.samples()
    }
}

/// Waits until `done` holds of the samples, at most `deadline`; whether it held.
pub async fn wait_for(load: &Load, deadline: Duration, done: impl Fn(&[Sample]) -> bool) -> bool {
    let until = Instant::now() + deadline;
    while Instant::now() < until {
        if done(&load.samples()) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// Milliseconds, for the table.
pub fn ms(d: Duration) -> String {
    format!("{} ms", d.as_millis())
}
