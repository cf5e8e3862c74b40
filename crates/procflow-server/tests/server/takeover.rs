//! Leases that die with their holder, on real processes: a `procflow serve` killed with SIGKILL
//! while it holds a webhook delivery and an email has both taken over within seconds of its
//! restart (with the default lease), counted on `/metrics` and logged once per queue; and an
//! attempt that hangs is cut at its own time limit and retried on the schedule, never taken
//! over by another worker while its own lives.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use procflow_domain::ids::{EmailId, EventId};
use procflow_domain::mail::{MailContent, MailKind, NewMail};
use procflow_domain::ports::{DeliveryQueue, MailQueue};
use procflow_domain::team::Team;
use procflow_domain::webhook::DeliveryStatus;
use procflow_postgres::testing::migrated_database;
use procflow_postgres::{PgStore, PoolConfig};
use procflow_server::worker::{WorkerArgs, spawn_worker};
use procflow_testkit::Session;
use procflow_testkit::receiver::Answer;
use procflow_testkit::smtp::SmtpServer;
use serde_json::Value;
use tokio::net::TcpListener;
use uuid::Uuid;

use super::support::{Serving, get, serve_with_json_logs, serving_address};
use super::worker::{team, test_delivery_to_a_hanging_receiver};

/// How long a test waits for what does not depend on the lease.
const WAIT: Duration = Duration::from_secs(30);

/// The bound: a dead instance's work reaches its receiver within this of the restart.
const TAKEN_OVER_WITHIN: Duration = Duration::from_secs(10);

/// An SMTP server that accepts connections and never says a word: a send to it hangs until
/// its time limit. Counts the connections.
struct SilentSmtp {
    port: u16,
    connections: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl SilentSmtp {
    async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let counted = connections.clone();
        let task = tokio::spawn(async move {
            let mut open = Vec::new();
            while let Ok((stream, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                open.push(stream);
            }
        });
        Self {
            port,
            connections,
            task,
        }
    }

    fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    async fn wait_for_connection(&self) {
        let until = Instant::now() + WAIT;
        while self.connections() == 0 {
            assert!(Instant::now() < until, "no SMTP connection within {WAIT:?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for SilentSmtp {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A `procflow serve` child whose JSON log lines are kept as they come.
struct Served {
    serving: Serving,
    address: SocketAddr,
    logs: Arc<Mutex<Vec<Value>>>,
}

impl Served {
    fn start(database_url: &str, env: &[(&str, &str)]) -> Self {
        let (serving, stderr) = serve_with_json_logs(database_url, env);
        let mut lines = BufReader::new(stderr).lines();
        let mut first = Vec::new();
        let address = serving_address(&mut lines, &mut first);
        let logs: Arc<Mutex<Vec<Value>>> = Arc::new(Mutex::new(
            first
                .iter()
                .map(|line| serde_json::from_str(line).unwrap())
                .collect(),
        ));
        let kept = logs.clone();
        // Drained to the end, or the child blocks on a full pipe.
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                if let Ok(entry) = serde_json::from_str(&line) {
                    kept.lock().unwrap().push(entry);
                }
            }
        });
        Self {
            serving,
            address,
            logs,
        }
    }

    fn logged(&self, message: &str) -> Vec<Value> {
        self.logs
            .lock()
            .unwrap()
            .iter()
            .filter(|entry| {
                entry["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with(message))
            })
            .cloned()
            .collect()
    }

    /// The holder its worker claims for, from its start-up line.
    fn holder(&self) -> String {
        let until = Instant::now() + WAIT;
        loop {
            if let Some(started) = self.logged("the delivery worker is started").first() {
                return started["worker.holder"].as_str().unwrap().to_owned();
            }
            assert!(Instant::now() < until, "no worker start-up line");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn kill9(mut self) {
        self.serving.0.kill().unwrap();
        self.serving.0.wait().unwrap();
    }
}

fn invitation(team: &Team) -> NewMail {
    NewMail {
        id: EmailId::from_uuid(Uuid::now_v7()),
        team_id: team.id,
        event_id: EventId::from_uuid(Uuid::now_v7()),
        kind: MailKind::GuestInvitation,
        recipient: "guest@takeover.example".parse().unwrap(),
        content: MailContent {
            team_name: "Workers".into(),
            run_title: "Onboarding".into(),
            task_title: None,
            due_date: None,
            share_url: Some("http://workers.example/instance/x?token=t".into()),
            comment: None,
            problem: None,
        },
        created_at: time::OffsetDateTime::now_utc(),
    }
}

/// The value of a series of the `/metrics` text, with its labels as written.
fn series(metrics: &str, name_and_labels: &str) -> Option<f64> {
    metrics.lines().find_map(|line| {
        line.strip_prefix(name_and_labels)
            .and_then(|rest| rest.trim().parse().ok())
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_served_process_killed_mid_delivery_has_its_work_taken_over_within_seconds() {
    let db = migrated_database().await;
    let store = PgStore::new(&PoolConfig::new(db.url())).unwrap();
    let team = team(&store).await;
    let (mut receiver, delivery) = test_delivery_to_a_hanging_receiver(&store, &team).await;
    let email = invitation(&team);
    store
        .enqueue_mail(std::slice::from_ref(&email))
        .await
        .unwrap();

    // The first process, with the default lease, holds both: the receiver and the SMTP server
    // never answer.
    let silent = SilentSmtp::start().await;
    let smtp_url = silent.url();
    let first = Served::start(
        db.url(),
        &[
            ("PROCFLOW_WEBHOOK_ALLOW_PRIVATE", "true"),
            ("PROCFLOW_SMTP_URL", &smtp_url),
            ("RUST_LOG", "info"),
        ],
    );
    let dead = first.holder();
    let held = receiver.wait_for(1, WAIT).await.remove(0);
    silent.wait_for_connection().await;
    let session = Session::open(db.url()).await;
    let holders = session
        .rows(
            "SELECT holder::text FROM webhook_deliveries WHERE status = 'delivering' \
             UNION ALL SELECT holder::text FROM emails WHERE status = 'sending'",
        )
        .await;
    assert_eq!(
        holders,
        vec![vec![Some(dead.clone())], vec![Some(dead.clone())]],
        "the first process holds the delivery and the email"
    );
    first.kill9(); // SIGKILL: no shutdown, no give-back, no renewal any more.

    receiver.answer_by_default(Answer::Status(200, None));
    receiver.restart().await;
    let sink = SmtpServer::start();
    let sink_url = sink.url();
    let restarted = Instant::now();
    let second = Served::start(
        db.url(),
        &[
            ("PROCFLOW_WEBHOOK_ALLOW_PRIVATE", "true"),
            ("PROCFLOW_SMTP_URL", &sink_url),
            ("RUST_LOG", "info"),
        ],
    );
    let again = receiver
        .wait_for(2, TAKEN_OVER_WITHIN.saturating_sub(restarted.elapsed()))
        .await
        .remove(1);
    assert_eq!(again.header("webhook-id"), held.header("webhook-id"));
    let webhook_after = restarted.elapsed();
    let sent = tokio::task::block_in_place(|| {
        sink.wait_for(1, TAKEN_OVER_WITHIN.saturating_sub(restarted.elapsed()))
    });
    assert!(
        sent[0].message_id.contains(&email.event_id.to_string()),
        "{:?}",
        sent[0].message_id
    );
    let email_after = restarted.elapsed();
    assert!(
        webhook_after < TAKEN_OVER_WITHIN && email_after < TAKEN_OVER_WITHIN,
        "after the restart: webhook {webhook_after:?}, email {email_after:?}"
    );

    // Recorded as the second attempt of each, by the new holder.
    let until = Instant::now() + WAIT;
    loop {
        let shown = store.get_delivery(team.id, delivery.id).await.unwrap();
        let email_state = session
            .rows("SELECT status, attempts::text FROM emails")
            .await;
        if shown.status == DeliveryStatus::Delivered
            && email_state == vec![vec![Some("sent".into()), Some("2".into())]]
        {
            assert_eq!(shown.attempts, 2, "the killed attempt counts");
            break;
        }
        assert!(
            Instant::now() < until,
            "not recorded: {shown:?}, {email_state:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Counted and logged once per queue, naming the dead holder.
    let (_, metrics) = get(second.address, "/metrics");
    for queue in ["webhook", "email"] {
        assert_eq!(
            series(
                &metrics,
                &format!("procflow_queue_takeovers_total{{queue=\"{queue}\"}}")
            ),
            Some(1.0),
            "{queue} takeovers in {metrics}"
        );
    }
    let logged = second.logged("took over jobs whose holder stopped renewing");
    let mut queues: Vec<(&str, u64, &str)> = logged
        .iter()
        .map(|entry| {
            (
                entry["queue"].as_str().unwrap(),
                entry["taken_over"].as_u64().unwrap(),
                entry["holder.from"].as_str().unwrap(),
            )
        })
        .collect();
    queues.sort_unstable();
    assert_eq!(
        queues,
        vec![("email", 1, dead.as_str()), ("webhook", 1, dead.as_str())]
    );
    assert!(
        logged.iter().all(|entry| entry["level"] == "WARN"),
        "{logged:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_attempt_that_hangs_is_cut_at_its_limit_and_never_taken_over_while_its_worker_lives() {
    let db = migrated_database().await;
    let store = PgStore::new(&PoolConfig::new(db.url())).unwrap();
    let team = team(&store).await;
    let (receiver, delivery) = test_delivery_to_a_hanging_receiver(&store, &team).await;
    store.enqueue_mail(&[invitation(&team)]).await.unwrap();
    let silent = SilentSmtp::start().await;

    // Two workers on one database; an attempt's limit is three leases, so without renewals
    // the other worker would take each job over twice before its attempt is cut.
    let lease = Duration::from_secs(2);
    let limit = 3 * lease;
    let args = WorkerArgs {
        webhook_allow_private: true,
        webhook_retry_schedule: "1h".parse().unwrap(),
        worker_concurrency: 4,
        worker_lease: lease,
        worker_poll: Duration::from_millis(100),
        smtp_url: Some(silent.url().parse().unwrap()),
        smtp_from: "procflow@localhost".parse().unwrap(),
        mail_dir: None,
        scheduler_interval: Duration::from_secs(60),
    };
    let mut settings = args.settings();
    settings.sender.timeout = limit;
    settings.mail.send_timeout = limit;
    let started = Instant::now();
    let one = spawn_worker(&store, &settings).unwrap();
    let other = spawn_worker(&store, &settings).unwrap();

    let session = Session::open(db.url()).await;
    let until = Instant::now() + limit + WAIT;
    let (shown, email) = loop {
        let shown = store.get_delivery(team.id, delivery.id).await.unwrap();
        let email = session
            .rows("SELECT status, attempts::text, error FROM emails")
            .await
            .remove(0);
        // Attempted, and pending again: its attempt was cut (or, wrongly, taken over and
        // ended otherwise, which the checks below tell).
        let attempted = shown.attempts > 0 && email[1].as_deref() != Some("0");
        if attempted
            && shown.status == DeliveryStatus::Pending
            && email[0].as_deref() == Some("pending")
        {
            break (shown, email);
        }
        assert!(Instant::now() < until, "not cut: {shown:?}, {email:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let cut_after = started.elapsed();
    one.stop().await;
    other.stop().await;

    assert!(cut_after >= limit, "cut after {cut_after:?}, not its limit");
    assert_eq!(
        receiver.received().len(),
        1,
        "one attempt reached the receiver"
    );
    assert_eq!(
        silent.connections(),
        1,
        "one attempt reached the SMTP server"
    );
    assert_eq!(shown.attempts, 1, "never taken over: {shown:?}");
    assert!(
        shown
            .error
            .as_deref()
            .is_some_and(|e| e.contains("timed out")),
        "{shown:?}"
    );
    let retry_in = shown.next_attempt_at.unwrap() - shown.last_attempt_at.unwrap();
    assert!(
        retry_in >= time::Duration::minutes(48),
        "retried on the schedule (1 h ± 20 %): {retry_in}"
    );
    assert_eq!(
        email[1].as_deref(),
        Some("1"),
        "never taken over: {email:?}"
    );
    assert!(email[2].is_some(), "the cut is the error: {email:?}");
}
