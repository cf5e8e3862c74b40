//! `DeliveryQueue` on PostgreSQL: claims in one short statement with `FOR UPDATE SKIP LOCKED`
//! and a lease token, outcomes recorded by one statement fenced by that token.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{
    Array, BigInt, Bool, Integer, Nullable, Text, Timestamptz, Uuid as SqlUuid,
};
use diesel_async::RunQueryDsl;
use procflow_domain::error::{DomainResult, Resource};
use procflow_domain::ids::{DeliveryId, EventId, TeamId, WebhookId};
use procflow_domain::ports::{Backlog, DeliveryQueue};
use procflow_domain::values::{Cursor, Page, PageRequest};
use procflow_domain::webhook::{
    ClaimedDelivery, Delivery, DeliveryFilter, EndpointEffect, FAILURES_BEFORE_DISABLE,
    NewDelivery, Settlement, SigningSecrets, WebhookSecret,
};
use time::OffsetDateTime;
use uuid::Uuid;

use super::queue::{self, Settled};
use super::sweep::delete_in_batches;
use super::{PgStore, not_found};
use crate::error::{corrupt, db_error};
use crate::rows::webhook::{DeliveryRow, NewDeliveryRow};
use crate::rows::{parse, to_i32, to_u32};
use crate::schema::{webhook_deliveries, webhook_endpoints};

#[derive(QueryableByName)]
struct ClaimedRow {
    #[diesel(sql_type = SqlUuid)]
    team_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    webhook_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    event_id: Uuid,
    #[diesel(sql_type = Text)]
    event: String,
    #[diesel(sql_type = Text)]
    origin: String,
    #[diesel(sql_type = Integer)]
    attempts: i32,
    #[diesel(sql_type = Text)]
    payload: String,
    #[diesel(sql_type = Text)]
    url: String,
    #[diesel(sql_type = Bool)]
    enabled: bool,
    #[diesel(sql_type = Text)]
    secret: String,
    #[diesel(sql_type = Nullable<Text>)]
    previous_secret: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    previous_secret_until: Option<OffsetDateTime>,
}

fn secret(text: &str) -> DomainResult<WebhookSecret> {
    WebhookSecret::parse(text).map_err(|e| corrupt("webhook secret", e))
}

impl ClaimedRow {
    fn into_domain(self, lease: Uuid) -> DomainResult<ClaimedDelivery> {
        let previous = match (self.previous_secret, self.previous_secret_until) {
            (Some(text), Some(until)) => Some((secret(&text)?, until)),
            _ => None,
        };
        Ok(ClaimedDelivery {
            id: DeliveryId::from_uuid(self.id),
            team_id: TeamId::from_uuid(self.team_id),
            webhook_id: WebhookId::from_uuid(self.webhook_id),
            event_id: EventId::from_uuid(self.event_id),
            event: parse("webhook event", &self.event)?,
            origin: parse("delivery origin", &self.origin)?,
            attempt: to_u32("attempts", self.attempts)?,
            lease,
            payload: self.payload,
            url: parse("webhook url", &self.url)?,
            secrets: SigningSecrets {
                current: secret(&self.secret)?,
                previous,
            },
            endpoint_enabled: self.enabled,
        })
    }
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    count: i64,
}

#[async_trait]
impl DeliveryQueue for PgStore {
    async fn enqueue(&self, deliveries: &[NewDelivery]) -> DomainResult<()> {
        if deliveries.is_empty() {
            return Ok(());
        }
        let rows: Vec<NewDeliveryRow> =
            deliveries.iter().map(NewDeliveryRow::from_domain).collect();
        let column = |f: fn(&NewDeliveryRow) -> Uuid| rows.iter().map(f).collect::<Vec<_>>();
        let mut conn = self.conn().await?;
        // One statement whatever the count; deliveries to an endpoint gone meanwhile find no
        // row to join, and a fan-out repeated after a crash meets the unique index.
        diesel::sql_query(
            "INSERT INTO webhook_deliveries \
               (team_id, id, webhook_id, event_id, event, origin, status, payload, created_at, due_at) \
             SELECT d.team_id, d.id, d.webhook_id, d.event_id, d.event, d.origin, 'pending', \
                    d.payload, d.created_at, d.created_at \
             FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], \
                         $7::text[], $8::timestamptz[]) \
                  AS d(team_id, id, webhook_id, event_id, event, origin, payload, created_at) \
             JOIN webhook_endpoints e ON e.team_id = d.team_id AND e.id = d.webhook_id \
             ON CONFLICT DO NOTHING",
        )
        .bind::<Array<SqlUuid>, _>(column(|r| r.team_id))
        .bind::<Array<SqlUuid>, _>(column(|r| r.id))
        .bind::<Array<SqlUuid>, _>(column(|r| r.webhook_id))
        .bind::<Array<SqlUuid>, _>(column(|r| r.event_id))
        .bind::<Array<Text>, _>(rows.iter().map(|r| r.event).collect::<Vec<_>>())
        .bind::<Array<Text>, _>(rows.iter().map(|r| r.origin).collect::<Vec<_>>())
        .bind::<Array<Text>, _>(rows.iter().map(|r| r.payload.as_str()).collect::<Vec<_>>())
        .bind::<Array<Timestamptz>, _>(rows.iter().map(|r| r.created_at).collect::<Vec<_>>())
        .execute(&mut conn)
        .await
        .map_err(db_error)?;
        drop(conn);
        self.ring();
        Ok(())
    }

    async fn claim_due(
        &self,
        limit: usize,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        lease: Uuid,
    ) -> DomainResult<Vec<ClaimedDelivery>> {
        let mut conn = self.conn().await?;
        let rows: Vec<ClaimedRow> = diesel::sql_query(
            "WITH due AS ( \
               SELECT team_id, id FROM webhook_deliveries \
               WHERE status IN ('pending', 'delivering') AND due_at <= $1 \
               ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED) \
             UPDATE webhook_deliveries d \
             SET status = 'delivering', attempts = d.attempts + 1, lease = $3, due_at = $4, \
                 last_attempt_at = $1 \
             FROM due, webhook_endpoints e \
             WHERE d.team_id = due.team_id AND d.id = due.id \
               AND e.team_id = d.team_id AND e.id = d.webhook_id \
             RETURNING d.team_id, d.id, d.webhook_id, d.event_id, d.event, d.origin, d.attempts, \
                       d.payload, e.url, e.enabled, e.secret, e.previous_secret, \
                       e.previous_secret_until",
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

    async fn settle(
        &self,
        claimed: &ClaimedDelivery,
        settlement: &Settlement,
    ) -> DomainResult<bool> {
        let effect = match settlement.endpoint {
            EndpointEffect::None => 0,
            EndpointEffect::Delivered => 1,
            EndpointEffect::Failed => 2,
        };
        let mut conn = self.conn().await?;
        // One statement, so one transaction: the delivery (only while still held under this
        // lease) and its endpoint's failure count, as WebhookEndpoint::after_delivery decides.
        let settled: Vec<Count> = diesel::sql_query(
            "WITH settled AS ( \
               UPDATE webhook_deliveries \
               SET status = $4, response_status = $5, response_body = $6, error = $7, \
                   last_attempt_at = $8, due_at = coalesce($9, due_at), lease = NULL \
               WHERE team_id = $1 AND id = $2 AND lease = $3 AND status = 'delivering' \
               RETURNING team_id, webhook_id), \
             counted AS ( \
               UPDATE webhook_endpoints e SET \
                 consecutive_failures = CASE WHEN $10 = 1 THEN 0 ELSE e.consecutive_failures + 1 END, \
                 enabled = e.enabled AND NOT ($10 = 2 AND e.consecutive_failures + 1 >= $11), \
                 disabled_reason = CASE WHEN $10 = 2 AND e.enabled AND e.consecutive_failures + 1 >= $11 \
                                        THEN 'consecutive_failures' ELSE e.disabled_reason END \
               FROM settled \
               WHERE $10 <> 0 AND e.team_id = settled.team_id AND e.id = settled.webhook_id \
                 AND NOT ($10 = 1 AND e.consecutive_failures = 0) \
               RETURNING 1) \
             SELECT count(*) AS count FROM settled",
        )
        .bind::<SqlUuid, _>(claimed.team_id.as_uuid())
        .bind::<SqlUuid, _>(claimed.id.as_uuid())
        .bind::<SqlUuid, _>(claimed.lease)
        .bind::<Text, _>(settlement.status.as_str())
        .bind::<Nullable<Integer>, _>(settlement.response_status.map(i32::from))
        .bind::<Nullable<Text>, _>(settlement.response_body.as_deref())
        .bind::<Nullable<Text>, _>(settlement.error.as_deref())
        .bind::<Timestamptz, _>(settlement.attempted_at)
        .bind::<Nullable<Timestamptz>, _>(settlement.next_attempt_at)
        .bind::<Integer, _>(effect)
        .bind::<Integer, _>(to_i32(FAILURES_BEFORE_DISABLE))
        .load(&mut conn)
        .await
        .map_err(db_error)?;
        Ok(settled.iter().any(|row| row.count > 0))
    }

    async fn settle_all(
        &self,
        settled: &[(ClaimedDelivery, Settlement)],
    ) -> DomainResult<Vec<bool>> {
        // Retries and deliveries in one statement; the few outcomes that count a failure (and
        // may disable an endpoint) one by one, after them, in order.
        let (batch, single): (Vec<usize>, Vec<usize>) =
            (0..settled.len()).partition(|&i| settled[i].1.endpoint != EndpointEffect::Failed);
        let mut recorded = vec![false; settled.len()];
        if !batch.is_empty() {
            let rows: Vec<&(ClaimedDelivery, Settlement)> =
                batch.iter().map(|&i| &settled[i]).collect();
            let mut conn = self.conn().await?;
            let done: Vec<Settled> = diesel::sql_query(
                "WITH input AS ( \
                   SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::int4[], \
                                        $6::text[], $7::text[], $8::timestamptz[], $9::timestamptz[], \
                                        $10::bool[]) \
                   AS i(team_id, id, lease, status, response_status, response_body, error, \
                        attempted_at, next_attempt_at, delivered)), \
                 settled AS ( \
                   UPDATE webhook_deliveries d \
                   SET status = i.status, response_status = i.response_status, \
                       response_body = i.response_body, error = i.error, \
                       last_attempt_at = i.attempted_at, \
                       due_at = coalesce(i.next_attempt_at, d.due_at), lease = NULL \
                   FROM input i \
                   WHERE d.team_id = i.team_id AND d.id = i.id AND d.lease = i.lease \
                     AND d.status = 'delivering' \
                   RETURNING d.team_id, d.id, d.webhook_id, i.delivered), \
                 reset AS ( \
                   UPDATE webhook_endpoints e SET consecutive_failures = 0 \
                   FROM (SELECT DISTINCT team_id, webhook_id FROM settled WHERE delivered) s \
                   WHERE e.team_id = s.team_id AND e.id = s.webhook_id \
                     AND e.consecutive_failures <> 0 \
                   RETURNING 1) \
                 SELECT id FROM settled",
            )
            .bind::<Array<SqlUuid>, _>(rows.iter().map(|(c, _)| c.team_id.as_uuid()).collect::<Vec<_>>())
            .bind::<Array<SqlUuid>, _>(rows.iter().map(|(c, _)| c.id.as_uuid()).collect::<Vec<_>>())
            .bind::<Array<SqlUuid>, _>(rows.iter().map(|(c, _)| c.lease).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(rows.iter().map(|(_, s)| s.status.as_str()).collect::<Vec<_>>())
            .bind::<Array<Nullable<Integer>>, _>(
                rows.iter().map(|(_, s)| s.response_status.map(i32::from)).collect::<Vec<_>>(),
            )
            .bind::<Array<Nullable<Text>>, _>(
                rows.iter().map(|(_, s)| s.response_body.as_deref()).collect::<Vec<_>>(),
            )
            .bind::<Array<Nullable<Text>>, _>(rows.iter().map(|(_, s)| s.error.as_deref()).collect::<Vec<_>>())
            .bind::<Array<Timestamptz>, _>(rows.iter().map(|(_, s)| s.attempted_at).collect::<Vec<_>>())
            .bind::<Array<Nullable<Timestamptz>>, _>(
                rows.iter().map(|(_, s)| s.next_attempt_at).collect::<Vec<_>>(),
            )
            .bind::<Array<Bool>, _>(
                rows.iter()
                    .map(|(_, s)| s.endpoint == EndpointEffect::Delivered)
                    .collect::<Vec<_>>(),
            )
            .load(&mut conn)
            .await
            .map_err(db_error)?;
            for i in batch {
                recorded[i] = done.iter().any(|row| row.id == settled[i].0.id.as_uuid());
            }
        }
        for i in single {
            recorded[i] = self.settle(&settled[i].0, &settled[i].1).await?;
        }
        Ok(recorded)
    }

    async fn release(&self, lease: Uuid, now: OffsetDateTime) -> DomainResult<u64> {
        let mut conn = self.conn().await?;
        let released = diesel::update(
            webhook_deliveries::table
                .filter(webhook_deliveries::lease.eq(lease))
                .filter(webhook_deliveries::status.eq("delivering")),
        )
        .set((
            webhook_deliveries::status.eq("pending"),
            webhook_deliveries::due_at.eq(now),
            webhook_deliveries::attempts.eq(webhook_deliveries::attempts - 1),
            webhook_deliveries::lease.eq(None::<Uuid>),
        ))
        .execute(&mut conn)
        .await
        .map_err(db_error)?;
        Ok(released as u64)
    }

    async fn list_deliveries(
        &self,
        team: TeamId,
        webhook: WebhookId,
        filter: DeliveryFilter,
        page: PageRequest,
    ) -> DomainResult<Page<Delivery>> {
        let mut conn = self.conn().await?;
        let exists: Option<Uuid> = webhook_endpoints::table
            .filter(webhook_endpoints::team_id.eq(team.as_uuid()))
            .filter(webhook_endpoints::id.eq(webhook.as_uuid()))
            .select(webhook_endpoints::id)
            .first(&mut conn)
            .await
            .optional()
            .map_err(db_error)?;
        if exists.is_none() {
            return Err(not_found(Resource::Webhook));
        }
        let log = || {
            let query = webhook_deliveries::table
                .filter(webhook_deliveries::team_id.eq(team.as_uuid()))
                .filter(webhook_deliveries::webhook_id.eq(webhook.as_uuid()))
                .into_boxed();
            match filter.status {
                Some(status) => query.filter(webhook_deliveries::status.eq(status.as_str())),
                None => query,
            }
        };
        let mut query = log();
        if let Some(cursor) = page.cursor {
            let found: Option<Uuid> = log()
                .filter(webhook_deliveries::id.eq(cursor.id()))
                .select(webhook_deliveries::id)
                .first(&mut conn)
                .await
                .optional()
                .map_err(db_error)?;
            found.ok_or_else(Cursor::unknown)?;
            query = query.filter(webhook_deliveries::id.lt(cursor.id()));
        }
        let rows: Vec<DeliveryRow> = query
            .order(webhook_deliveries::id.desc())
            .limit(i64::try_from(page.limit.get() + 1).unwrap_or(i64::MAX))
            .select(DeliveryRow::as_select())
            .load(&mut conn)
            .await
            .map_err(db_error)?;
        let deliveries = rows
            .into_iter()
            .map(DeliveryRow::into_domain)
            .collect::<DomainResult<Vec<_>>>()?;
        Ok(Page::from_fetched(deliveries, page.limit, |d| {
            d.id.as_uuid()
        }))
    }

    async fn get_delivery(&self, team: TeamId, id: DeliveryId) -> DomainResult<Delivery> {
        let mut conn = self.conn().await?;
        webhook_deliveries::table
            .filter(webhook_deliveries::team_id.eq(team.as_uuid()))
            .filter(webhook_deliveries::id.eq(id.as_uuid()))
            .select(DeliveryRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(db_error)?
            .ok_or(not_found(Resource::Delivery))?
            .into_domain()
    }

    async fn sweep_deliveries(&self, before: OffsetDateTime) -> DomainResult<u64> {
        let mut conn = self.conn().await?;
        delete_in_batches(
            &mut conn,
            "DELETE FROM webhook_deliveries WHERE (team_id, id) IN ( \
               SELECT team_id, id FROM webhook_deliveries \
               WHERE created_at < $1 AND status IN ('delivered', 'failed') LIMIT $2)",
            before,
        )
        .await
    }

    async fn backlog(&self) -> DomainResult<Backlog> {
        let mut conn = self.conn().await?;
        queue::backlog(
            &mut conn,
            "SELECT count(*) AS count, min(created_at) AS oldest FROM webhook_deliveries \
             WHERE status IN ('pending', 'delivering')",
        )
        .await
    }
}
