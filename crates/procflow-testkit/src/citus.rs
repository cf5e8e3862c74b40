//! Test databases on a Citus coordinator (`CITUS_URL`, `make test-citus`): a database of Citus
//! cannot be cloned from a template (its shards live on the workers), and making one per test
//! means creating it and the extension on every node. So each test gets a schema of its own in
//! the coordinator's database instead, migrated (and distributed: `procflow migrate` does it on
//! Citus) from scratch, and dropped with its tables and shards when the test ends. Its URL
//! sets `search_path` to the schema, and two shards per table (the tests make many schemas).

use crate::admin;
use crate::error::BoxError;
use crate::naming::{next_test_db_name, quote_ident};

/// The variable naming the coordinator to test against.
pub(crate) const CITUS_URL: &str = "CITUS_URL";

/// The coordinator given, if any.
pub(crate) fn coordinator() -> Option<String> {
    std::env::var(CITUS_URL).ok().filter(|url| !url.is_empty())
}

/// `url` with the options that put a connection in `schema`.
pub(crate) fn url_in(url: &str, schema: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}options=-c%20search_path%3D{schema}%20-c%20citus.shard_count%3D2")
}

/// How many schemas a test's migration is tried on. The tests migrate and drop several schemas
/// at once, whose tables are colocated and so share Citus's metadata: Citus cancels one of two
/// migrations that deadlock on it, and a migration may look up an index of another test's
/// schema dropped meanwhile ("cache lookup failed"). The migration that lost such a race is
/// run again, from scratch on a fresh schema.
const ATTEMPTS: usize = 3;

/// A new schema on the coordinator, migrated by `migrate`; returns its name and URL.
pub(crate) async fn create<F>(coordinator: &str, migrate: F) -> Result<(String, String), String>
where
    F: AsyncFn(&str) -> Result<(), BoxError>,
{
    let admin = admin::connect(coordinator)
        .await
        .map_err(|err| err.to_string())?;
    let mut attempt = 1;
    loop {
        let schema = next_test_db_name();
        admin::execute(&admin, &format!("CREATE SCHEMA {}", quote_ident(&schema)))
            .await
            .map_err(|err| err.to_string())?;
        let url = url_in(coordinator, &schema);
        let failure = match migrate(&url).await {
            Ok(()) => return Ok((schema, url)),
            Err(err) => format!("migrating the schema {schema} on Citus: {err}"),
        };
        if attempt == ATTEMPTS || !lost_a_race(&failure) {
            return Err(failure);
        }
        drop_schema(coordinator, &schema).await?;
        attempt += 1;
    }
}

/// Whether a migration failed for another test's DDL beside it: as the victim of a deadlock
/// (Citus: "canceling the transaction since it was involved in a distributed deadlock";
/// PostgreSQL: "deadlock detected"), or looking up a catalog entry dropped meanwhile
/// ("cache lookup failed for index 832467").
fn lost_a_race(failure: &str) -> bool {
    failure.contains("deadlock") || failure.contains("cache lookup failed")
}

/// Drops a test's schema, its tables and their shards.
pub(crate) async fn drop_schema(coordinator: &str, schema: &str) -> Result<(), String> {
    let admin = admin::connect(coordinator)
        .await
        .map_err(|err| err.to_string())?;
    let sql = format!("DROP SCHEMA IF EXISTS {} CASCADE", quote_ident(schema));
    admin::execute(&admin, &sql)
        .await
        .map_err(|err| err.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_race_with_another_tests_ddl_is_tried_again() {
        assert!(lost_a_race(
            "migration failed: canceling the transaction since it was involved in a distributed \
             deadlock"
        ));
        assert!(lost_a_race("migration failed: deadlock detected"));
        assert!(lost_a_race(
            "migration failed: cache lookup failed for index 832467"
        ));
        assert!(!lost_a_race(
            "migration failed: relation \"runs\" already exists"
        ));
    }
}
