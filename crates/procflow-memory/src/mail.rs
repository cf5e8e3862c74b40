//! `MailQueue` and `NoticeStore` in memory: leases, one email per event, and notices taken
//! once, as PostgreSQL keeps them.

use async_trait::async_trait;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use crate::state::MailRow;
use crate::store::InMemoryStore;
use procflow_domain::error::DomainResult;
use procflow_domain::mail::{
    ClaimedMail, DueNotice, MailSettlement, MailStatus, NewMail, OVERDUE_REPEAT,
};
use procflow_domain::ports::{Backlog, MailQueue, NoticeDecision, NoticeStore};
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
            let queued = rows
                .iter()
                .any(|row| row.mail.team_id == mail.team_id && row.mail.event_id == mail.event_id);
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

    async fn claim_mail(
        &self,
        limit: usize,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        lease: Uuid,
    ) -> DomainResult<Vec<ClaimedMail>> {
        let mut state = self.state();
        let mut due: Vec<&mut MailRow> = state
            .mail
            .mails
            .iter_mut()
            .filter(|row| {
                matches!(row.status, MailStatus::Pending | MailStatus::Sending) && row.due_at <= now
            })
            .collect();
        due.sort_by_key(|row| row.due_at);
        Ok(due
            .into_iter()
            .take(limit)
            .map(|row| {
                row.status = MailStatus::Sending;
                row.attempts += 1;
                row.due_at = lease_until;
                row.lease = Some(lease);
                ClaimedMail {
                    id: row.mail.id,
                    team_id: row.mail.team_id,
                    event_id: row.mail.event_id,
                    kind: row.mail.kind,
                    recipient: row.mail.recipient.clone(),
                    content: row.mail.content.clone(),
                    attempt: row.attempts,
                    lease,
                }
            })
            .collect())
    }

    async fn settle_mail(
        &self,
        settled: &[(ClaimedMail, MailSettlement)],
    ) -> DomainResult<Vec<bool>> {
        let mut state = self.state();
        Ok(settled
            .iter()
            .map(|(claimed, settlement)| {
                let Some(row) = state.mail.mails.iter_mut().find(|row| {
                    row.mail.id == claimed.id
                        && row.status == MailStatus::Sending
                        && row.lease == Some(claimed.lease)
                }) else {
                    return false;
                };
                row.status = settlement.status;
                row.lease = None;
                row.due_at = settlement
                    .next_attempt_at
                    .unwrap_or(settlement.attempted_at);
                true
            })
            .collect())
    }

    async fn release_mail(&self, lease: Uuid, now: OffsetDateTime) -> DomainResult<u64> {
        let mut released = 0;
        for row in &mut self.state().mail.mails {
            if row.status == MailStatus::Sending && row.lease == Some(lease) {
                row.status = MailStatus::Pending;
                row.lease = None;
                row.due_at = now;
                row.attempts = row.attempts.saturating_sub(1);
                released += 1;
            }
        }
        Ok(released)
    }

    async fn mail_backlog(&self) -> DomainResult<Backlog> {
        let state = self.state();
        let waiting = state
            .mail
            .mails
            .iter()
            .filter(|row| matches!(row.status, MailStatus::Pending | MailStatus::Sending));
        let (pending, oldest) = waiting.fold((0, None), |(n, oldest): (u64, Option<_>), row| {
            let at = row.mail.created_at;
            (
                n + 1,
                Some(oldest.map_or(at, |o: OffsetDateTime| o.min(at))),
            )
        });
        Ok(Backlog { pending, oldest })
    }

    async fn sweep_mail(&self, before: OffsetDateTime) -> DomainResult<u64> {
        let rows = &mut self.state().mail.mails;
        let count = rows.len();
        rows.retain(|row| {
            matches!(row.status, MailStatus::Pending | MailStatus::Sending)
                || row.mail.created_at >= before
        });
        Ok(u64::try_from(count - rows.len()).unwrap_or(u64::MAX))
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
                if task.is_open() && task.assignee.is_some() && is_due {
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
