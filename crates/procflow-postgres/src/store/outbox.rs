//! `Outbox` on PostgreSQL: leases with `FOR UPDATE SKIP LOCKED`, so workers on several
//! instances never hold the same event at once.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Jsonb, Timestamptz};
use diesel_async::RunQueryDsl;
use procflow_domain::error::DomainResult;
use procflow_domain::ids::EventId;
use procflow_domain::ports::{Outbox, OutboxEntry};
use serde_json::Value;
use time::OffsetDateTime;

use super::PgStore;
use super::sweep::delete_in_batches;
use crate::error::db_error;
use crate::rows::outbox::event_of;
use crate::rows::to_u32;
use crate::schema::outbox;

#[derive(QueryableByName)]
struct Claimed {
    #[diesel(sql_type = Jsonb)]
    payload: Value,
    #[diesel(sql_type = Integer)]
    attempts: i32,
}

#[async_trait]
impl Outbox for PgStore {
    async fn claim(
        &self,
        limit: usize,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
    ) -> DomainResult<Vec<OutboxEntry>> {
        let mut conn = self.conn().await?;
        let rows: Vec<Claimed> = diesel::sql_query(
            "WITH claimed AS ( \
               UPDATE outbox SET leased_until = $1 \
               WHERE (team_id, id) IN (SELECT team_id, id FROM outbox \
                            WHERE delivered_at IS NULL AND due_at <= $2 \
                              AND (leased_until IS NULL OR leased_until <= $2) \
                            ORDER BY due_at, id LIMIT $3 FOR UPDATE SKIP LOCKED) \
               RETURNING id, due_at, payload, attempts) \
             SELECT payload, attempts FROM claimed ORDER BY due_at, id",
        )
        .bind::<Timestamptz, _>(lease_until)
        .bind::<Timestamptz, _>(now)
        .bind::<BigInt, _>(i64::try_from(limit).unwrap_or(i64::MAX))
        .load(&mut conn)
        .await
        .map_err(db_error)?;
        rows.into_iter()
            .map(|row| {
                Ok(OutboxEntry {
                    event: event_of(row.payload)?,
                    attempts: to_u32("attempts", row.attempts)?,
                })
            })
            .collect()
    }

    async fn complete(&self, ids: &[EventId]) -> DomainResult<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let ids: Vec<uuid::Uuid> = ids.iter().map(EventId::as_uuid).collect();
        let mut conn = self.conn().await?;
        // `delivered_at IS NULL` lets the planner use `outbox_pending_id`: the key is
        // (team_id, id), and only undelivered events are settled.
        diesel::update(
            outbox::table
                .filter(outbox::id.eq_any(ids))
                .filter(outbox::delivered_at.is_null()),
        )
        .set((
            outbox::delivered_at.eq(diesel::dsl::now),
            outbox::leased_until.eq(None::<OffsetDateTime>),
        ))
        .execute(&mut conn)
        .await
        .map(|_| ())
        .map_err(db_error)
    }

    async fn retry(&self, id: EventId, retry_at: OffsetDateTime, error: &str) -> DomainResult<()> {
        let mut conn = self.conn().await?;
        diesel::update(
            outbox::table
                .filter(outbox::id.eq(id.as_uuid()))
                .filter(outbox::delivered_at.is_null()),
        )
        .set((
            outbox::attempts.eq(outbox::attempts + 1),
            outbox::due_at.eq(retry_at),
            outbox::leased_until.eq(None::<OffsetDateTime>),
            outbox::last_error.eq(error),
        ))
        .execute(&mut conn)
        .await
        .map(|_| ())
        .map_err(db_error)
    }

    async fn sweep_events(&self, before: OffsetDateTime) -> DomainResult<u64> {
        let mut conn = self.conn().await?;
        delete_in_batches(
            &mut conn,
            "DELETE FROM outbox WHERE (team_id, id) IN (SELECT team_id, id FROM outbox \
             WHERE delivered_at IS NOT NULL AND occurred_at < $1 LIMIT $2)",
            before,
        )
        .await
    }
}
