//! Migrations are reversible: every `down.sql` undoes its `up.sql` (`diesel migration redo`).

use procflow_postgres::testing::migrated_database;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_migration_reverts_and_applies_again() {
    let db = migrated_database().await;
    let reverted = procflow_postgres::revert_all(db.url()).await.unwrap();
    let embedded = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations"))
        .unwrap()
        .filter(|entry| entry.as_ref().unwrap().path().join("up.sql").exists())
        .count();
    assert_eq!(reverted.len(), embedded);
    let applied = procflow_postgres::migrate(db.url()).await.unwrap();
    assert_eq!(applied.len(), embedded);
    assert!(
        procflow_postgres::migrate(db.url())
            .await
            .unwrap()
            .is_empty(),
        "nothing left to apply"
    );
}
