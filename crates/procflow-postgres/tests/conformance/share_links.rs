//! Share links on PostgreSQL (issue "Hard to break, round two", point 7): the database keeps
//! the digest of each link's token, never the token, and the links made before the migration
//! `2026-11-27-000300_share_token_hashes` keep working after it.

use procflow_domain::sharing::Invitation;
use procflow_domain::values::ShareToken;
use procflow_postgres::testing::{execute, revert_through, rows};

use super::env::Env;
use super::support::{Started, invite_outsider, started};

const MIGRATION: &str = "2026-11-27-000300";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copy_of_the_database_holds_no_share_token() {
    let env = Env::postgres().await;
    let Started { run, .. } = started(&env).await;
    let shared = invite_outsider(&env, run.id).await;
    let url = env.pg().db.url();
    let token = shared.token.expose();
    let links = rows(url, "SELECT token_hash FROM run_share_links").await;
    assert_eq!(
        links,
        vec![serde_json::json!({"token_hash": shared.token.digest()})]
    );
    // Every text column of the sharing tables, as a dump would show it.
    let dumped = rows(
        url,
        "SELECT row_to_json(s)::text AS share FROM run_shares s \
         UNION ALL SELECT row_to_json(l)::text FROM run_share_links l \
         UNION ALL SELECT row_to_json(g)::text FROM run_guests g",
    )
    .await;
    let dumped = serde_json::to_string(&dumped).unwrap();
    assert!(
        !dumped.contains(token),
        "the token is in the sharing tables: {dumped}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_made_before_the_migration_still_opens_its_run() {
    let env = Env::postgres().await;
    let Started { run, .. } = started(&env).await;
    env.procflow
        .invite_guest(&env.team, run.id, Invitation::default())
        .await
        .unwrap();
    let url = env.pg().db.url();
    let reverted = revert_through(url, MIGRATION).await;
    assert!(
        reverted
            .last()
            .is_some_and(|v| v.starts_with("20261127000300")),
        "{reverted:?}"
    );
    // The share as the version before kept it: its token in plain text.
    execute(
        url,
        &format!(
            "UPDATE run_shares SET token = 'old-link-token_0123456789abcdef' WHERE run_id = '{}'",
            run.id
        ),
    )
    .await;
    procflow_postgres::migrate(url).await.unwrap();
    let old = ShareToken::new("old-link-token_0123456789abcdef".into());
    let (opened, share) = env.store.find_shared_run(run.id, &old).await.unwrap();
    assert_eq!((opened.id, share.run_id), (run.id, run.id));
    let (_, _, tasks) = env.store.read_shared_run(run.id, &old).await.unwrap();
    assert!(!tasks.is_empty());
    let columns = rows(
        url,
        "SELECT column_name FROM information_schema.columns \
         WHERE table_name = 'run_shares' AND column_name = 'token'",
    )
    .await;
    assert!(columns.is_empty(), "the plain column is gone: {columns:?}");
}
