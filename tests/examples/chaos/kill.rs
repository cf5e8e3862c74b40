//! Scenario 1: `kill -9` of the server under a mixed write load. Clients record every write the
//! server acknowledged (a 2xx); after a restart each must be there, with its outbox event, and
//! every event of the feed must reach the webhook receiver at least once.

use std::collections::{BTreeSet, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use procflow_tests::Remote;
use reqwest::Method;
use serde_json::{Value, json};
use tokio::task::JoinSet;

use crate::Rig;
use crate::load::ms;
use crate::table::Table;

const NAME: &str = "1 kill -9";

/// How long the load runs before the kill.
const BEFORE_KILL: Duration = Duration::from_secs(4);

/// Writes the server acknowledged, and tasks still to complete.
#[derive(Default)]
struct Acked {
    runs: Vec<String>,
    /// (run, task)
    completions: Vec<(String, String)>,
    invites: Vec<String>,
    /// Tasks of acknowledged runs not yet completed, and runs not yet invited to.
    open_tasks: Vec<(String, String)>,
    uninvited: Vec<String>,
}

pub async fn run(rig: &mut Rig, table: &mut Table) {
    let acked = Arc::new(Mutex::new(Acked::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let attempts = Arc::new(AtomicUsize::new(0));
    let mut clients = JoinSet::new();
    for client in 0..8 {
        let (team, template) = (rig.team.clone(), rig.template.clone());
        let (acked, stop, attempts) = (acked.clone(), stop.clone(), attempts.clone());
        clients.spawn(async move {
            let mut n = client;
            while !stop.load(Ordering::SeqCst) {
                n += 1;
                attempts.fetch_add(1, Ordering::SeqCst);
                if !write(&team, &template, &acked, n).await {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        });
    }
    tokio::time::sleep(BEFORE_KILL).await;
    rig.served.kill9();
    // The clients meet the dead server for a moment, then stop.
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::SeqCst);
    while clients.join_next().await.is_some() {}
    let restart = Instant::now();
    rig.served.restart().await;
    let restarted_in = restart.elapsed();

    let acked = std::mem::take(&mut *acked.lock().unwrap());
    let team = &rig.team;
    let mut lost = Vec::new();
    for run in &acked.runs {
        let (status, _) = team
            .try_call(Method::GET, &format!("/api/v1/process-runs/{run}"), None)
            .await
            .expect("reading a run");
        if status != 200 {
            lost.push(format!("run {run}"));
        }
    }
    for (run, task) in &acked.completions {
        let (status, body) = team
            .try_call(
                Method::GET,
                &format!("/api/v1/process-runs/{run}/tasks/{task}"),
                None,
            )
            .await
            .expect("reading a task");
        if status != 200 || body["data"]["completed"] != true {
            lost.push(format!("completion of {task}"));
        }
    }
    for run in &acked.invites {
        let (_, body) = team
            .try_call(Method::GET, &format!("/api/v1/process-runs/{run}"), None)
            .await
            .expect("reading a run");
        if body["data"]["is_shared"] != true {
            lost.push(format!("invite to {run}"));
        }
    }

    let events = feed(team).await;
    let created: HashSet<&str> = events
        .iter()
        .filter(|e| e["event"] == "process_run.created")
        .filter_map(|e| e["data"]["instance_id"].as_str())
        .collect();
    let completed: HashSet<&str> = events
        .iter()
        .filter(|e| e["event"] == "process_step.completed")
        .filter_map(|e| e["data"]["task_id"].as_str())
        .collect();
    let missing_events = acked
        .runs
        .iter()
        .filter(|r| !created.contains(r.as_str()))
        .count()
        + acked
            .completions
            .iter()
            .filter(|(_, t)| !completed.contains(t.as_str()))
            .count();

    let ids: BTreeSet<String> = events
        .iter()
        .filter_map(|e| e["id"].as_str().map(str::to_owned))
        .collect();
    let delivered_in = Instant::now();
    let undelivered = wait_delivered(rig, &ids, Duration::from_secs(60)).await;

    let writes = acked.runs.len() + acked.completions.len() + acked.invites.len();
    table.figure(
        NAME,
        "writes attempted / acknowledged",
        format!("{} / {writes}", attempts.load(Ordering::SeqCst)),
    );
    table.figure(
        NAME,
        "acknowledged: runs, completions, invites",
        format!(
            "{}, {}, {}",
            acked.runs.len(),
            acked.completions.len(),
            acked.invites.len()
        ),
    );
    table.check(
        NAME,
        "acknowledged writes lost",
        if lost.is_empty() {
            "0".to_owned()
        } else {
            format!("{}: {}", lost.len(), lost.join(", "))
        },
        lost.is_empty() && writes > 0,
    );
    table.check(
        NAME,
        "acknowledged writes without their event",
        missing_events,
        missing_events == 0,
    );
    table.figure(NAME, "restart to /healthz", ms(restarted_in));
    table.check(
        NAME,
        "events delivered to the receiver",
        format!(
            "{} of {} (in {})",
            ids.len() - undelivered,
            ids.len(),
            ms(delivered_in.elapsed())
        ),
        undelivered == 0 && !ids.is_empty(),
    );
}

/// One write, chosen by `n`: start a run, complete a task of an acknowledged run, or invite a
/// guest to one. Whether an HTTP answer came back.
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
                let body = json!({"email": format!("guest-{n}@chaos.example")});
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

/// Every event of the team's feed, oldest first.
async fn feed(team: &Remote) -> Vec<Value> {
    let mut events = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/api/v1/events?limit=100&cursor={c}"),
            None => "/api/v1/events?limit=100".to_owned(),
        };
        let (status, page) = team
            .try_call(Method::GET, &path, None)
            .await
            .expect("reading the event feed");
        assert_eq!(status, 200, "{page}");
        events.extend(page["data"].as_array().cloned().unwrap_or_default());
        match page["pagination"]["next_cursor"].as_str() {
            Some(next) if page["pagination"]["has_more"] == true => cursor = Some(next.to_owned()),
            _ => return events,
        }
    }
}

/// How many of `ids` the receiver has not been sent (`webhook-id`) by the deadline.
async fn wait_delivered(rig: &Rig, ids: &BTreeSet<String>, deadline: Duration) -> usize {
    let until = Instant::now() + deadline;
    loop {
        let seen: HashSet<String> = rig
            .receiver
            .received()
            .iter()
            .filter_map(|r| r.header("webhook-id").map(str::to_owned))
            .collect();
        let missing = ids.iter().filter(|id| !seen.contains(*id)).count();
        if missing == 0 || Instant::now() >= until {
            return missing;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
