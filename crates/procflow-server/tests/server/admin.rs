//! The admin commands against a real database, checked by their JSON outputs and by the store.

use std::collections::HashSet;

use procflow_domain::ids::{TeamId, TemplateId};
use procflow_domain::ports::{TeamStore, TemplateStore};
use procflow_domain::team::Subscription;
use procflow_postgres::testing::migrated_database;
use procflow_postgres::{PgStore, PoolConfig};
use serde_json::json;

use super::support::{admin, create_team, demo_template, error_code, run, text};

#[tokio::test(flavor = "multi_thread")]
async fn the_admin_commands_manage_a_team_from_creation_to_revoked_keys() {
    let db = migrated_database().await;
    let admin = admin(&db);
    let store = PgStore::new(&PoolConfig::new(db.url())).unwrap();

    let created = run(
        &admin,
        &[
            "create-team",
            "--name",
            " Acme ",
            "--timezone",
            "Europe/Paris",
            "--admin-email",
            "Boss@Acme.example",
            "--admin-name",
            "Boss",
            "--public-url",
            "https://procflow.test/",
        ],
    )
    .await;
    assert_eq!(created.as_object().unwrap().len(), 2, "{created}");
    let team_id = text(&created, "team_id").to_owned();
    let team = store
        .get_team(team_id.parse::<TeamId>().unwrap())
        .await
        .unwrap();
    assert_eq!(team.name, "Acme");
    assert_eq!(
        team.base_url, "https://procflow.test",
        "the public URL is the default"
    );
    assert_eq!(team.timezone, "Europe/Paris");
    assert_eq!(team.subscription, Subscription::Active);
    let boss = store
        .find_member_by_email(team.id, &"boss@acme.example".parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(boss.id.to_string(), text(&created, "admin_user_id"));
    let team = team_id.as_str();

    let member = run(
        &admin,
        &["add-member", "--team", team, "--email", "ann@acme.example"],
    )
    .await;
    let member_id = text(&member, "user_id").to_owned();
    let again = run(
        &admin,
        &["add-member", "--team", team, "--email", "ANN@acme.example"],
    )
    .await;
    assert_eq!(error_code(&again), Some("conflict"), "{again}");

    let by_member = run(
        &admin,
        &[
            "create-api-key",
            "--team",
            team,
            "--admin-email",
            "ann@acme.example",
        ],
    )
    .await;
    assert_eq!(error_code(&by_member), Some("forbidden"), "{by_member}");
    assert!(
        by_member["error"]["message"]
            .as_str()
            .unwrap()
            .contains("only an active admin"),
        "{by_member}"
    );
    let by_stranger = run(
        &admin,
        &[
            "create-api-key",
            "--team",
            team,
            "--admin-email",
            "who@else.example",
        ],
    )
    .await;
    assert_eq!(error_code(&by_stranger), Some("forbidden"), "{by_stranger}");

    let key = run(
        &admin,
        &[
            "create-api-key",
            "--team",
            team,
            "--admin-email",
            "boss@acme.example",
            "--name",
            "ci",
        ],
    )
    .await;
    let plain = text(&key, "key");
    assert!(plain.starts_with("pf_live_"), "{key}");
    assert!(plain.starts_with(text(&key, "prefix")), "{key}");
    let (found, key_team) = store
        .find_api_key(&procflow_http::keys::hash(plain))
        .await
        .unwrap()
        .expect("the key authenticates");
    assert_eq!(found.id.to_string(), text(&key, "key_id"));
    assert_eq!(found.created_by, boss.id);
    assert_eq!(found.name.as_deref(), Some("ci"));
    assert_eq!(key_team.id.to_string(), team);

    let demoted = run(
        &admin,
        &[
            "set-member",
            "--team",
            team,
            "--email",
            "boss@acme.example",
            "--active",
            "false",
        ],
    )
    .await;
    assert_eq!(
        demoted,
        json!({"user_id": boss.id, "active": false, "role": "admin"})
    );
    let by_inactive = run(
        &admin,
        &[
            "create-api-key",
            "--team",
            team,
            "--admin-email",
            "boss@acme.example",
        ],
    )
    .await;
    assert_eq!(error_code(&by_inactive), Some("forbidden"), "{by_inactive}");

    let promoted = run(
        &admin,
        &[
            "set-member",
            "--team",
            team,
            "--email",
            "ann@acme.example",
            "--role",
            "admin",
        ],
    )
    .await;
    assert_eq!(
        promoted,
        json!({"user_id": member_id, "active": true, "role": "admin"})
    );
    let unchanged = run(
        &admin,
        &["set-member", "--team", team, "--email", "ann@acme.example"],
    )
    .await;
    assert_eq!(
        unchanged, promoted,
        "without flags set-member changes nothing"
    );
    let by_new_admin = run(
        &admin,
        &[
            "create-api-key",
            "--team",
            team,
            "--admin-email",
            "ann@acme.example",
        ],
    )
    .await;
    assert!(text(&by_new_admin, "key").starts_with("pf_live_"));

    let inactive = run(
        &admin,
        &["set-subscription", "--team", team, "--status", "inactive"],
    )
    .await;
    assert_eq!(inactive, json!({"team_id": team, "status": "inactive"}));
    let reloaded = store.get_team(team.parse().unwrap()).await.unwrap();
    assert_eq!(reloaded.subscription, Subscription::Inactive);

    let key_id = text(&key, "key_id");
    let revoked = run(
        &admin,
        &["revoke-api-key", "--team", team, "--key-id", key_id],
    )
    .await;
    assert_eq!(revoked, json!({"revoked": true, "key_id": key_id}));
    assert!(
        store
            .find_api_key(&procflow_http::keys::hash(plain))
            .await
            .unwrap()
            .is_none(),
        "a revoked key authenticates nothing"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_demo_template_imports_publishes_and_has_every_element_type() {
    let db = migrated_database().await;
    let admin = admin(&db);
    let store = PgStore::new(&PoolConfig::new(db.url())).unwrap();
    let team = create_team(&admin, "Demo", "admin@demo.example").await;
    let team = text(&team, "team_id").to_owned();
    let file = demo_template();
    let file = file.to_str().unwrap();

    let draft = run(&admin, &["import-template", "--team", &team, file]).await;
    assert_eq!(draft["version"], 0, "{draft}");
    assert_eq!(draft["is_published"], false, "{draft}");

    let imported = run(
        &admin,
        &["import-template", "--team", &team, file, "--publish"],
    )
    .await;
    assert_eq!(imported["version"], 1, "{imported}");
    assert_eq!(imported["is_published"], true, "{imported}");
    let template = store
        .get_template(
            team.parse().unwrap(),
            text(&imported, "template_id")
                .parse::<TemplateId>()
                .unwrap(),
        )
        .await
        .unwrap();
    assert!(template.is_published);
    let types: HashSet<_> = template
        .tasks
        .iter()
        .flat_map(|task| &task.custom_elements)
        .map(|element| element.element_type)
        .collect();
    assert_eq!(types.len(), 14, "every element type: {types:?}");
    assert!(template.tasks.iter().any(|t| t.is_essential));
    assert!(template.tasks.iter().any(|t| t.webhook_enabled));
    assert!(
        template
            .tasks
            .iter()
            .any(|t| t.task_type == procflow_domain::template::TaskType::Approval)
    );
    assert!(template.tasks.iter().any(|t| t.due_date.is_some()));
    // Process logic: one rule and one dependency, so that a newcomer sees both.
    assert_eq!(template.rules.len(), 1);
    assert_eq!(
        template
            .tasks
            .iter()
            .filter(|t| !t.depends_on.is_empty())
            .count(),
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn refusals_name_what_is_wrong() {
    let db = migrated_database().await;
    let admin = admin(&db);
    let nobody = "0190d3c4-6f1e-7a4b-9c7d-2b1a3e4f5a6b";

    let blank = create_team(&admin, "  ", "a@b.example").await;
    assert_eq!(
        blank,
        json!({"error": {"code": "validation_error", "message": "--name: must not be blank"}})
    );
    // A team's name is the sender's name of its emails: a line break would add a header.
    for name in ["Acme\r\nBcc: evil@example.org", "Acme\nOps", "Acme\u{7f}"] {
        let refused = create_team(&admin, name, "a@b.example").await;
        assert_eq!(
            refused,
            json!({"error": {"code": "validation_error", "message":
                "--name: must not contain control characters (line breaks, tabs, NUL, ...)"}}),
            "{name:?}"
        );
    }
    let refused = run(
        &admin,
        &[
            "create-team",
            "--name",
            "Acme",
            "--admin-email",
            "a@b.example",
            "--admin-name",
            "Boss\r\nX: y",
        ],
    )
    .await;
    assert_eq!(error_code(&refused), Some("validation_error"), "{refused}");
    for args in [
        vec!["add-member", "--team", nobody, "--email", "a@b.example"],
        vec!["set-member", "--team", nobody, "--email", "a@b.example"],
        vec!["set-subscription", "--team", nobody, "--status", "active"],
        vec!["revoke-api-key", "--team", nobody, "--key-id", nobody],
        vec![
            "create-api-key",
            "--team",
            nobody,
            "--admin-email",
            "a@b.example",
        ],
    ] {
        let output = run(&admin, &args).await;
        assert_eq!(error_code(&output), Some("not_found"), "{args:?}: {output}");
    }

    let team = create_team(&admin, "T", "a@b.example").await;
    let team = text(&team, "team_id").to_owned();
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"title": "T", "sections": [{"title": "S", "tasks": [{"title": "X", "custom_elements": [{"type": "dropdown", "label": "D"}]}]}]}"#,
    )
    .unwrap();
    let output = run(
        &admin,
        &["import-template", "--team", &team, bad.to_str().unwrap()],
    )
    .await;
    assert_eq!(error_code(&output), Some("validation_error"), "{output}");
    let message = output["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("sections[0].tasks[0].custom_elements[0].options"),
        "{message}"
    );

    std::fs::write(
        &bad,
        r##"{"title": "T", "sections": [{"title": "S", "colour": "#fff"}]}"##,
    )
    .unwrap();
    let output = run(
        &admin,
        &["import-template", "--team", &team, bad.to_str().unwrap()],
    )
    .await;
    assert!(
        output["error"]["message"]
            .as_str()
            .unwrap()
            .contains("sections[0]"),
        "{output}"
    );

    // The logic of the document is checked as the API checks it: a cycle names its tasks.
    std::fs::write(
        &bad,
        r#"{"title": "T", "sections": [{"title": "S", "tasks": [
            {"ref": "a", "title": "A", "depends_on": ["b"]},
            {"ref": "b", "title": "B", "depends_on": ["a"]}]}]}"#,
    )
    .unwrap();
    let output = run(
        &admin,
        &["import-template", "--team", &team, bad.to_str().unwrap()],
    )
    .await;
    assert_eq!(error_code(&output), Some("validation_error"), "{output}");
    assert!(
        output["error"]["message"].as_str().unwrap().contains(
            "sections[0].tasks[0].depends_on: the dependencies form a cycle: \"A\" → \"B\" → \"A\""
        ),
        "{output}"
    );

    std::fs::write(&bad, "{not json").unwrap();
    let output = run(
        &admin,
        &["import-template", "--team", &team, bad.to_str().unwrap()],
    )
    .await;
    assert_eq!(error_code(&output), Some("validation_error"), "{output}");

    let missing = dir.path().join("missing.json");
    let output = run(
        &admin,
        &[
            "import-template",
            "--team",
            &team,
            missing.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(error_code(&output), Some("io_error"), "{output}");

    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, r#"{"title": "No tasks"}"#).unwrap();
    let output = run(
        &admin,
        &[
            "import-template",
            "--team",
            &team,
            empty.to_str().unwrap(),
            "--publish",
        ],
    )
    .await;
    assert_eq!(error_code(&output), Some("validation_error"), "{output}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_outbox_command_lists_events_set_aside_and_requeues_one() {
    use procflow_domain::ids::EventId;
    use procflow_domain::ports::Outbox;

    let db = migrated_database().await;
    let admin = admin(&db);
    let store = PgStore::new(&PoolConfig::new(db.url())).unwrap();
    let created = create_team(&admin, "Acme", "boss@acme.example").await;
    let team = text(&created, "team_id").to_owned();

    assert_eq!(
        run(&admin, &["outbox", "--dead"]).await,
        json!({"dead": []})
    );

    let id = uuid::Uuid::now_v7();
    procflow_postgres::testing::execute(
        db.url(),
        &format!(
            "INSERT INTO outbox (id, team_id, kind, payload, occurred_at, due_at) \
             VALUES ('{id}', '{team}', 'process_run.created', '{{}}', \
                     '2026-11-20T10:00:00Z', '2026-11-20T10:00:00Z')"
        ),
    )
    .await;
    let event = EventId::from_uuid(id);
    let at = time::macros::datetime!(2026-11-20 10:00:05 UTC);
    store
        .set_aside(&[(event, "missing field `id`".into())], at)
        .await
        .unwrap();

    let listed = run(&admin, &["outbox", "--dead"]).await;
    assert_eq!(
        listed,
        json!({"dead": [{
            "event_id": id,
            "team_id": team,
            "kind": "process_run.created",
            "occurred_at": "2026-11-20T10:00:00Z",
            "dead_at": "2026-11-20T10:00:05Z",
            "error": "missing field `id`",
        }]})
    );
    let retried = run(&admin, &["outbox", "--retry", &id.to_string()]).await;
    assert_eq!(retried, json!({"requeued": true, "event_id": id}));
    assert_eq!(
        run(&admin, &["outbox", "--dead"]).await,
        json!({"dead": []})
    );
    let claimed = store
        .claim(
            10,
            time::OffsetDateTime::now_utc(),
            time::OffsetDateTime::now_utc(),
        )
        .await
        .unwrap();
    assert_eq!(
        claimed.iter().map(|c| c.id).collect::<Vec<_>>(),
        vec![event]
    );

    let again = run(&admin, &["outbox", "--retry", &id.to_string()]).await;
    assert_eq!(error_code(&again), Some("not_found"), "{again}");
}

#[test]
fn the_outbox_command_needs_one_action_and_a_valid_id() {
    use clap::Parser;
    use procflow_server::cli::Cli;

    for bad in [
        vec!["outbox"],
        vec![
            "outbox",
            "--dead",
            "--retry",
            "0192f0a0-0000-7000-8000-000000000001",
        ],
        vec!["outbox", "--retry", "not-an-id"],
        vec!["outbox", "--dead", "--limit", "0"],
        vec![
            "outbox",
            "--retry",
            "0192f0a0-0000-7000-8000-000000000001",
            "--limit",
            "5",
        ],
    ] {
        let argv = ["procflow", "admin"].into_iter().chain(bad.iter().copied());
        assert!(Cli::try_parse_from(argv).is_err(), "{bad:?}");
    }
}
