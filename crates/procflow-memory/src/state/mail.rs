//! The emails the store keeps, and which notices were taken.

use std::collections::{HashMap, HashSet};

use procflow_domain::ids::{RunId, TaskId, TeamId};
use procflow_domain::mail::{MailStatus, NewMail};
use time::OffsetDateTime;
use uuid::Uuid;

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
    pub(crate) lease: Option<Uuid>,
}
