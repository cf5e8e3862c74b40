//! What a killed server held and when it arrived: its worker's holder (from its log), the
//! deliveries and emails held in its name when it died (from the database), their arrivals at
//! the webhook receiver and the SMTP sink, repeats, and the takeovers a server logged.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::time::{Duration, Instant};

use procflow_testkit::Session;
use procflow_testkit::receiver::Receiver;
use procflow_testkit::smtp::SmtpServer;

use crate::TAKEOVER_BOUND;
use crate::table::Table;

/// Event ids by kind of job.
#[derive(Clone, Debug, Default)]
pub struct Jobs {
    /// Of webhook deliveries (the `webhook-id` they are sent with).
    pub deliveries: BTreeSet<String>,
    /// Of emails (the head of their `Message-ID`).
    pub emails: BTreeSet<String>,
}

/// When each event arrived, in order, by event id.
pub type Arrivals = HashMap<String, Vec<Instant>>;

/// The holder the server logging to `log` started last with (`worker.holder=` of its start-up
/// line; the log must let `procflow_server::worker` through at `info`), from byte `from` on.
pub fn holder_in_log(log: &Path, from: u64) -> Option<String> {
    log_since(log, from).lines().rev().find_map(|line| {
        let (_, rest) = line.split_once("worker.holder=")?;
        Some(rest.split_whitespace().next()?.trim_matches('"').to_owned())
    })
}

/// The jobs a server taking over logged from byte `from` of its log: the sum of the counts of
/// its "took over jobs ..." lines, and how many lines.
pub fn takeovers_logged(log: &Path, from: u64) -> (u64, usize) {
    let lines: Vec<u64> = log_since(log, from)
        .lines()
        .filter(|line| line.contains("took over jobs whose holder stopped renewing"))
        .filter_map(|line| {
            let (_, rest) = line.split_once("taken_over=")?;
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect();
    (lines.iter().sum(), lines.len())
}

/// How long the log is now: where what a process writes from now on begins.
pub fn log_length(log: &Path) -> u64 {
    std::fs::metadata(log).map_or(0, |m| m.len())
}

fn log_since(log: &Path, from: u64) -> String {
    let text = std::fs::read(log).unwrap_or_default();
    let from = usize::try_from(from).unwrap_or(usize::MAX).min(text.len());
    String::from_utf8_lossy(&text[from..]).into_owned()
}

/// The jobs `holder` held (in flight) in the database at `db_url`.
pub async fn held_by(db_url: &str, holder: &str) -> Jobs {
    let session = Session::open(db_url).await;
    let ids = |rows: Vec<Vec<Option<String>>>| {
        rows.into_iter()
            .filter_map(|row| row.into_iter().next().flatten())
            .collect()
    };
    let deliveries = session
        .rows(&format!(
            "SELECT event_id::text FROM webhook_deliveries \
             WHERE status = 'delivering' AND holder = '{holder}'"
        ))
        .await;
    let emails = session
        .rows(&format!(
            "SELECT event_id::text FROM emails WHERE status = 'sending' AND holder = '{holder}'"
        ))
        .await;
    Jobs {
        deliveries: ids(deliveries),
        emails: ids(emails),
    }
}

/// Waits, at most `deadline`, until `holder` has both a delivery and an email in flight (so that
/// a kill now is a kill mid-delivery); whether it came to that.
pub async fn wait_holding(db_url: &str, holder: &str, deadline: Duration) -> bool {
    let until = Instant::now() + deadline;
    loop {
        let held = held_by(db_url, holder).await;
        if !held.deliveries.is_empty() && !held.emails.is_empty() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Every job queued so far in the database at `db_url`.
pub async fn queued(db_url: &str) -> Jobs {
    let session = Session::open(db_url).await;
    let ids = |rows: Vec<Vec<Option<String>>>| {
        rows.into_iter()
            .filter_map(|row| row.into_iter().next().flatten())
            .collect()
    };
    Jobs {
        deliveries: ids(session
            .rows("SELECT DISTINCT event_id::text FROM webhook_deliveries")
            .await),
        emails: ids(session.rows("SELECT event_id::text FROM emails").await),
    }
}

/// Waits until the database at `db_url` has no outbox event left to fan out (a dead server's
/// claim of some runs out first), at most `deadline`; whether it came to that.
pub async fn wait_dispatched(db_url: &str, deadline: Duration) -> bool {
    let session = Session::open(db_url).await;
    let until = Instant::now() + deadline;
    loop {
        let left = session
            .rows(
                "SELECT count(*)::text FROM outbox WHERE delivered_at IS NULL AND dead_at IS NULL",
            )
            .await;
        if left == vec![vec![Some("0".to_owned())]] {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The webhooks the receiver got, by `webhook-id`.
pub fn webhook_arrivals(receiver: &Receiver) -> Arrivals {
    let mut arrivals = Arrivals::new();
    for request in receiver.received() {
        if let Some(id) = request.header("webhook-id") {
            arrivals.entry(id.to_owned()).or_default().push(request.at);
        }
    }
    arrivals
}

/// The emails the sink got, by the event id their `Message-ID` (`<event-id.kind@domain>`)
/// names.
pub fn email_arrivals(sink: &SmtpServer) -> Arrivals {
    let mut arrivals = Arrivals::new();
    for email in sink.messages() {
        let id = email.message_id.trim_start_matches('<');
        if let Some((event, _)) = id.split_once('.') {
            arrivals.entry(event.to_owned()).or_default().push(email.at);
        }
    }
    arrivals
}

/// Waits until none of `jobs` is pending or in flight any more in the database at `db_url` (each
/// attempt recorded, so every arrival it made has happened), at most `deadline`; whether it
/// came to that.
pub async fn wait_ended(db_url: &str, jobs: &Jobs, deadline: Duration) -> bool {
    let session = Session::open(db_url).await;
    let list = |ids: &BTreeSet<String>| {
        let quoted: Vec<String> = ids.iter().map(|id| format!("'{id}'")).collect();
        format!("ARRAY[{}]::uuid[]", quoted.join(","))
    };
    let sql = format!(
        "SELECT ((SELECT count(*) FROM webhook_deliveries \
                  WHERE event_id = ANY({}) AND status IN ('pending', 'delivering')) \
               + (SELECT count(*) FROM emails \
                  WHERE event_id = ANY({}) AND status IN ('pending', 'sending')))::text",
        list(&jobs.deliveries),
        list(&jobs.emails)
    );
    let until = Instant::now() + deadline;
    loop {
        if session.rows(&sql).await == vec![vec![Some("0".to_owned())]] {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Of `ids`, how many never arrived at or after `since`, and when (from `since`) the last
/// arrival of any of them was: for jobs a dead server held, once they ended, the arrival of
/// the attempt that took them over (an attempt of the dead one may also have arrived just
/// after its death, and is not the one measured).
pub fn last_arrival(
    ids: &BTreeSet<String>,
    since: Instant,
    arrivals: &Arrivals,
) -> (usize, Option<Duration>) {
    let lasts: Vec<Option<Instant>> = ids
        .iter()
        .map(|id| {
            arrivals
                .get(id)
                .and_then(|at| at.iter().copied().filter(|at| *at >= since).max())
        })
        .collect();
    let missing = lasts.iter().filter(|at| at.is_none()).count();
    (
        missing,
        lasts.into_iter().flatten().max().map(|at| at - since),
    )
}

/// Waits until each of `ids` has arrived at or after `since`, at most `deadline` after it, as
/// `arrivals` reads them; answers how many did not, and when the last did (from `since`).
pub async fn wait_arrived(
    ids: &BTreeSet<String>,
    since: Instant,
    deadline: Duration,
    arrivals: impl Fn() -> Arrivals,
) -> (usize, Option<Duration>) {
    loop {
        let seen = arrivals();
        let firsts: Vec<Option<Instant>> = ids
            .iter()
            .map(|id| {
                seen.get(id)
                    .and_then(|at| at.iter().copied().find(|at| *at >= since))
            })
            .collect();
        let missing = firsts.iter().filter(|at| at.is_none()).count();
        if missing == 0 || since.elapsed() >= deadline {
            let last = firsts.into_iter().flatten().max().map(|at| at - since);
            return (missing, last);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Of `ids`, those that arrived more than once.
pub fn repeated(ids: &BTreeSet<String>, arrivals: &Arrivals) -> BTreeSet<String> {
    ids.iter()
        .filter(|id| arrivals.get(*id).is_some_and(|at| at.len() > 1))
        .cloned()
        .collect()
}

/// Seconds with two decimals, for the table.
pub fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

/// A kind of job held by a dead server: how many, how many never came again, and when the
/// last came again.
pub type HeldKind = (usize, usize, Option<Duration>);

/// What a dead server held, by kind.
pub struct Held {
    pub deliveries: HeldKind,
    pub emails: HeldKind,
}

/// The rows of what a dead server held: how many, and the time from `since` (its restart, or
/// its kill) to the last one's arrival, held when within [`TAKEOVER_BOUND`] and every one
/// ended (`ended`).
pub fn held_rows(table: &mut Table, name: &str, since: &str, held: &Held, ended: bool) {
    for (kind, (count, missing, last)) in [
        ("webhook deliveries", held.deliveries),
        ("emails", held.emails),
    ] {
        table.figure(name, &format!("{kind} held by the killed server"), count);
        let value = match (missing, last) {
            (0, Some(last)) => secs(last),
            (0, None) => "none held".to_owned(),
            (missing, _) => format!("{missing} never arrived"),
        };
        table.check(
            name,
            &format!("{since} to the last held one's arrival ({kind})"),
            value,
            ended && count > 0 && missing == 0 && last.is_some_and(|l| l <= TAKEOVER_BOUND),
        );
    }
}

/// The rows of repeats: a repeat is allowed only of a job the killed server held (its outcome
/// died with it).
pub fn repeat_rows(
    table: &mut Table,
    name: &str,
    webhooks: &BTreeSet<String>,
    emails: &BTreeSet<String>,
    held: &Jobs,
) {
    for (kind, repeats, held) in [
        ("webhooks", webhooks, &held.deliveries),
        ("emails", emails, &held.emails),
    ] {
        let unexplained = repeats.iter().filter(|id| !held.contains(*id)).count();
        table.check(
            name,
            &format!("{kind} received twice (of them not held at the kill)"),
            format!("{} ({unexplained})", repeats.len()),
            unexplained == 0,
        );
    }
}
