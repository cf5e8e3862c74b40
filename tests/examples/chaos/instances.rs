//! Scenario 4: two instances on one database under a write load spread over both; one is killed
//! with `kill -9` and stays dead. The survivor, without any restart, must send everything the
//! dead one held within 10 s of the kill, and each event must reach the receiver once, but for
//! the attempts whose outcome died with the killed process (counted, and only those).

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use procflow_testkit::receiver::Answer;

use crate::held::{
    Held, email_arrivals, held_by, held_rows, holder_in_log, last_arrival, queued, repeat_rows,
    repeated, takeovers_logged, wait_arrived, wait_dispatched, wait_ended, wait_holding,
    webhook_arrivals,
};
use crate::kill::{HOLDING_DEADLINE, feed};
use crate::table::Table;
use crate::writes::Writers;
use crate::{RECEIVER_PAUSE, Rig, serve};

const NAME: &str = "5 kill -9 beside a live instance";

/// How long the load runs on both before the kill.
const BEFORE_KILL: Duration = Duration::from_secs(4);

/// How long the load goes on, on the survivor, after the kill.
const AFTER_KILL: Duration = Duration::from_secs(2);

/// When, after the kill, what the dead instance held is read: after any statement it had sent
/// has ended, well before a lease (5 s, from its last renewal, at most 1.7 s before the kill)
/// can run out.
const READ_HELD_AFTER: Duration = Duration::from_millis(500);

/// How long to wait for everything to arrive before calling it lost.
const DELIVERY_DEADLINE: Duration = Duration::from_secs(60);

pub async fn run(rig: &mut Rig, table: &mut Table, dir: &Path) {
    let before_events: BTreeSet<String> = ids_of(&feed(&rig.team).await);
    let before_emails = queued(&rig.db_url).await.emails;
    let survivor_log = dir.join("server-survivor.log");
    let survivor = serve(&rig.db_url, &rig.smtp.url(), &survivor_log).await;
    let mut on_survivor = rig.team.clone();
    on_survivor.base = survivor.base();
    let dead = holder_in_log(&rig.log, 0).expect("the first instance's holder in its log");
    let alive = holder_in_log(&survivor_log, 0).expect("the survivor's holder in its log");

    rig.receiver
        .answer_by_default(Answer::After(RECEIVER_PAUSE, 200));
    let writers = Writers::start(&[rig.team.clone(), on_survivor.clone()], &rig.template, 8);
    tokio::time::sleep(BEFORE_KILL).await;
    wait_holding(&rig.db_url, &dead, HOLDING_DEADLINE).await;
    rig.served.kill9();
    let killed = Instant::now();
    tokio::time::sleep(READ_HELD_AFTER).await;
    let held = held_by(&rig.db_url, &dead).await;
    let survivor_held = held_by(&rig.db_url, &alive).await;
    tokio::time::sleep(AFTER_KILL.saturating_sub(killed.elapsed())).await;
    let (attempts, acked) = writers.stop().await;

    let ended = wait_ended(&rig.db_url, &held, DELIVERY_DEADLINE).await;
    let (held_missing, held_last) =
        last_arrival(&held.deliveries, killed, &webhook_arrivals(&rig.receiver));
    let (held_emails_missing, held_emails_last) =
        last_arrival(&held.emails, killed, &email_arrivals(&rig.smtp));
    let dispatched = wait_dispatched(&rig.db_url, DELIVERY_DEADLINE).await;
    let events: BTreeSet<String> = ids_of(&feed(&on_survivor).await)
        .difference(&before_events)
        .cloned()
        .collect();
    let emails: BTreeSet<String> = queued(&rig.db_url)
        .await
        .emails
        .difference(&before_emails)
        .cloned()
        .collect();
    let (undelivered, _) = wait_arrived(&events, rig.started, DELIVERY_DEADLINE, || {
        webhook_arrivals(&rig.receiver)
    })
    .await;
    let (unsent, _) = wait_arrived(&emails, rig.started, DELIVERY_DEADLINE, || {
        email_arrivals(&rig.smtp)
    })
    .await;
    let repeats = repeated(&events, &webhook_arrivals(&rig.receiver));
    let email_repeats = repeated(&emails, &email_arrivals(&rig.smtp));
    let (taken_over, takeover_lines) = takeovers_logged(&survivor_log, 0);
    drop(survivor);
    rig.receiver.answer_by_default(Answer::Status(200, None));

    table.figure(
        NAME,
        "writes attempted / acknowledged (over both)",
        format!("{attempts} / {}", acked.count()),
    );
    table.figure(
        NAME,
        "held by the survivor at the kill (deliveries, emails)",
        format!(
            "{}, {}",
            survivor_held.deliveries.len(),
            survivor_held.emails.len()
        ),
    );
    held_rows(
        table,
        NAME,
        "kill",
        &Held {
            deliveries: (held.deliveries.len(), held_missing, held_last),
            emails: (held.emails.len(), held_emails_missing, held_emails_last),
        },
        ended,
    );
    table.check(
        NAME,
        "takeovers logged by the survivor",
        format!("{taken_over} jobs in {takeover_lines} lines"),
        taken_over == (held.deliveries.len() + held.emails.len()) as u64,
    );
    table.check(
        NAME,
        "events of the scenario delivered",
        format!("{} of {}", events.len() - undelivered, events.len()),
        undelivered == 0 && !events.is_empty(),
    );
    table.check(
        NAME,
        "emails of the scenario sent",
        format!("{} of {}", emails.len() - unsent, emails.len()),
        dispatched && unsent == 0 && !emails.is_empty(),
    );
    repeat_rows(table, NAME, &repeats, &email_repeats, &held);
}

fn ids_of(events: &[serde_json::Value]) -> BTreeSet<String> {
    events
        .iter()
        .filter_map(|e| e["id"].as_str().map(str::to_owned))
        .collect()
}
