//! Sharing a run through a link, and the one guest a run may have (spec 4.7).

use time::OffsetDateTime;

use crate::error::{DomainError, ValidationError};
use crate::event::{Event, EventPayload};
use crate::ids::{EventId, GuestId, RunId};
use crate::limits::{DEFAULT_REMINDER_DAYS, MAX_REMINDER_DAYS, MIN_REMINDER_DAYS};
use crate::ports::IdGenerator;
use crate::run::Run;
use crate::values::{Email, ShareToken};

/// The guest recorded against a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guest {
    /// Its id (`sent_process_run_id`).
    pub id: GuestId,
    /// The guest's address; never a team member's.
    pub email: Email,
    /// Whether to remind a guest who has not engaged.
    pub enable_reminders: bool,
    /// Days to wait before the reminder.
    pub reminder_days: u16,
    /// When the guest was (last) invited.
    pub invited_at: OffsetDateTime,
    /// When the guest first opened the shared run.
    pub engaged_at: Option<OffsetDateTime>,
}

/// A run's link sharing: present exactly while the run is shared. Its links (each a token,
/// stored as its digest) are the store's: every one made while the run is shared opens it,
/// until sharing is turned off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Share {
    /// The run shared.
    pub run_id: RunId,
    /// The guest, when one was invited by email.
    pub guest: Option<Guest>,
}

/// An invite request (spec 4.7).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Invitation {
    /// The guest's address; no email is sent without one.
    pub email: Option<Email>,
    /// Remind the guest if they have not engaged.
    pub enable_reminders: bool,
    /// Days before the reminder; 7 when `None`.
    pub reminder_days: Option<i64>,
}

/// The outcome of an invitation: what the store writes, and what the API answers (spec 2.8).
#[derive(Clone, Debug, PartialEq)]
pub struct ShareChange {
    /// The run, now shared.
    pub run: Run,
    /// The share record.
    pub share: Share,
    /// The guest invited by this request, if an email was given.
    pub invited: Option<Guest>,
    /// The token of the link this invitation made (a new one each time: the server keeps
    /// only digests, so it cannot show an earlier link again; earlier ones keep working).
    pub token: ShareToken,
    /// The link.
    pub share_url: String,
    /// `process_run.guest_invited` when an email was given.
    pub events: Vec<Event>,
}

impl Invitation {
    /// Shares `run` and records the guest, given the current share and whether the email
    /// belongs to a member of the team.
    ///
    /// # Errors
    /// [`DomainError::GuestIsTeamMember`], [`DomainError::GuestAlreadyInvited`] when the run
    /// has a guest with another email, a [`ValidationError`] for `reminder_days` outside
    /// 1 to 365 or for an `email` at an IP address (`a@[127.0.0.1]`).
    pub fn apply(
        &self,
        run: &Run,
        current: Option<&Share>,
        email_is_member: bool,
        base_url: &str,
        ids: &dyn IdGenerator,
        now: OffsetDateTime,
    ) -> Result<ShareChange, DomainError> {
        let reminder_days = match self.reminder_days {
            None => DEFAULT_REMINDER_DAYS,
            Some(days) => u16::try_from(days)
                .ok()
                .filter(|d| (MIN_REMINDER_DAYS..=MAX_REMINDER_DAYS).contains(d))
                .ok_or_else(|| {
                    ValidationError::field(
                        "reminder_days",
                        format!(
                            "must be an integer from {MIN_REMINDER_DAYS} to {MAX_REMINDER_DAYS}"
                        ),
                    )
                })?,
        };
        if let Some(email) = self.email.as_ref().filter(|email| email.is_at_ip_literal()) {
            return Err(ValidationError::field(
                "email",
                format!(
                    "{} is at an IP address; the guest's address must be at a domain name",
                    crate::quote::quote(email.as_str())
                ),
            )
            .into());
        }
        let token = ids.share_token();
        let share_url = share_url(base_url, run.id, &token);
        let existing = current.and_then(|share| share.guest.clone());
        let mut events = Vec::new();
        let invited = match &self.email {
            None => None,
            Some(_) if email_is_member => return Err(DomainError::GuestIsTeamMember),
            Some(email) => {
                let guest = match existing.clone() {
                    Some(guest) if &guest.email != email => {
                        return Err(DomainError::GuestAlreadyInvited);
                    }
                    Some(guest) => Guest {
                        enable_reminders: self.enable_reminders,
                        reminder_days,
                        invited_at: now,
                        ..guest
                    },
                    None => Guest {
                        id: GuestId::from_uuid(ids.new_id()),
                        email: email.clone(),
                        enable_reminders: self.enable_reminders,
                        reminder_days,
                        invited_at: now,
                        engaged_at: None,
                    },
                };
                events.push(Event {
                    id: EventId::from_uuid(ids.new_id()),
                    team_id: run.team_id,
                    occurred_at: now,
                    payload: EventPayload::GuestInvited {
                        run_id: run.id,
                        run_title: run.title.clone(),
                        guest_id: guest.id,
                        email: email.clone(),
                        share_url: share_url.clone(),
                    },
                });
                Some(guest)
            }
        };
        let mut shared = run.clone();
        if !shared.is_shared {
            shared.is_shared = true;
            shared.updated_at = Some(now);
        }
        Ok(ShareChange {
            run: shared,
            share: Share {
                run_id: run.id,
                guest: invited.clone().or(existing),
            },
            invited,
            token,
            share_url,
            events,
        })
    }
}

/// `{team base}/instance/<run_id>?token=<token>` (API contract 7).
///
/// ```
/// use procflow_domain::sharing::share_url;
/// use procflow_domain::ids::RunId;
/// use procflow_domain::values::ShareToken;
///
/// let run = RunId::from_uuid(uuid::Uuid::nil());
/// let url = share_url("https://acme.example/", run, &ShareToken::new("t0k".into()));
/// assert_eq!(url, format!("https://acme.example/instance/{run}?token=t0k"));
/// ```
#[must_use]
pub fn share_url(base_url: &str, run_id: RunId, token: &ShareToken) -> String {
    format!(
        "{}/instance/{run_id}?token={}",
        base_url.trim_end_matches('/'),
        token.expose()
    )
}
