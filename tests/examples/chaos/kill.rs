//! Scenario 1: `kill -9` of the server under a mixed write load, then a restart. Clients
//! record every write the server acknowledged (a 2xx); after the restart each must be there,
//! with its outbox event, every event of the feed must reach the webhook receiver and every
//! email the SMTP sink; and what the killed server held in flight (the receiver and the sink
//! take their time, so it holds some) must arrive within 10 s of the restart, repeated only if
//! it was held.

use std::collections::{BTreeSet, HashSet};
use std::time::{Duration, Instant};

use procflow_testkit::receiver::Answer;
use procflow_tests::Remote;
use reqwest::Method;
use serde_json::Value;

use crate::held::{
    Held, email_arrivals, held_by, held_rows, holder_in_log, last_arrival, log_length, queued,
    repeat_rows, repeated, takeovers_logged, wait_arrived, wait_dispatched, wait_ended,
    wait_holding, webhook_arrivals,
};
use crate::load::ms;
use crate::table::Table;
use crate::writes::Writers;
use crate::{RECEIVER_PAUSE, Rig};

const NAME: &str = "1 kill -9, restart";

/// How long the load runs before the kill.
const BEFORE_KILL: Duration = Duration::from_secs(4);

/// How long to wait, after the load's first seconds, for the server to hold both a delivery
/// and an email before killing it all the same.
pub const HOLDING_DEADLINE: Duration = Duration::from_secs(5);

/// How long to wait for everything to arrive before calling it lost.
const DELIVERY_DEADLINE: Duration = Duration::from_secs(60);

pub async fn run(rig: &mut Rig, table: &mut Table) {
    rig.receiver
        .answer_by_default(Answer::After(RECEIVER_PAUSE, 200));
    let writers = Writers::start(std::slice::from_ref(&rig.team), &rig.template, 8);
    tokio::time::sleep(BEFORE_KILL).await;
    let dead = holder_in_log(&rig.log, 0).expect("the server's holder in its log");
    // Mid-delivery: the receiver and the sink take their time, so this is a matter of ms.
    wait_holding(&rig.db_url, &dead, HOLDING_DEADLINE).await;
    rig.served.kill9();
    // The clients meet the dead server for a moment, then stop.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (attempts, acked) = writers.stop().await;
    // Nothing changes what a dead process held: read it before the restart.
    let held = held_by(&rig.db_url, &dead).await;
    let restarted_log = log_length(&rig.log);
    let restart = Instant::now();
    rig.served.restart().await;
    let restarted_in = restart.elapsed();

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
    // What the dead server held, sent again after the restart.
    let ended = wait_ended(&rig.db_url, &held, DELIVERY_DEADLINE).await;
    let (held_missing, held_last) =
        last_arrival(&held.deliveries, restart, &webhook_arrivals(&rig.receiver));
    let (held_emails_missing, held_emails_last) =
        last_arrival(&held.emails, restart, &email_arrivals(&rig.smtp));
    // Everything, whenever it arrived.
    let (undelivered, _) = wait_arrived(&ids, rig.started, DELIVERY_DEADLINE, || {
        webhook_arrivals(&rig.receiver)
    })
    .await;
    let dispatched = wait_dispatched(&rig.db_url, DELIVERY_DEADLINE).await;
    let emails = queued(&rig.db_url).await.emails;
    let (unsent, _) = wait_arrived(&emails, rig.started, DELIVERY_DEADLINE, || {
        email_arrivals(&rig.smtp)
    })
    .await;
    let repeats = repeated(&ids, &webhook_arrivals(&rig.receiver));
    let email_repeats = repeated(&emails, &email_arrivals(&rig.smtp));
    let (taken_over, takeover_lines) = takeovers_logged(&rig.log, restarted_log);

    let writes = acked.count();
    table.figure(
        NAME,
        "writes attempted / acknowledged",
        format!("{attempts} / {writes}"),
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
    held_rows(
        table,
        NAME,
        "restart",
        &Held {
            deliveries: (held.deliveries.len(), held_missing, held_last),
            emails: (held.emails.len(), held_emails_missing, held_emails_last),
        },
        ended,
    );
    table.check(
        NAME,
        "takeovers logged by the restarted server",
        format!("{taken_over} jobs in {takeover_lines} lines"),
        taken_over == (held.deliveries.len() + held.emails.len()) as u64,
    );
    table.check(
        NAME,
        "events delivered to the receiver",
        format!("{} of {}", ids.len() - undelivered, ids.len()),
        undelivered == 0 && !ids.is_empty(),
    );
    table.check(
        NAME,
        "emails sent to the SMTP sink",
        format!("{} of {}", emails.len() - unsent, emails.len()),
        dispatched && unsent == 0 && !emails.is_empty(),
    );
    repeat_rows(table, NAME, &repeats, &email_repeats, &held);
    rig.receiver.answer_by_default(Answer::Status(200, None));
}

/// Every event of the team's feed, oldest first.
pub async fn feed(team: &Remote) -> Vec<Value> {
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
