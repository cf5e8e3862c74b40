//! Sweeps of rows past their retention: deleted in batches, each its own statement, so that a
//! sweep after a long pause holds no lock for long and never rewrites a whole table at once.

use diesel::sql_types::{BigInt, Timestamptz};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use procflow_domain::error::DomainResult;
use time::OffsetDateTime;

use crate::error::db_error;

/// Rows deleted per statement.
pub(crate) const SWEEP_BATCH: i64 = 5_000;

/// Runs `delete` (binds: `$1` = `before`, `$2` = the batch size, which its `LIMIT` must use)
/// until a batch deletes fewer rows than the batch size; how many rows it deleted in all.
pub(crate) async fn delete_in_batches(
    conn: &mut AsyncPgConnection,
    delete: &'static str,
    before: OffsetDateTime,
) -> DomainResult<u64> {
    let mut swept = 0;
    loop {
        let deleted = diesel::sql_query(delete)
            .bind::<Timestamptz, _>(before)
            .bind::<BigInt, _>(SWEEP_BATCH)
            .execute(conn)
            .await
            .map_err(db_error)?;
        swept += deleted as u64;
        if (deleted as i64) < SWEEP_BATCH {
            return Ok(swept);
        }
    }
}
