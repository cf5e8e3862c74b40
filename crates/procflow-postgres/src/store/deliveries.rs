//! `DeliveryQueue` on PostgreSQL: the shared leased queue's statements (`queue.rs`) on
//! `webhook_deliveries`, with what only deliveries have: the endpoint joined to a claim, its
//! failure count changed by an outcome in the same statement, enqueueing and the log.

use std::sync::LazyLock;

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{Array, Bool, Integer, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use procflow_domain::error::{DomainResult, Resource};
use procflow_domain::ids::{DeliveryId, EventId, TeamId, WebhookId};
use procflow_domain::ports::DeliveryQueue;
use procflow_domain::values::{Cursor, Page, PageRequest};
use procflow_domain::webhook::{
    ClaimedDelivery, Deliveries, Delivery, DeliveryFilter, EndpointEffect, FAILURES_BEFORE_DISABLE,
    NewDelivery, Settlement, SigningSecrets, WebhookSecret,
};
use time::OffsetDateTime;
use uuid::Uuid;

use super::by_text::ByText;
use super::claims::Claims;
use super::page_rows::rows_to_fetch;
use super::queue::{
    self, ClaimShape, Column, PgJob, QueueTable, Settled, SettledRow, Statements, bind_settled,
};
use super::{PgStore, not_found};
use crate::error::{corrupt, db_error};
use crate::rows::webhook::{DeliveryRow, NewDeliveryRow};
use crate::rows::{parse, to_i32, to_u32};
use crate::schema::{webhook_deliveries, webhook_endpoints};

#[derive(QueryableByName)]
pub(super) struct ClaimedRow {
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
        let insert = diesel::sql_query(
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
        .bind::<Array<Timestamptz>, _>(rows.iter().map(|r| r.created_at).collect::<Vec<_>>());
        ByText(insert).execute(&mut conn).await.map_err(db_error)?;
        drop(conn);
        self.ring_jobs();
        Ok(())
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
            .limit(rows_to_fetch(page.limit))
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
}

/// The webhook deliveries' statements, from the one builder: the claim joins the endpoint
/// (co-located on `team_id`) for what sending needs; the settle sets the answer and carries
/// the outcome's effect on the endpoint (0 none, 1 delivered, 2 failed).
static QUEUE: LazyLock<Statements> = LazyLock::new(|| {
    QueueTable {
        table: "webhook_deliveries",
        held: "delivering",
        done: "delivered",
        claims: Claims::Deliveries,
    }
    .statements(
        &ClaimShape {
            join: ", webhook_endpoints e",
            on: "AND e.team_id = q.team_id AND e.id = q.webhook_id",
            returning: "q.team_id, q.id, q.webhook_id, q.event_id, q.event, q.origin, \
                        q.attempts, q.payload, e.url, e.enabled, e.secret, e.previous_secret, \
                        e.previous_secret_until",
        },
        &[
            Column {
                name: "response_status",
                array: "int4[]",
                set: true,
            },
            Column {
                name: "response_body",
                array: "text[]",
                set: true,
            },
            Column {
                name: "effect",
                array: "int4[]",
                set: false,
            },
        ],
        ", q.team_id, q.webhook_id, i.effect",
    )
});

/// Outcomes that reset their endpoint's failure count (or leave it), in one statement.
static SETTLE_BATCH: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH settled AS ({}), \
         reset AS ( \
           UPDATE webhook_endpoints e SET consecutive_failures = 0 \
           FROM (SELECT DISTINCT team_id, webhook_id FROM settled WHERE effect = 1) s \
           WHERE e.team_id = s.team_id AND e.id = s.webhook_id \
             AND e.consecutive_failures <> 0 \
           RETURNING 1) \
         SELECT id FROM settled",
        QUEUE.settle
    )
});

/// One outcome and its effect on its endpoint, as `WebhookEndpoint::after_delivery` decides,
/// in one statement (so one transaction); `$11` the failures that disable.
static SETTLE_COUNTED: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH settled AS ({}), \
         counted AS ( \
           UPDATE webhook_endpoints e SET \
             consecutive_failures = CASE WHEN s.effect = 1 THEN 0 \
                                         ELSE e.consecutive_failures + 1 END, \
             enabled = e.enabled AND NOT (s.effect = 2 AND e.consecutive_failures + 1 >= $11), \
             disabled_reason = CASE WHEN s.effect = 2 AND e.enabled \
                                         AND e.consecutive_failures + 1 >= $11 \
                                    THEN 'consecutive_failures' ELSE e.disabled_reason END \
           FROM settled s \
           WHERE s.effect <> 0 AND e.team_id = s.team_id AND e.id = s.webhook_id \
             AND NOT (s.effect = 1 AND e.consecutive_failures = 0) \
           RETURNING 1) \
         SELECT id FROM settled",
        QUEUE.settle
    )
});

fn effect(settlement: &Settlement) -> i32 {
    match settlement.endpoint {
        EndpointEffect::None => 0,
        EndpointEffect::Delivered => 1,
        EndpointEffect::Failed => 2,
    }
}

impl PgStore {
    /// Records `settled` with `statement` (binds: the shared settle's, the deliveries'
    /// columns, then `$11` the failures that disable when `counted`).
    async fn settle_deliveries(
        &self,
        statement: &str,
        settled: &[&(ClaimedDelivery, Settlement)],
        counted: bool,
    ) -> DomainResult<Vec<bool>> {
        let rows: Vec<SettledRow<'_>> = settled
            .iter()
            .map(|(c, s)| Deliveries::settled_row(c, s))
            .collect();
        let mut query = bind_settled(statement, &rows)
            .bind::<Array<Nullable<Integer>>, _>(
                settled
                    .iter()
                    .map(|(_, s)| s.response_status.map(i32::from))
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Nullable<Text>>, _>(
                settled
                    .iter()
                    .map(|(_, s)| s.response_body.as_deref())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Integer>, _>(settled.iter().map(|(_, s)| effect(s)).collect::<Vec<_>>());
        if counted {
            query = query.bind::<Integer, _>(to_i32(FAILURES_BEFORE_DISABLE));
        }
        let mut conn = self.conn().await?;
        let done: Vec<Settled> = ByText(query).load(&mut conn).await.map_err(db_error)?;
        Ok(queue::recorded(
            settled.iter().map(|(c, _)| c.id.as_uuid()),
            &done,
        ))
    }
}

#[async_trait]
impl PgJob for Deliveries {
    type Row = ClaimedRow;

    fn statements() -> &'static Statements {
        &QUEUE
    }

    fn claimed(row: ClaimedRow, lease: Uuid) -> DomainResult<ClaimedDelivery> {
        row.into_domain(lease)
    }

    fn settled_row<'a>(c: &ClaimedDelivery, s: &'a Settlement) -> SettledRow<'a> {
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

    async fn settle(
        store: &PgStore,
        settled: &[(ClaimedDelivery, Settlement)],
    ) -> DomainResult<Vec<bool>> {
        // Retries and deliveries in one statement; the few outcomes that count a failure (and
        // may disable an endpoint) one by one, after them, in order: two failures of one
        // endpoint in one statement would count once.
        let (batch, single): (Vec<usize>, Vec<usize>) =
            (0..settled.len()).partition(|&i| settled[i].1.endpoint != EndpointEffect::Failed);
        let mut recorded = vec![false; settled.len()];
        if !batch.is_empty() {
            let rows: Vec<&(ClaimedDelivery, Settlement)> =
                batch.iter().map(|&i| &settled[i]).collect();
            let done = store.settle_deliveries(&SETTLE_BATCH, &rows, false).await?;
            for (i, done) in batch.into_iter().zip(done) {
                recorded[i] = done;
            }
        }
        for i in single {
            let done = store
                .settle_deliveries(&SETTLE_COUNTED, &[&settled[i]], true)
                .await?;
            recorded[i] = done.into_iter().next().unwrap_or(false);
        }
        Ok(recorded)
    }
}
