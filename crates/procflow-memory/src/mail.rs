//! `MailQueue` and `NoticeStore` in memory: one email per event (the one leased queue of
//! `leased.rs` holds them under leases), and notices taken once, as PostgreSQL keeps them.

use async_trait::async_trait;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use crate::state::{MailRow, State, StoredJob};
use crate::store::InMemoryStore;
use procflow_domain::error::DomainResult;
use procflow_domain::mail::{
    ClaimedMail, DueNotice, MailSettlement, MailStatus, Mails, NewMail, OVERDUE_REPEAT,
};
use procflow_domain::ports::{MailQueue, NoticeDecision, NoticeStore};
use procflow_domain::run::RunStatus;

impl InMemoryStore {
    /// Every email queued so far, in order, with where it stands.
    #[must_use]
    pub fn mails(&self) -> Vec<(NewMail, MailStatus)> {
        self.state()
            .mail
            .mails
            .iter()
            .map(|row| (row.mail.clone(), row.status))
            .collect()
    }
}

#[async_trait]
impl MailQueue for InMemoryStore {
    async fn enqueue_mail(&self, mails: &[NewMail]) -> DomainResult<()> {
        let rows = &mut self.state().mail.mails;
        for mail in mails {
            let queued = rows.iter().any(|row| {
                row.mail.team_id == mail.team_id
                    && row.mail.event_id == mail.event_id
                    && row.mail.recipient == mail.recipient
            });
            if !queued {
                rows.push(MailRow {
                    mail: mail.clone(),
                    status: MailStatus::Pending,
                    attempts: 0,
                    due_at: mail.created_at,
                    lease: None,
                });
            }
        }
        Ok(())
    }
}

impl StoredJob for Mails {
    type Row = MailRow;

    fn rows(state: &mut State) -> &mut Vec<MailRow> {
        &mut state.mail.mails
    }

    fn claimed(state: &State, index: usize, lease: Uuid) -> Option<ClaimedMail> {
        let row = state.mail.mails.get(index)?;
        Some(ClaimedMail {
            id: row.mail.id,
            team_id: row.mail.team_id,
            event_id: row.mail.event_id,
            kind: row.mail.kind,
            recipient: row.mail.recipient.clone(),
            content: row.mail.content.clone(),
            attempt: row.attempts,
            lease,
        })
    }

    fn key(claimed: &ClaimedMail) -> (Uuid, Uuid) {
        (claimed.team_id.as_uuid(), claimed.id.as_uuid())
    }

    fn apply(state: &mut State, index: usize, settlement: &MailSettlement) {
        if let Some(row) = state.mail.mails.get_mut(index) {
            row.status = settlement.status;
            row.lease = None;
            if let Some(next) = settlement.next_attempt_at {
                row.due_at = next;
            }
        }
    }
}

#[async_trait]
impl NoticeStore for InMemoryStore {
    async fn take_due_notices(
        &self,
        now: OffsetDateTime,
        limit: usize,
        decide: &NoticeDecision<'_>,
    ) -> DomainResult<usize> {
        let mut state = self.state();
        let mut due = Vec::new();
        for (&(team, run_id), share) in &state.shares {
            let Some(guest) = &share.guest else { continue };
            let waited = guest.invited_at + Duration::days(i64::from(guest.reminder_days));
            if guest.enable_reminders
                && guest.engaged_at.is_none()
                && waited <= now
                && !state.mail.reminded.contains(&(team, run_id))
            {
                let Ok(index) = state.run_index(team, run_id) else {
                    continue;
                };
                let run = &state.runs[index];
                due.push(DueNotice::Reminder {
                    team_id: team,
                    run_id,
                    run_title: run.title.clone(),
                    run_active: run.status() == RunStatus::Active,
                    guest_id: guest.id,
                    email: guest.email.clone(),
                });
            }
        }
        for (&(team, run_id), tasks) in &state.tasks {
            let Ok(index) = state.run_index(team, run_id) else {
                continue;
            };
            let run = &state.runs[index];
            for task in tasks {
                let next = state.mail.overdue_next.get(&(team, run_id, task.id));
                let is_due = task.due_date.is_some_and(|due| due <= now)
                    && next.is_none_or(|next| *next <= now);
                if task.is_open() && !task.hidden && task.assignee.is_some() && is_due {
                    due.push(DueNotice::Overdue {
                        team_id: team,
                        run_title: run.title.clone(),
                        task: Box::new(task.clone()),
                    });
                }
            }
        }
        due.truncate(limit);
        let mut events = Vec::new();
        for notice in &due {
            match notice {
                DueNotice::Reminder {
                    team_id, run_id, ..
                } => {
                    state.mail.reminded.insert((*team_id, *run_id));
                }
                DueNotice::Overdue { team_id, task, .. } => {
                    state
                        .mail
                        .overdue_next
                        .insert((*team_id, task.run_id, task.id), now + OVERDUE_REPEAT);
                }
            }
            events.extend(decide(notice));
        }
        state.append(&events);
        Ok(due.len())
    }
}
