//! `HealthCheck` on PostgreSQL: the readiness probe is a `SELECT 1` through the pool.

use async_trait::async_trait;
use procflow_domain::error::DomainResult;
use procflow_domain::ports::HealthCheck;

use super::PgStore;

#[async_trait]
impl HealthCheck for PgStore {
    async fn ping(&self) -> DomainResult<()> {
        PgStore::ping(self).await
    }
}
