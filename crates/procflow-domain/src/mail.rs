//! Emails (API contract 8.4): which events become which message to whom, what a message says,
//! and what a send's outcome makes of it (sent, retried on the webhook schedule, failed).
//! Pure rules; the templates and the SMTP transport live in `procflow-notify`, the queue in
//! `procflow-postgres`.

mod job;
mod notice;
mod settle;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

pub use job::Mails;
pub use notice::{DueNotice, OVERDUE_REPEAT};
pub use settle::{MailOutcome, MailSettlement};

use crate::ids::{EmailId, EventId, TeamId};
use crate::names::named;
use crate::values::Email;

named! {
    /// The messages procflow sends.
    pub enum MailKind as "email kind" {
        /// A guest was invited to a run (spec 4.7): the share link.
        GuestInvitation = "guest_invitation",
        /// The one reminder to a guest who has not opened the page.
        GuestReminder = "guest_reminder",
        /// A task was assigned to someone.
        TaskAssigned = "task_assigned",
        /// An open task is past its due date.
        TaskOverdue = "task_overdue",
        /// A task is ready to start: every task it depends on is done (API contract 12.2).
        TaskReady = "task_ready",
        /// A comment was written on a task the recipient is assigned, or mentions them (API
        /// contract 14.1).
        TaskComment = "task_comment",
        /// A schedule's occurrence started no run (API contract 13.1): to each of the team's
        /// admins.
        ScheduleFailed = "schedule_failed",
    }
}

named! {
    /// Where an email stands.
    pub enum MailStatus as "email status" {
        /// Waiting for its next attempt.
        Pending = "pending",
        /// A worker is sending it now.
        Sending = "sending",
        /// The server accepted it (or, with no transport configured, it was logged); final.
        Sent = "sent",
        /// Refused for good, or its last attempt failed; final.
        Failed = "failed",
    }
}

/// What a message says, fixed when it is queued: a retry sends the same words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailContent {
    /// The team's name: the sender's name and the signature.
    pub team_name: String,
    /// The run's title; the schedule's name (a schedule's failure).
    pub run_title: String,
    /// The task's title (assignment and overdue notices).
    pub task_title: Option<String>,
    /// The task's due date (assignment and overdue notices); the occurrence that started no
    /// run (a schedule's failure).
    #[serde(with = "time::serde::rfc3339::option")]
    pub due_date: Option<OffsetDateTime>,
    /// The link that opens the run for a guest: invitations, reminders, and notices to the
    /// run's guest.
    pub share_url: Option<String>,
    /// What went wrong (a schedule's failure); absent from emails queued before there was
    /// such a message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// The comment a comment notice tells of (absent from emails queued before comments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<MailComment>,
}

/// What a comment notice quotes of the comment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailComment {
    /// Who wrote it: a member's or the guest's address, or "the API".
    pub author: String,
    /// At most 200 characters of its text.
    pub excerpt: String,
    /// Whether the recipient is mentioned in it (else they are the task's assignee).
    pub mentioned: bool,
}

/// An email to queue: one per event and recipient at most (the event's id names it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewMail {
    /// Its id.
    pub id: EmailId,
    /// Its team.
    pub team_id: TeamId,
    /// The event it tells of: its id is the `Message-ID`'s, so a repeated send is recognisable.
    pub event_id: EventId,
    /// Which message.
    pub kind: MailKind,
    /// Who receives it.
    pub recipient: Email,
    /// What it says.
    pub content: MailContent,
    /// When it is queued (and due).
    pub created_at: OffsetDateTime,
}

/// An email a worker holds under a lease.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimedMail {
    /// The email.
    pub id: EmailId,
    /// Its team.
    pub team_id: TeamId,
    /// The event it tells of.
    pub event_id: EventId,
    /// Which message.
    pub kind: MailKind,
    /// Who receives it.
    pub recipient: Email,
    /// What it says.
    pub content: MailContent,
    /// This attempt's number, from 1.
    pub attempt: u32,
    /// The lease: the outcome is recorded only while the email is still held with it.
    pub lease: Uuid,
}

impl ClaimedMail {
    /// The recipient's domain: all that logs may say of the address.
    ///
    /// ```
    /// # use procflow_domain::mail::*;
    /// # use procflow_domain::ids::{EmailId, EventId, TeamId};
    /// # let id = uuid::Uuid::nil();
    /// let mail = ClaimedMail {
    ///     id: EmailId::from_uuid(id),
    ///     team_id: TeamId::from_uuid(id),
    ///     event_id: EventId::from_uuid(id),
    ///     kind: MailKind::TaskAssigned,
    ///     recipient: "Ada@Example.org".parse().unwrap(),
    ///     content: MailContent {
    ///         team_name: "Acme".into(),
    ///         run_title: "Onboarding".into(),
    ///         task_title: None,
    ///         due_date: None,
    ///         share_url: None,
    ///         comment: None,
    ///         problem: None,
    ///     },
    ///     attempt: 1,
    ///     lease: id,
    /// };
    /// assert_eq!(mail.recipient_domain(), "example.org");
    /// ```
    #[must_use]
    pub fn recipient_domain(&self) -> &str {
        let address = self.recipient.as_str();
        address.rsplit_once('@').map_or("", |(_, domain)| domain)
    }
}
