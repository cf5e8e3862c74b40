//! The ports of emails: the queue of messages to send, and the notices the scheduler finds.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::queue::LeasedQueue;
use crate::error::DomainResult;
use crate::event::Event;
use crate::mail::{DueNotice, Mails, NewMail};

/// The emails waiting, in flight and done, shared by every worker of every instance: a
/// [`LeasedQueue`] of [`Mails`], plus enqueueing with its uniqueness rule.
#[async_trait]
pub trait MailQueue: LeasedQueue<Mails> {
    /// Queues pending emails, due at their `created_at`.
    ///
    /// # Errors
    /// Only store failures. An email MUST be queued at most once per (team, event), however
    /// often the same event is fanned out (a worker that dies mid-way repeats it).
    async fn enqueue_mail(&self, mails: &[NewMail]) -> DomainResult<()>;
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
    /// whose due date is at or before `now`, and that no rule hides (a hidden task counts as
    /// done).
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
