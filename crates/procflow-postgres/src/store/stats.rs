//! `StoreStats` on PostgreSQL: the pool's occupancy and the outbox backlog, read at scrape
//! time by `/metrics`.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use procflow_domain::error::DomainResult;
use procflow_domain::ports::{PoolUsage, StoreStats};

use super::PgStore;
use crate::error::db_error;
use crate::schema::outbox;

#[async_trait]
impl StoreStats for PgStore {
    fn pool(&self) -> PoolUsage {
        let status = self.status();
        PoolUsage {
            max_size: status.max_size,
            size: status.size,
            available: status.available,
            waiting: status.waiting,
        }
    }

    async fn outbox_backlog(&self) -> DomainResult<u64> {
        let mut conn = self.conn().await?;
        // An index-only scan of the partial index `outbox_pending`, whose size is the backlog,
        // not the table; events set aside are not in it (they wait for an operator, not for the
        // worker).
        let pending: i64 = outbox::table
            .filter(outbox::delivered_at.is_null())
            .filter(outbox::dead_at.is_null())
            .count()
            .get_result(&mut conn)
            .await
            .map_err(db_error)?;
        Ok(u64::try_from(pending).unwrap_or(0))
    }
}
