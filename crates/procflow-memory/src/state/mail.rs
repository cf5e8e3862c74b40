//! The emails the store keeps, and which notices were taken.

use std::collections::{HashMap, HashSet};

use procflow_domain::ids::{RunId, TaskId, TeamId};
use procflow_domain::mail::{MailStatus, NewMail};
use procflow_domain::queue::Lease;
use time::OffsetDateTime;
use uuid::Uuid;

use super::{Hold, LeasedRow, Stage};

#[derive(Debug, Default)]
pub(crate) struct MailState {
    pub(crate) mails: Vec<MailRow>,
    pub(crate) reminded: HashSet<(TeamId, RunId)>,
    pub(crate) overdue_next: HashMap<(TeamId, RunId, TaskId), OffsetDateTime>,
}

#[derive(Debug)]
pub(crate) struct MailRow {
    pub(crate) mail: NewMail,
    pub(crate) status: MailStatus,
    pub(crate) attempts: u32,
    pub(crate) due_at: OffsetDateTime,
    pub(crate) lease: Option<Hold>,
}

impl LeasedRow for MailRow {
    fn key(&self) -> (Uuid, Uuid) {
        (self.mail.team_id.as_uuid(), self.mail.id.as_uuid())
    }

    fn stage(&self) -> Stage {
        match self.status {
            MailStatus::Pending => Stage::Pending,
            MailStatus::Sending => Stage::Held,
            MailStatus::Sent | MailStatus::Failed => Stage::Ended,
        }
    }

    fn due_at(&self) -> OffsetDateTime {
        self.due_at
    }

    fn created_at(&self) -> OffsetDateTime {
        self.mail.created_at
    }

    fn hold(&self) -> Option<Hold> {
        self.lease
    }

    fn take(&mut self, _now: OffsetDateTime, lease: &Lease) {
        self.status = MailStatus::Sending;
        self.attempts += 1;
        self.due_at = lease.until;
        self.lease = Some(Hold {
            holder: lease.holder,
            token: lease.token,
        });
    }

    fn renew(&mut self, until: OffsetDateTime) {
        self.due_at = until;
    }

    fn give_back(&mut self, now: OffsetDateTime) {
        self.status = MailStatus::Pending;
        self.lease = None;
        self.due_at = now;
        self.attempts = self.attempts.saturating_sub(1);
    }
}
