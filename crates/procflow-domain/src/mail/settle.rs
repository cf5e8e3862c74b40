//! What a send's outcome makes of an email: sent, retried after the webhook schedule's wait,
//! or failed, as [`Settled::of`] decides for every job.

use time::OffsetDateTime;

use super::{ClaimedMail, MailStatus};
use crate::queue::{Fate, Settled, Verdict};
use crate::webhook::RetrySchedule;

/// What one send met.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MailOutcome {
    /// Accepted by the server, written to the mail folder, or logged.
    Sent,
    /// A failure worth another try: a 4xx reply, no connection, a timeout.
    Temporary(String),
    /// A failure no retry mends: a 5xx reply, a message that cannot be built.
    Permanent(String),
}

/// What a store records after a send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MailSettlement {
    /// Pending (a retry), sent or failed.
    pub status: MailStatus,
    /// When it is tried again (pending only).
    pub next_attempt_at: Option<OffsetDateTime>,
    /// Why the send failed.
    pub error: Option<String>,
    /// When the send started.
    pub attempted_at: OffsetDateTime,
}

impl MailSettlement {
    /// What `outcome` of the send started `at` makes of `claimed`: a temporary failure is
    /// retried after `schedule`'s wait for this attempt (placed by `unit`, in `[0, 1)`), or
    /// fails after the last; a permanent one fails at once.
    ///
    /// ```
    /// # use procflow_domain::mail::*;
    /// # use procflow_domain::ids::{EmailId, EventId, TeamId};
    /// # use procflow_domain::webhook::RetrySchedule;
    /// # let id = uuid::Uuid::nil();
    /// # let at = time::macros::datetime!(2026-01-01 0:00 UTC);
    /// # let claimed = ClaimedMail {
    /// #     id: EmailId::from_uuid(id), team_id: TeamId::from_uuid(id),
    /// #     event_id: EventId::from_uuid(id), kind: MailKind::GuestInvitation,
    /// #     recipient: "guest@example.org".parse().unwrap(),
    /// #     content: MailContent { team_name: "Acme".into(), run_title: "Onboarding".into(),
    /// #         task_title: None, due_date: None, share_url: None, comment: None,
    /// #         problem: None },
    /// #     attempt: 1, lease: id };
    /// let schedule: RetrySchedule = "5s,5m".parse().unwrap();
    /// let busy = MailOutcome::Temporary("451 try later".into());
    /// let retried = MailSettlement::of(&claimed, at, busy, &schedule, 0.5);
    /// assert_eq!(retried.status, MailStatus::Pending);
    /// assert_eq!(retried.next_attempt_at, Some(at + time::Duration::seconds(5)));
    ///
    /// let refused = MailOutcome::Permanent("550 no such user".into());
    /// let failed = MailSettlement::of(&claimed, at, refused, &schedule, 0.5);
    /// assert_eq!(failed.status, MailStatus::Failed);
    /// ```
    #[must_use]
    pub fn of(
        claimed: &ClaimedMail,
        at: OffsetDateTime,
        outcome: MailOutcome,
        schedule: &RetrySchedule,
        unit: f64,
    ) -> Self {
        let verdict = match outcome {
            MailOutcome::Sent => Verdict::Done,
            MailOutcome::Permanent(error) => Verdict::Fail(error),
            MailOutcome::Temporary(error) => Verdict::Retry {
                error,
                retry_after: None,
            },
        };
        let settled = Settled::of(claimed.attempt, at, verdict, schedule, unit);
        Self {
            status: match settled.fate {
                Fate::Done => MailStatus::Sent,
                Fate::RetryAt(_) => MailStatus::Pending,
                Fate::Failed => MailStatus::Failed,
            },
            next_attempt_at: settled.next_attempt_at(),
            error: settled.error,
            attempted_at: settled.attempted_at,
        }
    }
}
