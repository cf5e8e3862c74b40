//! The write load of the kill scenarios: clients that start runs, complete tasks of acknowledged
//! runs and invite guests to them (each invitation an email), spread over one or more server
//! instances, recording every write an instance acknowledged (a 2xx).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use procflow_tests::Remote;
use reqwest::Method;
use serde_json::json;
use tokio::task::JoinSet;

/// Writes the server acknowledged, and tasks still to complete.
#[derive(Default)]
pub struct Acked {
    pub runs: Vec<String>,
    /// (run, task)
    pub completions: Vec<(String, String)>,
    pub invites: Vec<String>,
    /// Tasks of acknowledged runs not yet completed, and runs not yet invited to.
    open_tasks: Vec<(String, String)>,
    uninvited: Vec<String>,
}

impl Acked {
    /// Every write acknowledged.
    pub fn count(&self) -> usize {
        self.runs.len() + self.completions.len() + self.invites.len()
    }
}

/// Clients writing until stopped.
pub struct Writers {
    acked: Arc<Mutex<Acked>>,
    stop: Arc<AtomicBool>,
    attempts: Arc<AtomicUsize>,
    clients: JoinSet<()>,
}

impl Writers {
    /// `clients` clients, each sending its writes to the `instances` in turn (a dead instance
    /// refuses at once, and its turn passes).
    pub fn start(instances: &[Remote], template: &str, clients: usize) -> Self {
        let acked = Arc::new(Mutex::new(Acked::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let attempts = Arc::new(AtomicUsize::new(0));
        let mut set = JoinSet::new();
        for client in 0..clients {
            let (instances, template) = (instances.to_vec(), template.to_owned());
            let (acked, stop, attempts) = (acked.clone(), stop.clone(), attempts.clone());
            set.spawn(async move {
                let mut n = client;
                while !stop.load(Ordering::SeqCst) {
                    n += 1;
                    attempts.fetch_add(1, Ordering::SeqCst);
                    let team = &instances[n % instances.len()];
                    if !write(team, &template, &acked, n).await {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                }
            });
        }
        Self {
            acked,
            stop,
            attempts,
            clients: set,
        }
    }

    /// Stops the clients, waits for them; the writes attempted, and those acknowledged.
    pub async fn stop(mut self) -> (usize, Acked) {
        self.stop.store(true, Ordering::SeqCst);
        while self.clients.join_next().await.is_some() {}
        let acked = std::mem::take(&mut *self.acked.lock().unwrap());
        (self.attempts.load(Ordering::SeqCst), acked)
    }
}

/// One write, chosen by `n`: start a run, complete a task of an acknowledged run, or invite a
/// guest to one (a `slow-` address: the SMTP sink answers it after a pause, so that emails are
/// in flight when a server is killed). Whether an HTTP answer came back.
async fn write(team: &Remote, template: &str, acked: &Mutex<Acked>, n: usize) -> bool {
    match n % 3 {
        1 => {
            let task = acked.lock().unwrap().open_tasks.pop();
            if let Some((run, task)) = task {
                let path = format!("/api/v1/process-runs/{run}/tasks/{task}");
                let answer = team
                    .try_call(Method::PATCH, &path, Some(&json!({"completed": true})))
                    .await;
                if let Ok((status, _)) = &answer
                    && status.is_success()
                {
                    acked.lock().unwrap().completions.push((run, task));
                }
                return answer.is_ok();
            }
        }
        2 => {
            let run = acked.lock().unwrap().uninvited.pop();
            if let Some(run) = run {
                let path = format!("/api/v1/process-runs/{run}/invite");
                let body = json!({"email": format!("slow-guest-{n}@chaos.example")});
                let answer = team.try_call(Method::POST, &path, Some(&body)).await;
                if let Ok((status, _)) = &answer
                    && status.is_success()
                {
                    acked.lock().unwrap().invites.push(run);
                }
                return answer.is_ok();
            }
        }
        _ => {}
    }
    let body = json!({"template_id": template});
    let answer = team
        .try_call(Method::POST, "/api/v1/process-runs", Some(&body))
        .await;
    if let Ok((status, run)) = &answer
        && status.is_success()
    {
        let id = run["data"]["id"].as_str().expect("run id").to_owned();
        {
            let mut acked = acked.lock().unwrap();
            acked.runs.push(id.clone());
            acked.uninvited.push(id.clone());
        }
        // A read; its failure (the server killed) only leaves the run's tasks alone.
        let path = format!("/api/v1/process-runs/{id}/tasks?limit=100");
        if let Ok((status, page)) = team.try_call(Method::GET, &path, None).await
            && status.is_success()
        {
            let tasks = page["data"].as_array().cloned().unwrap_or_default();
            let mut acked = acked.lock().unwrap();
            for task in tasks.iter().filter_map(|t| t["id"].as_str()) {
                acked.open_tasks.push((id.clone(), task.to_owned()));
            }
        }
    }
    answer.is_ok()
}
