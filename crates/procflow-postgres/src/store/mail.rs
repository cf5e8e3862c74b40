//! `MailQueue` on PostgreSQL: the shared leased queue's statements (`queue.rs`) on `emails`,
//! and enqueueing with its one email per event.

use std::sync::LazyLock;

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{Array, Integer, Jsonb, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use procflow_domain::error::DomainResult;
use procflow_domain::ids::{EmailId, EventId, TeamId};
use procflow_domain::mail::{ClaimedMail, MailSettlement, Mails, NewMail};
use procflow_domain::ports::MailQueue;
use serde_json::Value;
use uuid::Uuid;

use super::PgStore;
use super::by_text::ByText;
use super::claims::Claims;
use super::queue::{ClaimShape, PgJob, QueueTable, SettledRow, Statements};
use crate::error::{corrupt, db_error};
use crate::rows::{parse, to_u32};

#[derive(QueryableByName)]
pub(super) struct ClaimedRow {
    #[diesel(sql_type = SqlUuid)]
    team_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    event_id: Uuid,
    #[diesel(sql_type = Text)]
    kind: String,
    #[diesel(sql_type = Text)]
    recipient: String,
    #[diesel(sql_type = Jsonb)]
    content: Value,
    #[diesel(sql_type = Integer)]
    attempts: i32,
}

impl ClaimedRow {
    fn into_domain(self, lease: Uuid) -> DomainResult<ClaimedMail> {
        Ok(ClaimedMail {
            id: EmailId::from_uuid(self.id),
            team_id: TeamId::from_uuid(self.team_id),
            event_id: EventId::from_uuid(self.event_id),
            kind: parse("email kind", &self.kind)?,
            recipient: parse("email recipient", &self.recipient)?,
            content: serde_json::from_value(self.content)
                .map_err(|e| corrupt("email content", e))?,
            attempt: to_u32("attempts", self.attempts)?,
            lease,
        })
    }
}

#[async_trait]
impl MailQueue for PgStore {
    async fn enqueue_mail(&self, mails: &[NewMail]) -> DomainResult<()> {
        if mails.is_empty() {
            return Ok(());
        }
        let contents = mails
            .iter()
            .map(|m| serde_json::to_value(&m.content).map_err(|e| corrupt("email content", e)))
            .collect::<DomainResult<Vec<Value>>>()?;
        let mut conn = self.conn().await?;
        // A fan-out repeated after a crash meets the unique index on (team_id, event_id,
        // recipient).
        let insert = diesel::sql_query(
            "INSERT INTO emails \
               (team_id, id, event_id, kind, recipient, content, status, created_at, due_at) \
             SELECT m.team_id, m.id, m.event_id, m.kind, m.recipient, m.content, 'pending', \
                    m.created_at, m.created_at \
             FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], \
                         $6::jsonb[], $7::timestamptz[]) \
                  AS m(team_id, id, event_id, kind, recipient, content, created_at) \
             ON CONFLICT DO NOTHING",
        )
        .bind::<Array<SqlUuid>, _>(
            mails
                .iter()
                .map(|m| m.team_id.as_uuid())
                .collect::<Vec<_>>(),
        )
        .bind::<Array<SqlUuid>, _>(mails.iter().map(|m| m.id.as_uuid()).collect::<Vec<_>>())
        .bind::<Array<SqlUuid>, _>(
            mails
                .iter()
                .map(|m| m.event_id.as_uuid())
                .collect::<Vec<_>>(),
        )
        .bind::<Array<Text>, _>(mails.iter().map(|m| m.kind.as_str()).collect::<Vec<_>>())
        .bind::<Array<Text>, _>(
            mails
                .iter()
                .map(|m| m.recipient.as_str())
                .collect::<Vec<_>>(),
        )
        .bind::<Array<Jsonb>, _>(contents)
        .bind::<Array<Timestamptz>, _>(mails.iter().map(|m| m.created_at).collect::<Vec<_>>());
        ByText(insert).execute(&mut conn).await.map_err(db_error)?;
        drop(conn);
        self.ring_jobs();
        Ok(())
    }
}

/// The emails' statements, from the one builder.
static QUEUE: LazyLock<Statements> = LazyLock::new(|| {
    QueueTable {
        table: "emails",
        held: "sending",
        done: "sent",
        claims: Claims::Mails,
    }
    .statements(
        &ClaimShape {
            join: "",
            on: "",
            returning: "q.team_id, q.id, q.event_id, q.kind, q.recipient, q.content, q.attempts",
        },
        &[],
        "",
    )
});

impl PgJob for Mails {
    type Row = ClaimedRow;

    fn statements() -> &'static Statements {
        &QUEUE
    }

    fn claimed(row: ClaimedRow, lease: Uuid) -> DomainResult<ClaimedMail> {
        row.into_domain(lease)
    }

    fn settled_row<'a>(c: &ClaimedMail, s: &'a MailSettlement) -> SettledRow<'a> {
        SettledRow {
            team_id: c.team_id.as_uuid(),
            id: c.id.as_uuid(),
            lease: c.lease,
            status: s.status.as_str(),
            error: s.error.as_deref(),
            attempted_at: s.attempted_at,
            next_attempt_at: s.next_attempt_at,
        }
    }
}
