//! Test support (feature `testing`): a throwaway database with every migration applied, the
//! one way the tests and examples of procflow get a migrated database.

pub use procflow_testkit::TestDatabase;

/// A fresh database of the test server (see `procflow-testkit`) with every migration of
/// `migrations/` applied; it is dropped with the value.
///
/// It is cloned from a template database migrated once per server and key. The key carries a
/// fingerprint of `migrations/`, because on a server kept across runs (`DATABASE_URL`) the
/// template outlives the process: a changed migration must make a new template, not reuse a
/// stale one.
///
/// # Panics
/// When `migrations/` cannot be read (it is read from the source tree), or as
/// [`TestDatabase::create`] panics: no server, a failing migration.
#[expect(
    clippy::panic,
    reason = "test support fails loudly rather than skipping a test"
)]
pub async fn migrated_database() -> TestDatabase {
    let migrations = concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations");
    let fingerprint = procflow_testkit::dir_fingerprint(migrations)
        .unwrap_or_else(|err| panic!("procflow-postgres: reading {migrations}: {err}"));
    TestDatabase::create(&format!("store_{fingerprint}"), async |url: &str| {
        crate::migrate(url).await.map(|_| ()).map_err(Into::into)
    })
    .await
}

/// Runs `sql` (statements without parameters; results dropped) on the database at `url`: how
/// tests outside this crate write rows the service never writes, such as an outbox event an
/// older version or a hand left, without a database driver of their own.
///
/// # Panics
/// When the database cannot be reached or a statement fails.
#[expect(
    clippy::panic,
    reason = "test support fails loudly rather than skipping a test"
)]
pub async fn execute(url: &str, sql: &str) {
    use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};

    let mut conn = AsyncPgConnection::establish(url)
        .await
        .unwrap_or_else(|err| panic!("procflow-postgres: connecting to the test database: {err}"));
    conn.batch_execute(sql)
        .await
        .unwrap_or_else(|err| panic!("procflow-postgres: {sql}: {err}"));
}

/// A session of its own holding the `runs` table (`ACCESS EXCLUSIVE`, in a transaction left
/// open), as a migration or a stuck transaction would: every statement on `runs` waits for it
/// until the session is dropped or rolls back.
///
/// # Panics
/// When the database cannot be reached or the lock taken.
#[expect(
    clippy::panic,
    reason = "test support fails loudly rather than skipping a test"
)]
pub async fn lock_runs(url: &str) -> diesel_async::AsyncPgConnection {
    use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};

    let mut locker = AsyncPgConnection::establish(url)
        .await
        .unwrap_or_else(|err| panic!("procflow-postgres: connecting to the test database: {err}"));
    locker
        .batch_execute("BEGIN; LOCK TABLE runs IN ACCESS EXCLUSIVE MODE")
        .await
        .unwrap_or_else(|err| panic!("procflow-postgres: locking runs: {err}"));
    locker
}

/// The session's `lock_timeout` as PostgreSQL shows it (`"5s"`, `"1234ms"`).
///
/// # Panics
/// When the query fails.
#[expect(
    clippy::panic,
    reason = "test support fails loudly rather than skipping a test"
)]
pub async fn lock_timeout(conn: &mut diesel_async::AsyncPgConnection) -> String {
    use diesel_async::RunQueryDsl;

    #[derive(diesel::QueryableByName)]
    struct Setting {
        #[diesel(sql_type = diesel::sql_types::Text)]
        value: String,
    }
    let setting: Setting = diesel::sql_query("SELECT current_setting('lock_timeout') AS value")
        .get_result(conn)
        .await
        .unwrap_or_else(|err| panic!("procflow-postgres: current_setting: {err}"));
    setting.value
}

/// How many statements the session `conn` holds prepared whose text is `LIKE` `pattern`: how
/// the store's tests check that a statement is kept prepared rather than parsed again.
///
/// # Panics
/// When the query fails.
#[expect(
    clippy::panic,
    reason = "test support fails loudly rather than skipping a test"
)]
pub async fn prepared_statements(conn: &mut diesel_async::AsyncPgConnection, pattern: &str) -> i64 {
    use diesel_async::RunQueryDsl;

    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let counted: Count = diesel::sql_query(
        "SELECT count(*) AS n FROM pg_prepared_statements WHERE statement LIKE $1",
    )
    .bind::<diesel::sql_types::Text, _>(pattern)
    .get_result(conn)
    .await
    .unwrap_or_else(|err| panic!("procflow-postgres: pg_prepared_statements: {err}"));
    counted.n
}

/// The rows `sql` (a query without parameters) answers, each as a JSON object of its columns:
/// how tests outside this crate read what the service stores without a database driver of
/// their own.
///
/// # Panics
/// When the database cannot be reached or the query fails.
#[expect(
    clippy::panic,
    reason = "test support fails loudly rather than skipping a test"
)]
pub async fn rows(url: &str, sql: &str) -> Vec<serde_json::Value> {
    use diesel::QueryableByName;
    use diesel::sql_types::Text;
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};

    #[derive(QueryableByName)]
    struct Row {
        #[diesel(sql_type = Text)]
        row: String,
    }
    let mut conn = AsyncPgConnection::establish(url)
        .await
        .unwrap_or_else(|err| panic!("procflow-postgres: connecting to the test database: {err}"));
    let rows: Vec<Row> =
        // A materialized CTE, not a subquery: Citus names the columns of a subquery it plans
        // on the workers f1, f2...
        diesel::sql_query(format!(
            "WITH q AS MATERIALIZED ({sql}) SELECT to_jsonb(q)::text AS row FROM q"
        ))
            .load(&mut conn)
            .await
            .unwrap_or_else(|err| panic!("procflow-postgres: {sql}: {err}"));
    rows.into_iter()
        .map(|r| serde_json::from_str(&r.row).unwrap_or_else(|err| panic!("{sql}: {err}")))
        .collect()
}

/// Reverts the applied migrations, newest first, down to and including `version` (a
/// directory name's leading timestamp, such as `2026-11-27-000300`): how a test puts a
/// database in the shape an older version left, to check what a migration makes of its rows.
/// Answers the versions reverted.
///
/// # Panics
/// When the database cannot be reached, a `down.sql` fails, or `version` was not applied.
#[expect(
    clippy::panic,
    reason = "test support fails loudly rather than skipping a test"
)]
pub async fn revert_through(url: &str, version: &str) -> Vec<String> {
    use diesel_migrations::MigrationHarness;

    let target = version.replace('-', "");
    crate::migrate::with_connection(url, move |conn| {
        let mut reverted = Vec::new();
        loop {
            let applied = conn.applied_migrations()?;
            if !applied
                .iter()
                .any(|v| v.to_string().replace('-', "") == target)
            {
                return Ok(reverted);
            }
            reverted.push(conn.revert_last_migration(crate::MIGRATIONS)?.to_string());
        }
    })
    .await
    .unwrap_or_else(|err| panic!("procflow-postgres: reverting through {version}: {err}"))
}

/// The lines of `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF)` of `statement` on `conn`
/// (the plan tests write out the statement the store builds: diesel has no EXPLAIN).
///
/// # Panics
/// When the statement cannot be explained.
#[expect(
    clippy::panic,
    reason = "test support fails loudly rather than skipping a test"
)]
pub async fn explained(conn: &mut diesel_async::AsyncPgConnection, statement: &str) -> Vec<String> {
    use diesel::QueryableByName;
    use diesel::sql_types::Text;
    use diesel_async::RunQueryDsl;

    #[derive(QueryableByName)]
    struct PlanLine {
        #[diesel(sql_type = Text, column_name = "QUERY PLAN")]
        line: String,
    }
    let lines: Vec<PlanLine> = diesel::sql_query(format!(
        "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) {statement}"
    ))
    .load(conn)
    .await
    .unwrap_or_else(|err| panic!("procflow-postgres: EXPLAIN {statement}: {err}"));
    lines.into_iter().map(|l| l.line).collect()
}
