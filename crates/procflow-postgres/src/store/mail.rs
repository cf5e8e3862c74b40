//! `MailQueue` on PostgreSQL: the same claim (`FOR UPDATE SKIP LOCKED`, a lease token) and
//! fenced outcomes as the webhook deliveries, on `emails`.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{
    Array, BigInt, Integer, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid,
};
use diesel_async::RunQueryDsl;
use procflow_domain::error::DomainResult;
use procflow_domain::ids::{EmailId, EventId, TeamId};
use procflow_domain::mail::{ClaimedMail, MailSettlement, NewMail};
use procflow_domain::ports::{Backlog, MailQueue};
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use super::PgStore;
use super::queue::{self, Settled};
use super::sweep::delete_in_batches;
use crate::error::{corrupt, db_error};
use crate::rows::{parse, to_u32};

#[derive(QueryableByName)]
struct ClaimedRow {
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
        // A fan-out repeated after a crash meets the unique index on (team_id, event_id).
        diesel::sql_query(
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
        .bind::<Array<Timestamptz>, _>(mails.iter().map(|m| m.created_at).collect::<Vec<_>>())
        .execute(&mut conn)
        .await
        .map_err(db_error)?;
        drop(conn);
        self.ring();
        Ok(())
    }

    async fn claim_mail(
        &self,
        limit: usize,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        lease: Uuid,
    ) -> DomainResult<Vec<ClaimedMail>> {
        let mut conn = self.conn().await?;
        let rows: Vec<ClaimedRow> = diesel::sql_query(
            "WITH due AS ( \
               SELECT team_id, id FROM emails \
               WHERE status IN ('pending', 'sending') AND due_at <= $1 \
               ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED) \
             UPDATE emails m \
             SET status = 'sending', attempts = m.attempts + 1, lease = $3, due_at = $4, \
                 last_attempt_at = $1 \
             FROM due \
             WHERE m.team_id = due.team_id AND m.id = due.id \
             RETURNING m.team_id, m.id, m.event_id, m.kind, m.recipient, m.content, m.attempts",
        )
        .bind::<Timestamptz, _>(now)
        .bind::<BigInt, _>(i64::try_from(limit).unwrap_or(i64::MAX))
        .bind::<SqlUuid, _>(lease)
        .bind::<Timestamptz, _>(lease_until)
        .load(&mut conn)
        .await
        .map_err(db_error)?;
        rows.into_iter().map(|row| row.into_domain(lease)).collect()
    }

    async fn settle_mail(
        &self,
        settled: &[(ClaimedMail, MailSettlement)],
    ) -> DomainResult<Vec<bool>> {
        if settled.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = self.conn().await?;
        let done: Vec<Settled> = diesel::sql_query(
            "UPDATE emails m \
             SET status = i.status, error = i.error, last_attempt_at = i.attempted_at, \
                 due_at = coalesce(i.next_attempt_at, m.due_at), lease = NULL \
             FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], \
                         $6::timestamptz[], $7::timestamptz[]) \
                  AS i(team_id, id, lease, status, error, attempted_at, next_attempt_at) \
             WHERE m.team_id = i.team_id AND m.id = i.id AND m.lease = i.lease \
               AND m.status = 'sending' \
             RETURNING m.id",
        )
        .bind::<Array<SqlUuid>, _>(
            settled
                .iter()
                .map(|(c, _)| c.team_id.as_uuid())
                .collect::<Vec<_>>(),
        )
        .bind::<Array<SqlUuid>, _>(
            settled
                .iter()
                .map(|(c, _)| c.id.as_uuid())
                .collect::<Vec<_>>(),
        )
        .bind::<Array<SqlUuid>, _>(settled.iter().map(|(c, _)| c.lease).collect::<Vec<_>>())
        .bind::<Array<Text>, _>(
            settled
                .iter()
                .map(|(_, s)| s.status.as_str())
                .collect::<Vec<_>>(),
        )
        .bind::<Array<Nullable<Text>>, _>(
            settled
                .iter()
                .map(|(_, s)| s.error.as_deref())
                .collect::<Vec<_>>(),
        )
        .bind::<Array<Timestamptz>, _>(
            settled
                .iter()
                .map(|(_, s)| s.attempted_at)
                .collect::<Vec<_>>(),
        )
        .bind::<Array<Nullable<Timestamptz>>, _>(
            settled
                .iter()
                .map(|(_, s)| s.next_attempt_at)
                .collect::<Vec<_>>(),
        )
        .load(&mut conn)
        .await
        .map_err(db_error)?;
        Ok(settled
            .iter()
            .map(|(claimed, _)| done.iter().any(|row| row.id == claimed.id.as_uuid()))
            .collect())
    }

    async fn release_mail(&self, lease: Uuid, now: OffsetDateTime) -> DomainResult<u64> {
        let mut conn = self.conn().await?;
        let released = diesel::sql_query(
            "UPDATE emails SET status = 'pending', due_at = $2, attempts = attempts - 1, \
                 lease = NULL \
             WHERE lease = $1 AND status = 'sending'",
        )
        .bind::<SqlUuid, _>(lease)
        .bind::<Timestamptz, _>(now)
        .execute(&mut conn)
        .await
        .map_err(db_error)?;
        Ok(released as u64)
    }

    async fn mail_backlog(&self) -> DomainResult<Backlog> {
        let mut conn = self.conn().await?;
        queue::backlog(
            &mut conn,
            "SELECT count(*) AS count, min(created_at) AS oldest FROM emails \
             WHERE status IN ('pending', 'sending')",
        )
        .await
    }

    async fn sweep_mail(&self, before: OffsetDateTime) -> DomainResult<u64> {
        let mut conn = self.conn().await?;
        delete_in_batches(
            &mut conn,
            "DELETE FROM emails WHERE (team_id, id) IN ( \
               SELECT team_id, id FROM emails \
               WHERE created_at < $1 AND status IN ('sent', 'failed') LIMIT $2)",
            before,
        )
        .await
    }
}
