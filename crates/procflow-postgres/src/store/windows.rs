//! `WindowLimiter` on PostgreSQL: one `rate_windows` row per name holds the admitted events of
//! its window. A decision locks the rows of its names in name order (so two decisions sharing
//! names cannot deadlock), decides with the domain's `window::admit`, writes the logs back and
//! commits: exact across server instances. Rows idle for a whole window are swept as it goes.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::Timestamptz;
use diesel_async::{AsyncConnection, RunQueryDsl};
use procflow_domain::error::DomainResult;
use procflow_domain::ports::{RateDecision, WindowLimiter};
use procflow_domain::window::{self, WindowLimit};
use time::{Duration, OffsetDateTime};

use super::PgStore;
use crate::error::Failure;
use crate::schema::rate_windows;

/// Rows idle for longer than the window are deleted, at most this many per decision, skipping
/// those another decision holds.
const SWEEP: &str = "\
DELETE FROM rate_windows WHERE name IN ( \
    SELECT name FROM rate_windows WHERE last_hit < $1 \
    ORDER BY last_hit LIMIT 100 FOR UPDATE SKIP LOCKED)";

#[async_trait]
impl WindowLimiter for PgStore {
    async fn admit_all(
        &self,
        limits: &[WindowLimit],
        now: OffsetDateTime,
        window: Duration,
    ) -> DomainResult<RateDecision> {
        let mut limits = limits.to_vec();
        limits.sort();
        limits.dedup_by(|a, b| a.name == b.name);
        let names: Vec<&str> = limits.iter().map(|l| l.name.as_str()).collect();
        let mut conn = self.conn().await?;
        let decision = conn
            .transaction::<_, Failure, _>(async |conn| {
                let fresh: Vec<_> = names
                    .iter()
                    .map(|name| (rate_windows::name.eq(*name), rate_windows::last_hit.eq(now)))
                    .collect();
                diesel::insert_into(rate_windows::table)
                    .values(fresh)
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
                let rows: Vec<(String, Vec<Option<OffsetDateTime>>)> = rate_windows::table
                    .filter(rate_windows::name.eq_any(&names))
                    .order(rate_windows::name)
                    .select((rate_windows::name, rate_windows::hits))
                    .for_update()
                    .load(conn)
                    .await?;
                let mut logs: Vec<Vec<OffsetDateTime>> = names
                    .iter()
                    .map(|name| {
                        rows.iter()
                            .find(|(row, _)| row == name)
                            .map(|(_, hits)| hits.iter().flatten().copied().collect())
                            .unwrap_or_default()
                    })
                    .collect();
                let decision = {
                    let mut refs: Vec<&mut Vec<OffsetDateTime>> = logs.iter_mut().collect();
                    window::admit(&mut refs, &limits, now, window)
                };
                for (name, log) in names.iter().zip(&logs) {
                    let last_hit = log.last().copied().unwrap_or(now - window);
                    let hits: Vec<Option<OffsetDateTime>> = log.iter().copied().map(Some).collect();
                    diesel::update(rate_windows::table.filter(rate_windows::name.eq(*name)))
                        .set((
                            rate_windows::hits.eq(hits),
                            rate_windows::last_hit.eq(last_hit),
                        ))
                        .execute(conn)
                        .await?;
                }
                diesel::sql_query(SWEEP)
                    .bind::<Timestamptz, _>(now - window)
                    .execute(conn)
                    .await?;
                Ok(decision)
            })
            .await?;
        Ok(decision)
    }
}
