//! `TestDatabase` against a real server: isolation, one migration per template, dropping,
//! concurrency, and loud failures.

use std::sync::atomic::{AtomicUsize, Ordering};

use procflow_testkit::{TestDatabase, server_url};
use tokio_postgres::{Client, NoTls};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

async fn connect(url: &str) -> Result<Client, tokio_postgres::Error> {
    let (client, connection) = tokio_postgres::connect(url, NoTls).await?;
    tokio::spawn(connection);
    Ok(client)
}

/// The migration of the tests' template: one table.
async fn create_table(url: &str) -> Result<(), BoxError> {
    let client = connect(url).await?;
    client
        .batch_execute("CREATE TABLE t (x int NOT NULL)")
        .await?;
    Ok(())
}

async fn database() -> TestDatabase {
    TestDatabase::create("testkit_tests", create_table).await
}

async fn count_rows(db: &TestDatabase) -> Result<i64, tokio_postgres::Error> {
    let client = connect(db.url()).await?;
    client
        .query_one("SELECT count(*) FROM t", &[])
        .await?
        .try_get(0)
}

#[tokio::test(flavor = "multi_thread")]
async fn two_databases_are_distinct_and_isolated() {
    let first = database().await;
    let second = database().await;
    assert_ne!(first.name(), second.name());
    assert_ne!(first.url(), second.url());

    let client = connect(first.url()).await.unwrap();
    client
        .batch_execute("INSERT INTO t VALUES (1)")
        .await
        .unwrap();

    assert_eq!(count_rows(&first).await.unwrap(), 1);
    assert_eq!(count_rows(&second).await.unwrap(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_url_names_the_database() {
    let db = database().await;
    let client = connect(db.url()).await.unwrap();
    let current: String = client
        .query_one("SELECT current_database()", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(current, db.name());
    assert!(db.name().starts_with("procflow_test_"), "{}", db.name());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_template_is_migrated_once_for_many_databases() {
    static MIGRATIONS: AtomicUsize = AtomicUsize::new(0);
    let mut databases = Vec::new();
    for _ in 0..3 {
        let db = TestDatabase::create("testkit_migrated_once", async |url: &str| {
            MIGRATIONS.fetch_add(1, Ordering::SeqCst);
            create_table(url).await
        })
        .await;
        assert_eq!(count_rows(&db).await.unwrap(), 0);
        databases.push(db);
    }
    let migrations = MIGRATIONS.load(Ordering::SeqCst);
    if std::env::var_os("DATABASE_URL").is_some() {
        // A shared server may keep the template of an earlier run.
        assert!(migrations <= 1, "{migrations} migrations");
    } else {
        assert_eq!(migrations, 1);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dropped_database_is_gone() {
    let db = database().await;
    let name = db.name().to_owned();
    let _open = connect(db.url()).await.unwrap();
    drop(db);

    let admin = connect(&server_url().await).await.unwrap();
    let left = admin
        .query("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
        .await
        .unwrap();
    assert!(left.is_empty(), "{name} still exists");
}

#[tokio::test(flavor = "multi_thread")]
async fn twenty_databases_created_concurrently_all_work() {
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..20 {
        tasks.spawn(async move {
            let db = TestDatabase::create("testkit_concurrent", create_table).await;
            let client = connect(db.url()).await.unwrap();
            client
                .execute("INSERT INTO t VALUES ($1)", &[&i])
                .await
                .unwrap();
            let rows: Vec<i32> = client
                .query("SELECT x FROM t", &[])
                .await
                .unwrap()
                .iter()
                .map(|row| row.get(0))
                .collect();
            assert_eq!(rows, vec![i]);
            db.name().to_owned()
        });
    }
    let mut names = tasks.join_all().await;
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 20);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_server_url_names_the_maintenance_database() {
    let client = connect(&server_url().await).await.unwrap();
    let current: String = client
        .query_one("SELECT current_database()", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(current, "postgres");
}

#[tokio::test]
async fn it_works_on_a_current_thread_runtime_too() {
    let db = database().await;
    assert_eq!(count_rows(&db).await.unwrap(), 0);
}

#[tokio::test(flavor = "multi_thread")]
#[should_panic(expected = "migrating the template database")]
async fn a_failing_migration_fails_loudly() {
    TestDatabase::create("testkit_failing", async |_url: &str| {
        Err::<(), BoxError>("this migration fails".into())
    })
    .await;
}
