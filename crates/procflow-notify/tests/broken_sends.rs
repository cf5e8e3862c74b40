//! A send that breaks down never leaves its job held: a sender that panics settles the email
//! as failed, and a job claimed past the schedule's last attempt (its last attempt never
//! reported) fails without being sent again (issue "Hard to break, round two", point 4).
//! Nor does a write of the holder's fail on another of its own: its settles and lease renewals
//! never run at once (on PostgreSQL they deadlock, and one of them fails).

#![allow(clippy::unwrap_used, clippy::panic, reason = "tests")]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use procflow_domain::error::{DomainError, DomainResult};
use procflow_domain::ids::{EmailId, EventId, HolderId, TeamId};
use procflow_domain::mail::{
    ClaimedMail, MailContent, MailKind, MailOutcome, MailSettlement, MailStatus, Mails, NewMail,
};
use procflow_domain::ports::{Backlog, Clock, LeasedQueue, MailQueue, Sender};
use procflow_domain::queue::{Claim, Lease};
use procflow_domain::service::{AttemptPorts, Attempts};
use procflow_domain::webhook::RetrySchedule;
use procflow_memory::{FixedClock, InMemoryStore, SequentialIds};
use procflow_notify::{Channel, Hooks, QueueChannel, WorkerConfig};
use time::OffsetDateTime;
use time::macros::datetime;
use tokio::sync::{Notify, Semaphore};
use tokio::task::JoinSet;
use uuid::Uuid;

const NOW: OffsetDateTime = datetime!(2026-06-01 9:00 UTC);

/// A sender that counts its sends, and panics in each when told to.
#[derive(Default)]
struct Counting {
    sends: AtomicUsize,
    panics: bool,
}

#[async_trait]
impl Sender<Mails> for Counting {
    async fn send(&self, _: &ClaimedMail, _: OffsetDateTime) -> MailOutcome {
        self.sends.fetch_add(1, Ordering::SeqCst);
        assert!(
            !self.panics,
            "writing `Mailbox` returned an error (as lettre panics)"
        );
        MailOutcome::Sent
    }
}

/// Hooks that log nothing.
struct Quiet;

#[async_trait]
impl Hooks<Mails> for Quiet {
    fn name(&self) -> &'static str {
        "email"
    }

    async fn dispatch(&self) -> usize {
        0
    }

    fn attempted(
        &self,
        _: &ClaimedMail,
        _: &MailSettlement,
        _: &Result<bool, String>,
        _: Duration,
    ) {
    }

    fn claim_failed(&self, _: &DomainError) {}

    fn released(&self, _: DomainResult<u64>) {}

    async fn swept(&self, _: DomainResult<u64>, _: OffsetDateTime) {}

    fn backlog(&self, _: DomainResult<Backlog>, _: OffsetDateTime) {}
}

async fn queued(store: &InMemoryStore) {
    store
        .enqueue_mail(&[NewMail {
            id: EmailId::from_uuid(Uuid::from_u128(10)),
            team_id: TeamId::from_uuid(Uuid::from_u128(11)),
            event_id: EventId::from_uuid(Uuid::from_u128(12)),
            kind: MailKind::GuestInvitation,
            recipient: "guest@example.org".parse().unwrap(),
            content: MailContent {
                team_name: "Acme".into(),
                run_title: "Onboarding".into(),
                task_title: None,
                due_date: None,
                share_url: None,
                comment: None,
                problem: None,
            },
            created_at: NOW,
        }])
        .await
        .unwrap();
}

fn attempts(store: &Arc<InMemoryStore>, sender: &Arc<Counting>) -> Attempts<Mails> {
    attempts_over(store.clone(), sender)
}

fn attempts_over(queue: Arc<dyn LeasedQueue<Mails>>, sender: &Arc<Counting>) -> Attempts<Mails> {
    Attempts::new(
        AttemptPorts {
            queue,
            sender: sender.clone(),
            clock: Arc::new(FixedClock::at(NOW)) as Arc<dyn Clock>,
            ids: Arc::new(SequentialIds::default()),
        },
        RetrySchedule::default(),
        HolderId::from_uuid(Uuid::from_u128(1)),
    )
}

/// What the worker's loop does once: claim what is due, attempt it, wait for the outcomes.
async fn run_once(attempts: Attempts<Mails>) -> usize {
    let channel = QueueChannel::over(attempts, Quiet, WorkerConfig::default());
    let mut tasks = JoinSet::new();
    let started = channel.start_due(10, &mut tasks).await;
    while let Some(joined) = tasks.join_next().await {
        joined.unwrap();
    }
    started
}

fn status(store: &InMemoryStore) -> MailStatus {
    store.mails()[0].1
}

#[tokio::test]
async fn a_sender_that_panics_settles_its_email_as_failed() {
    let store = Arc::new(InMemoryStore::default());
    queued(&store).await;
    let sender = Arc::new(Counting {
        panics: true,
        ..Counting::default()
    });
    assert_eq!(run_once(attempts(&store, &sender)).await, 1);
    assert_eq!(status(&store), MailStatus::Failed);
    // Nothing is held any more: the next pass claims nothing.
    assert_eq!(run_once(attempts(&store, &sender)).await, 0);
    assert_eq!(sender.sends.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_job_claimed_past_the_last_attempt_fails_without_being_sent() {
    let store = Arc::new(InMemoryStore::default());
    queued(&store).await;
    let sender = Arc::new(Counting::default());
    let attempts = attempts(&store, &sender);
    let last = RetrySchedule::default().max_attempts();
    // Every attempt of the schedule claimed, none reported: each lease ran out at once.
    for _ in 0..last {
        let claim = attempts.claim(10, time::Duration::ZERO).await.unwrap();
        assert_eq!(claim.jobs.len(), 1);
    }
    assert_eq!(status(&store), MailStatus::Sending);
    assert_eq!(run_once(attempts).await, 1);
    assert_eq!(status(&store), MailStatus::Failed);
    assert_eq!(sender.sends.load(Ordering::SeqCst), 0, "not sent again");
}

/// The store's queue, whose settles wait at a gate the test opens, and which counts the
/// renewals that came while a settle was under way.
struct Gated {
    store: Arc<InMemoryStore>,
    settling: AtomicBool,
    entered: Notify,
    gate: Semaphore,
    overlaps: AtomicUsize,
    renewals: AtomicUsize,
}

#[async_trait]
impl LeasedQueue<Mails> for Gated {
    async fn claim_due(
        &self,
        limit: usize,
        now: OffsetDateTime,
        lease: &Lease,
    ) -> DomainResult<Claim<Mails>> {
        LeasedQueue::<Mails>::claim_due(&*self.store, limit, now, lease).await
    }

    async fn renew(&self, holder: HolderId, until: OffsetDateTime) -> DomainResult<u64> {
        if self.settling.load(Ordering::SeqCst) {
            self.overlaps.fetch_add(1, Ordering::SeqCst);
        }
        self.renewals.fetch_add(1, Ordering::SeqCst);
        LeasedQueue::<Mails>::renew(&*self.store, holder, until).await
    }

    async fn settle(&self, settled: &[(ClaimedMail, MailSettlement)]) -> DomainResult<Vec<bool>> {
        self.settling.store(true, Ordering::SeqCst);
        self.entered.notify_one();
        let _open = self.gate.acquire().await.unwrap();
        let recorded = LeasedQueue::<Mails>::settle(&*self.store, settled).await;
        self.settling.store(false, Ordering::SeqCst);
        recorded
    }

    async fn release(&self, holder: HolderId, now: OffsetDateTime) -> DomainResult<u64> {
        LeasedQueue::<Mails>::release(&*self.store, holder, now).await
    }

    async fn backlog(&self) -> DomainResult<Backlog> {
        LeasedQueue::<Mails>::backlog(&*self.store).await
    }

    async fn sweep(&self, before: OffsetDateTime) -> DomainResult<u64> {
        LeasedQueue::<Mails>::sweep(&*self.store, before).await
    }
}

#[tokio::test]
async fn a_renewal_waits_for_the_settle_under_way() {
    let store = Arc::new(InMemoryStore::default());
    queued(&store).await;
    let queue = Arc::new(Gated {
        store: store.clone(),
        settling: AtomicBool::new(false),
        entered: Notify::new(),
        gate: Semaphore::new(0),
        overlaps: AtomicUsize::new(0),
        renewals: AtomicUsize::new(0),
    });
    let sender = Arc::new(Counting::default());
    let channel = QueueChannel::over(
        attempts_over(queue.clone(), &sender),
        Quiet,
        WorkerConfig::default(),
    );
    let mut tasks = JoinSet::new();
    assert_eq!(channel.start_due(10, &mut tasks).await, 1);
    // The attempt sent its email and its outcome is being recorded, held at the gate.
    queue.entered.notified().await;
    // The renewal asked for now is polled first, while the settle still holds the gate; the
    // gate opens only after it.
    tokio::join!(channel.renew(), async { queue.gate.add_permits(1) });
    while let Some(joined) = tasks.join_next().await {
        joined.unwrap();
    }
    assert_eq!(queue.renewals.load(Ordering::SeqCst), 1, "the renewal ran");
    assert_eq!(
        queue.overlaps.load(Ordering::SeqCst),
        0,
        "the renewal ran while the settle was under way"
    );
    assert_eq!(status(&store), MailStatus::Sent);
}
