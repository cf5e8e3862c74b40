//! `Outbox` on PostgreSQL: leases taken by an `UPDATE` that checks again that each event is
//! still unleased (no row lock across teams: Citus refuses one), so workers on several
//! instances never hold the same event at once; events that cannot be read are set aside
//! (`dead_at`) rather than claimed again. Claims are taken in turn ([`super::claims`]).

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Jsonb, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use procflow_domain::error::DomainResult;
use procflow_domain::event::from_stored;
use procflow_domain::ids::{EventId, TeamId};
use procflow_domain::ports::{DeadEvent, Outbox, OutboxEntry};
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use super::PgStore;
use super::by_text::ByText;
use super::claims::{Claims, in_turn};
use super::sweep::delete_in_batches;
use crate::error::db_error;
use crate::rows::to_u32;
use crate::schema::outbox;

#[derive(QueryableByName)]
struct Claimed {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Text)]
    kind: String,
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
        let claim = diesel::sql_query(
            "WITH claimed AS ( \
               UPDATE outbox SET leased_until = $1 \
               WHERE (team_id, id) IN (SELECT team_id, id FROM outbox \
                            WHERE delivered_at IS NULL AND dead_at IS NULL AND due_at <= $2 \
                              AND (leased_until IS NULL OR leased_until <= $2) \
                            ORDER BY due_at, id LIMIT $3) \
                 AND delivered_at IS NULL AND dead_at IS NULL AND due_at <= $2 \
                 AND (leased_until IS NULL OR leased_until <= $2) \
               RETURNING id, kind, due_at, payload, attempts) \
             SELECT id, kind, payload, attempts FROM claimed ORDER BY due_at, id",
        )
        .into_boxed()
        .bind::<Timestamptz, _>(lease_until)
        .bind::<Timestamptz, _>(now)
        .bind::<BigInt, _>(i64::try_from(limit).unwrap_or(i64::MAX));
        let rows: Vec<Claimed> = in_turn(&mut conn, Claims::Outbox, claim).await?;
        rows.into_iter()
            .map(|row| {
                Ok(OutboxEntry {
                    id: EventId::from_uuid(row.id),
                    kind: row.kind,
                    event: from_stored(row.payload),
                    attempts: to_u32("attempts", row.attempts)?,
                })
            })
            .collect()
    }

    async fn complete(&self, ids: &[EventId]) -> DomainResult<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let ids: Vec<Uuid> = ids.iter().map(EventId::as_uuid).collect();
        let mut conn = self.conn().await?;
        // `delivered_at IS NULL` lets the planner use `outbox_pending_id`: the key is
        // (team_id, id), and only undelivered events are settled.
        ByText(
            diesel::update(
                outbox::table
                    .filter(outbox::id.eq_any(ids))
                    .filter(outbox::delivered_at.is_null()),
            )
            .set((
                outbox::delivered_at.eq(diesel::dsl::now),
                outbox::leased_until.eq(None::<OffsetDateTime>),
            )),
        )
        .execute(&mut conn)
        .await
        .map(|_| ())
        .map_err(db_error)
    }

    async fn set_aside(&self, dead: &[(EventId, String)], at: OffsetDateTime) -> DomainResult<()> {
        if dead.is_empty() {
            return Ok(());
        }
        let (ids, errors): (Vec<Uuid>, Vec<&str>) = dead
            .iter()
            .map(|(id, error)| (id.as_uuid(), error.as_str()))
            .unzip();
        let mut conn = self.conn().await?;
        let dead = diesel::sql_query(
            "UPDATE outbox SET dead_at = $1, last_error = d.error, leased_until = NULL \
             FROM unnest($2::uuid[], $3::text[]) AS d(id, error) \
             WHERE outbox.id = d.id AND outbox.delivered_at IS NULL",
        )
        .bind::<Timestamptz, _>(at)
        .bind::<diesel::sql_types::Array<SqlUuid>, _>(ids)
        .bind::<diesel::sql_types::Array<Text>, _>(errors);
        ByText(dead)
            .execute(&mut conn)
            .await
            .map(|_| ())
            .map_err(db_error)
    }

    async fn dead_events(&self, limit: usize) -> DomainResult<Vec<DeadEvent>> {
        let mut conn = self.conn().await?;
        let rows: Vec<(
            Uuid,
            Uuid,
            String,
            OffsetDateTime,
            Option<OffsetDateTime>,
            Option<String>,
        )> = outbox::table
            .filter(outbox::dead_at.is_not_null())
            .order((outbox::dead_at, outbox::id))
            .limit(i64::try_from(limit).unwrap_or(i64::MAX))
            .select((
                outbox::id,
                outbox::team_id,
                outbox::kind,
                outbox::occurred_at,
                outbox::dead_at,
                outbox::last_error,
            ))
            .load(&mut conn)
            .await
            .map_err(db_error)?;
        Ok(rows
            .into_iter()
            .filter_map(|(id, team, kind, occurred_at, dead_at, error)| {
                Some(DeadEvent {
                    id: EventId::from_uuid(id),
                    team_id: TeamId::from_uuid(team),
                    kind,
                    occurred_at,
                    dead_at: dead_at?,
                    error: error.unwrap_or_default(),
                })
            })
            .collect())
    }

    async fn requeue(&self, id: EventId, now: OffsetDateTime) -> DomainResult<bool> {
        let mut conn = self.conn().await?;
        diesel::update(
            outbox::table
                .filter(outbox::id.eq(id.as_uuid()))
                .filter(outbox::dead_at.is_not_null()),
        )
        .set((
            outbox::dead_at.eq(None::<OffsetDateTime>),
            outbox::due_at.eq(now),
            outbox::leased_until.eq(None::<OffsetDateTime>),
            outbox::last_error.eq(None::<String>),
        ))
        .execute(&mut conn)
        .await
        .map(|changed| changed > 0)
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

#[cfg(test)]
mod tests {
    use procflow_domain::ports::Outbox;
    use time::{Duration, OffsetDateTime};

    use crate::testing::{execute, migrated_database, rows};
    use crate::{PgStore, PoolConfig};

    /// Each outbox row's id and the block of the table its current version is in.
    async fn blocks(url: &str) -> Vec<(String, i64)> {
        rows(
            url,
            "SELECT id, (ctid::text::point)[0]::bigint AS block FROM outbox ORDER BY id",
        )
        .await
        .iter()
        .map(|row| {
            (
                row["id"].as_str().expect("an id").to_owned(),
                row["block"].as_i64().expect("a block"),
            )
        })
        .collect()
    }

    #[tokio::test]
    async fn a_claim_rewrites_its_rows_on_the_pages_they_are_on() {
        let db = migrated_database().await;
        // Sixty events of a task_completed event's size (about 800 bytes a row), inserted
        // in id order: the claim below takes the first two, on the table's first page.
        execute(
            db.url(),
            "INSERT INTO teams (id, name, base_url, created_at) \
               VALUES ('00000000-0000-7000-8000-000000000001', 'T', 'https://example.com', now()); \
             INSERT INTO outbox (id, team_id, kind, payload, occurred_at, due_at) \
               SELECT ('00000000-0000-7000-8000-' || lpad(to_hex(n), 12, '0'))::uuid, \
                      '00000000-0000-7000-8000-000000000001', 'process_step.completed', \
                      jsonb_build_object('padding', repeat('x', 700)), \
                      now() - interval '1 minute', now() - interval '1 minute' \
               FROM generate_series(1, 60) AS n",
        )
        .await;
        let before = blocks(db.url()).await;
        let store = PgStore::new(&PoolConfig::new(db.url())).expect("pool");
        let now = OffsetDateTime::now_utc();
        let claimed = store
            .claim(2, now, now + Duration::minutes(1))
            .await
            .expect("claimed");
        assert_eq!(claimed.len(), 2);
        // A new row version on the same page, with no indexed column changed, is a HOT
        // update: no entry in any of the table's eight indexes. On a full page it would go
        // to another one, with an entry in each.
        let after = blocks(db.url()).await;
        let moved: Vec<_> = before
            .iter()
            .zip(&after)
            .filter(|(was, is)| was != is)
            .map(|(was, is)| format!("{} from block {} to {}", was.0, was.1, is.1))
            .collect();
        assert!(moved.is_empty(), "rows moved to other pages: {moved:?}");
        assert_eq!(after.len(), 60);
    }
}
