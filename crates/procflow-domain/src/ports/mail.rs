//! The ports of emails: the queue of messages to send, and the notices the scheduler finds.

use async_trait::async_trait;
use time::OffsetDateTime;
use uuid::Uuid;

use super::webhooks::Backlog;
use crate::error::DomainResult;
use crate::event::Event;
use crate::mail::{ClaimedMail, DueNotice, MailSettlement, NewMail};

/// The emails waiting, in flight and done, shared by every worker of every instance.
#[async_trait]
pub trait MailQueue: Send + Sync {
    /// Queues pending emails, due at their `created_at`. An email MUST be queued at most once
    /// per (team, event), however often the same event is fanned out (a worker that dies
    /// mid-way repeats it).
    ///
    /// # Errors
    /// Only store failures.
    async fn enqueue_mail(&self, mails: &[NewMail]) -> DomainResult<()>;

    /// Leases up to `limit` due emails (pending and due at `now`, or in flight with a lease
    /// run out) until `lease_until` under the token `lease`, counting an attempt on each,
    /// oldest due first. An email leased MUST NOT be handed out again before its lease runs
    /// out, whichever instance asks; its cost MUST NOT grow with the emails that ended.
    ///
    /// # Errors
    /// Only store failures.
    async fn claim_mail(
        &self,
        limit: usize,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        lease: Uuid,
    ) -> DomainResult<Vec<ClaimedMail>>;

    /// Records what sends made of emails, each only while it is still held under its claim's
    /// lease; answers, in order, whether each was recorded.
    ///
    /// # Errors
    /// Only store failures.
    async fn settle_mail(
        &self,
        settled: &[(ClaimedMail, MailSettlement)],
    ) -> DomainResult<Vec<bool>>;

    /// Gives back every email still held under `lease`, due at `now`, its attempt uncounted
    /// (a worker shutting down). Answers how many.
    ///
    /// # Errors
    /// Only store failures.
    async fn release_mail(&self, lease: Uuid, now: OffsetDateTime) -> DomainResult<u64>;

    /// How many emails are pending or in flight, and when the oldest was queued.
    ///
    /// # Errors
    /// Only store failures.
    async fn mail_backlog(&self) -> DomainResult<Backlog>;

    /// Removes the emails queued before `before` that are no longer pending or in flight.
    /// Answers how many.
    ///
    /// # Errors
    /// Only store failures.
    async fn sweep_mail(&self, before: OffsetDateTime) -> DomainResult<u64>;
}

/// Decides the event a due notice raises, if any.
pub type NoticeDecision<'a> = dyn Fn(&DueNotice) -> Option<Event> + Send + Sync + 'a;

/// Where the scheduler finds the notices whose time has come.
#[async_trait]
pub trait NoticeStore: Send + Sync {
    /// Takes up to `limit` due notices at `now`, in one transaction: each is locked (those
    /// another instance holds are skipped), handed to `decide`, marked done (a reminder as
    /// reminded, whether or not `decide` raised an event; an overdue task as notified, its
    /// next notice due [`OVERDUE_REPEAT`](crate::mail::OVERDUE_REPEAT) after `now`), and the
    /// events `decide` raised appended to the outbox. Each notice MUST be taken once, however
    /// many instances ask at the same time; the cost MUST NOT grow with finished runs or
    /// tasks. Answers how many notices were taken.
    ///
    /// Reminders are due `reminder_days` after the latest invitation, for guests with
    /// reminders on who have not engaged; overdue notices for open tasks with an assignee
    /// whose due date is at or before `now`.
    ///
    /// # Errors
    /// Only store failures.
    async fn take_due_notices(
        &self,
        now: OffsetDateTime,
        limit: usize,
        decide: &NoticeDecision<'_>,
    ) -> DomainResult<usize>;
}
