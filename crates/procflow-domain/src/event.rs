//! Domain events: what a change raises, with the data a webhook or an email needs.
//!
//! They are written to the outbox in the same transaction as the change that raised them.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::attachment::AttachmentSnapshot;
use crate::comment::CommentSnapshot;
use crate::ids::{EventId, GuestId, RunId, ScheduleId, TeamId, TemplateId};
use crate::run::{RunSnapshot, TaskSnapshot};
use crate::values::Email;

mod stored;

pub use stored::{EVENT_VERSION, StoredEvent, UnreadableEvent, from_stored, to_stored};

/// One event, as appended to the outbox.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Its id; also the webhook's `webhook-id`, so receivers can drop duplicates.
    pub id: EventId,
    /// The team whose change raised it.
    pub team_id: TeamId,
    /// When the change happened.
    #[serde(with = "time::serde::rfc3339")]
    pub occurred_at: OffsetDateTime,
    /// What happened.
    pub payload: EventPayload,
}

/// What happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum EventPayload {
    /// A run was started.
    RunCreated {
        /// The run as the Create response shows it.
        run: RunSnapshot,
        /// How many tasks it has.
        task_count: u32,
    },
    /// A task was completed.
    TaskCompleted {
        /// The task after the change.
        task: TaskSnapshot,
    },
    /// The last open task of a run was closed.
    RunCompleted {
        /// The run after the change.
        run: RunSnapshot,
    },
    /// A task was given an assignee, who gets a notification email.
    TaskAssigned {
        /// The task after the change.
        task: TaskSnapshot,
        /// The run's title, for the email.
        run_title: String,
        /// Where to send the notification, when known; else the member's address is looked up.
        email: Option<Email>,
    },
    /// A guest was invited; the invitation email carries the share link.
    GuestInvited {
        /// The run shared.
        run_id: RunId,
        /// The run's title, for the email.
        run_title: String,
        /// The guest record.
        guest_id: GuestId,
        /// The guest's address.
        email: Email,
        /// The link to open the run.
        share_url: String,
    },
    /// A guest who has not opened the run's page since being invited is due their one
    /// reminder (spec 4.7 `enable_reminders`); raised by the notice scheduler.
    GuestReminderDue {
        /// The run shared.
        run_id: RunId,
        /// The run's title, for the email.
        run_title: String,
        /// The guest record.
        guest_id: GuestId,
        /// The guest's address.
        email: Email,
    },
    /// An open task's due date has passed (again a day later while it stays open); raised by
    /// the notice scheduler, notifies its assignee.
    TaskOverdue {
        /// The task as it is.
        task: TaskSnapshot,
        /// The run's title, for the email.
        run_title: String,
    },
    /// An open, visible task stopped being blocked: every task it depends on is done (or
    /// hidden). Its assignee is told it is ready to start.
    TaskUnblocked {
        /// The task after the change.
        task: TaskSnapshot,
        /// The run's title, for the email.
        run_title: String,
    },
    /// A comment was written on a task (API contract 14.1).
    CommentCreated {
        /// The comment.
        comment: CommentSnapshot,
    },
    /// Someone is to be told of a comment by email: the task's assignee or a member it
    /// mentions. One event per recipient, as the mail queue keeps one email per event; not a
    /// webhook.
    CommentNotice {
        /// The comment.
        comment: CommentSnapshot,
        /// The task's title, for the email.
        task_title: String,
        /// The run's title, for the email.
        run_title: String,
        /// Who to tell.
        email: Email,
        /// Whether the comment mentions them (else they are the task's assignee).
        mentioned: bool,
    },
    /// A file was attached to a task (API contract 14.2).
    AttachmentAdded {
        /// The attachment.
        attachment: AttachmentSnapshot,
    },
    /// A schedule's due occurrence started no run (API contract 13.1): the template is
    /// unpublished or archived, or the pre-fill no longer fits. The team's admins are told.
    ScheduleFailed {
        /// The schedule.
        schedule_id: ScheduleId,
        /// Its name, for the email.
        schedule_name: Option<String>,
        /// The template it starts runs from.
        template_id: TemplateId,
        /// The occurrence that started nothing.
        #[serde(with = "time::serde::rfc3339")]
        occurrence_at: OffsetDateTime,
        /// The error code, as an API answer would carry it (`last_error.code`).
        code: String,
        /// What went wrong, for people (`last_error.message`).
        message: String,
    },
}

impl EventPayload {
    /// The event's name: the webhook event name where there is one.
    ///
    /// ```
    /// use procflow_domain::event::EventPayload;
    /// use procflow_domain::ids::{GuestId, RunId};
    ///
    /// let invited = EventPayload::GuestInvited {
    ///     run_id: RunId::from_uuid(uuid::Uuid::nil()),
    ///     run_title: "Onboarding".into(),
    ///     guest_id: GuestId::from_uuid(uuid::Uuid::nil()),
    ///     email: "guest@example.org".parse().unwrap(),
    ///     share_url: "https://example.org/instance/x?token=y".into(),
    /// };
    /// assert_eq!(invited.name(), "process_run.guest_invited");
    /// ```
    #[must_use]
    pub const fn name(&self) -> &'static str {
        match self {
            Self::RunCreated { .. } => "process_run.created",
            Self::TaskCompleted { .. } => "process_step.completed",
            Self::RunCompleted { .. } => "process_run.completed",
            Self::TaskAssigned { .. } => "process_step.assigned",
            Self::GuestInvited { .. } => "process_run.guest_invited",
            Self::GuestReminderDue { .. } => "process_run.guest_reminder_due",
            Self::TaskOverdue { .. } => "process_step.overdue",
            Self::TaskUnblocked { .. } => "process_step.unblocked",
            Self::CommentCreated { .. } => "task.comment_created",
            Self::CommentNotice { .. } => "task.comment_notice",
            Self::ScheduleFailed { .. } => "schedule.failed",
            Self::AttachmentAdded { .. } => "task.attachment_added",
        }
    }

    /// The run the event is about; `None` for a schedule's failure, which started none.
    ///
    /// ```
    /// use procflow_domain::event::EventPayload;
    /// use procflow_domain::ids::{ScheduleId, TemplateId};
    ///
    /// let failed = EventPayload::ScheduleFailed {
    ///     schedule_id: ScheduleId::from_uuid(uuid::Uuid::nil()),
    ///     schedule_name: None,
    ///     template_id: TemplateId::from_uuid(uuid::Uuid::nil()),
    ///     occurrence_at: time::OffsetDateTime::UNIX_EPOCH,
    ///     code: "template_not_published".into(),
    ///     message: "the template is not published".into(),
    /// };
    /// assert_eq!(failed.run_id(), None);
    /// assert_eq!(failed.name(), "schedule.failed");
    /// ```
    #[must_use]
    pub const fn run_id(&self) -> Option<RunId> {
        match self {
            Self::RunCreated { run, .. } | Self::RunCompleted { run } => Some(run.id),
            Self::TaskCompleted { task }
            | Self::TaskAssigned { task, .. }
            | Self::TaskOverdue { task, .. }
            | Self::TaskUnblocked { task, .. } => Some(task.instance_id),
            Self::GuestInvited { run_id, .. } | Self::GuestReminderDue { run_id, .. } => {
                Some(*run_id)
            }
            Self::CommentCreated { comment } | Self::CommentNotice { comment, .. } => {
                Some(comment.run_id)
            }
            Self::AttachmentAdded { attachment } => Some(attachment.run_id),
            Self::ScheduleFailed { .. } => None,
        }
    }
}
