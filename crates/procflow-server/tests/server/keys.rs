//! `create-api-key --scope` and `list-api-keys` against a real database.

use procflow_domain::ports::TeamStore;
use procflow_domain::team::KeyScope;
use procflow_postgres::testing::migrated_database;
use procflow_postgres::{PgStore, PoolConfig};
use serde_json::json;

use super::support::{admin, command, create_team, error_code, run, text};

#[tokio::test(flavor = "multi_thread")]
async fn keys_carry_a_scope_and_are_listed_without_their_secret() {
    let db = migrated_database().await;
    let admin = admin(&db);
    let store = PgStore::new(&PoolConfig::new(db.url())).unwrap();
    let created = create_team(&admin, "Acme", "boss@acme.example").await;
    let team = text(&created, "team_id").to_owned();
    let boss = text(&created, "admin_user_id").to_owned();
    let team = team.as_str();
    let create = |extra: &'static [&'static str]| {
        let mut args = vec![
            "create-api-key",
            "--team",
            team,
            "--admin-email",
            "boss@acme.example",
        ];
        args.extend_from_slice(extra);
        args
    };

    let writer = run(&admin, &create(&["--name", "ci"])).await;
    assert_eq!(writer["scope"], "write", "write is the default: {writer}");
    let reader = run(&admin, &create(&["--name", "dashboard", "--scope", "read"])).await;
    assert_eq!(reader["scope"], "read", "{reader}");
    let (found, _) = store
        .find_api_key(&procflow_http::keys::hash(text(&reader, "key")))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.scope, KeyScope::Read);
    run(
        &admin,
        &[
            "revoke-api-key",
            "--team",
            team,
            "--key-id",
            text(&writer, "key_id"),
        ],
    )
    .await;

    let listed = run(&admin, &["list-api-keys", "--team", team]).await;
    let keys = listed["keys"].as_array().unwrap();
    assert_eq!(listed["team_id"], team);
    assert_eq!(keys.len(), 2, "{listed}");
    for (entry, created, name, scope, revoked) in [
        (&keys[0], &writer, "ci", "write", true),
        (&keys[1], &reader, "dashboard", "read", false),
    ] {
        let mut fields: Vec<&str> = entry
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        fields.sort_unstable();
        assert_eq!(
            fields,
            [
                "created_at",
                "created_by",
                "created_by_email",
                "key_id",
                "name",
                "prefix",
                "revoked_at",
                "scope"
            ]
        );
        assert_eq!(entry["key_id"], created["key_id"]);
        assert_eq!(entry["prefix"], created["prefix"]);
        assert_eq!(
            (&entry["name"], &entry["scope"]),
            (&json!(name), &json!(scope))
        );
        assert_eq!(entry["created_by"], json!(boss));
        assert_eq!(entry["created_by_email"], "boss@acme.example");
        assert!(entry["created_at"].as_str().unwrap().ends_with('Z'));
        assert_eq!(entry["revoked_at"].is_string(), revoked, "{entry}");
        assert!(
            !listed.to_string().contains(text(created, "key")),
            "a key is never shown again"
        );
    }
}

#[test]
fn a_scope_is_read_or_write_and_list_api_keys_needs_a_team() {
    let team = "0190d3c4-6f1e-7a4b-9c7d-2b1a3e4f5a6b";
    let parse = |args: &[&str]| {
        let argv = ["procflow", "admin"].iter().chain(args);
        <procflow_server::Cli as clap::Parser>::try_parse_from(argv)
    };
    let base = ["create-api-key", "--team", team, "--admin-email", "a@b.co"];
    assert!(parse(&[&base[..], &["--scope", "read"]].concat()).is_ok());
    let refused = parse(&[&base[..], &["--scope", "admin"]].concat()).unwrap_err();
    assert!(refused.to_string().contains("read"), "{refused}");
    assert!(parse(&["list-api-keys"]).is_err());
    let _ = command(&["list-api-keys", "--team", team]);
}

#[tokio::test(flavor = "multi_thread")]
async fn listing_the_keys_of_an_unknown_team_is_not_found() {
    let db = migrated_database().await;
    let admin = admin(&db);
    let listed = run(
        &admin,
        &[
            "list-api-keys",
            "--team",
            "0190d3c4-6f1e-7a4b-9c7d-2b1a3e4f5a6b",
        ],
    )
    .await;
    assert_eq!(error_code(&listed), Some("not_found"), "{listed}");
}
