//! Tenancy in the schema (docs/scaling.md): every table that holds a team's data is keyed by
//! `team_id` first and refers to other tenant tables through `team_id`, so the schema can be
//! distributed by team (Citus: each team's rows co-located on one node, every query of a team
//! routed to that node). A new table must either follow the rule or be named below with why.
//!
//! The rule is what Citus checks when it distributes a table (docs/scaling.md): a unique
//! index must include the distribution column, a foreign key between distributed tables must
//! join on it, and a distributed table has no triggers (a trigger fires on the node holding the
//! shard). So a schema this test passes distributes; plain `make test` catches a regression.
//! A token that names its team alone (an API key, a share link) is found through the global
//! `token_directory` (one row per token, keyed by its digest), never by a unique index across
//! teams.

use std::collections::BTreeMap;

use diesel::QueryableByName;
use diesel::sql_types::{Array, Bool, Nullable, Text};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use procflow_postgres::testing::migrated_database;

/// Tables without `team_id`, each with the reason it is not a tenant table.
const NOT_TENANT_TABLES: &[(&str, &str)] = &[
    (
        "teams",
        "the root: its `id` is the team id, the distribution column itself",
    ),
    (
        "rate_windows",
        "guest post limits keyed by a share token's hash or a client address, not by team: \
         the address windows span teams; a local table beside the distributed ones",
    ),
];

/// Global tables that carry a `team_id` as data (not as a distribution column): reference
/// tables on Citus, copied to every node. They refer to no tenant table and no tenant table
/// to them by `team_id` (a reference table cannot refer to a distributed one).
const DIRECTORY_TABLES: &[(&str, &str)] = &[(
    "token_directory",
    "the team each token naming no team (an API key, a share link, ...) belongs to, keyed by \
     (kind, digest): it keeps a token unique across teams, which a unique index of a \
     distributed table cannot, and routes the token's request to its team's shard",
)];

#[derive(QueryableByName, Debug)]
struct Table {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Bool)]
    has_team_id: bool,
    #[diesel(sql_type = Bool)]
    team_id_not_null: bool,
    #[diesel(sql_type = Nullable<Text>)]
    key_head: Option<String>,
}

#[derive(QueryableByName, Debug)]
struct ForeignKey {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    from_table: String,
    #[diesel(sql_type = Text)]
    to_table: String,
    #[diesel(sql_type = Array<Text>)]
    from_columns: Vec<String>,
    #[diesel(sql_type = Array<Text>)]
    to_columns: Vec<String>,
}

#[derive(QueryableByName, Debug)]
struct Trigger {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    table_name: String,
}

#[derive(QueryableByName, Debug)]
struct UniqueIndex {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Array<Text>)]
    columns: Vec<String>,
}

const TABLES: &str = "\
    SELECT c.relname::text AS name, \
           a.attname IS NOT NULL AS has_team_id, \
           coalesce(a.attnotnull, false) AS team_id_not_null, \
           (SELECT k.attname::text FROM pg_index i \
              JOIN pg_attribute k ON k.attrelid = i.indrelid AND k.attnum = i.indkey[0] \
             WHERE i.indrelid = c.oid AND i.indisprimary) AS key_head \
      FROM pg_class c \
      JOIN pg_namespace n ON n.oid = c.relnamespace \
      LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'team_id' \
                              AND NOT a.attisdropped \
     WHERE n.oid = current_schema()::regnamespace AND c.relkind IN ('r', 'p') \
       AND c.relname NOT LIKE '\\_\\_diesel%' \
     ORDER BY 1";

const FOREIGN_KEYS: &str = "\
    SELECT con.conname::text AS name, src.relname::text AS from_table, \
           dst.relname::text AS to_table, \
           ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k(num, pos) \
                   JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num \
                  ORDER BY k.pos) AS from_columns, \
           ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY AS k(num, pos) \
                   JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num \
                  ORDER BY k.pos) AS to_columns \
      FROM pg_constraint con \
      JOIN pg_class src ON src.oid = con.conrelid \
      JOIN pg_class dst ON dst.oid = con.confrelid \
      JOIN pg_namespace n ON n.oid = src.relnamespace \
     WHERE con.contype = 'f' AND n.oid = current_schema()::regnamespace \
     ORDER BY 1";

const UNIQUE_INDEXES: &str = "\
    SELECT ic.relname::text AS name, c.relname::text AS table_name, \
           ARRAY(SELECT a.attname::text FROM unnest(i.indkey) AS k(num) \
                   JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.num) \
             AS columns \
      FROM pg_index i \
      JOIN pg_class ic ON ic.oid = i.indexrelid \
      JOIN pg_class c ON c.oid = i.indrelid \
      JOIN pg_namespace n ON n.oid = c.relnamespace \
     WHERE i.indisunique AND n.oid = current_schema()::regnamespace AND c.relname NOT LIKE '\\_\\_diesel%' \
     ORDER BY 1";

const TRIGGERS: &str = "\
    SELECT t.tgname::text AS name, c.relname::text AS table_name \
      FROM pg_trigger t \
      JOIN pg_class c ON c.oid = t.tgrelid \
      JOIN pg_namespace n ON n.oid = c.relnamespace \
     WHERE NOT t.tgisinternal AND n.oid = current_schema()::regnamespace \
     ORDER BY 1";

/// What breaks the rule in these catalog rows, one sentence each.
fn violations(
    tables: &[Table],
    foreign_keys: &[ForeignKey],
    unique_indexes: &[UniqueIndex],
    triggers: &[Trigger],
) -> Vec<String> {
    let exempt: BTreeMap<&str, &str> = NOT_TENANT_TABLES.iter().copied().collect();
    let directory: BTreeMap<&str, &str> = DIRECTORY_TABLES.iter().copied().collect();
    let tenant = |name: &str| {
        tables.iter().any(|t| t.name == name && t.has_team_id) && !directory.contains_key(name)
    };
    let mut found = Vec::new();
    for table in tables {
        if directory.contains_key(table.name.as_str()) {
            if !table.has_team_id {
                found.push(format!(
                    "{}: listed in DIRECTORY_TABLES but has no team_id",
                    table.name
                ));
            }
            continue;
        }
        match (table.has_team_id, exempt.contains_key(table.name.as_str())) {
            (false, false) => found.push(format!(
                "{}: no team_id column (a tenant table needs one; else name it in NOT_TENANT_TABLES with why)",
                table.name
            )),
            (true, true) => found.push(format!(
                "{}: has team_id but is listed as not a tenant table",
                table.name
            )),
            (true, false) => {
                if !table.team_id_not_null {
                    found.push(format!("{}: team_id may be null", table.name));
                }
                if table.key_head.as_deref() != Some("team_id") {
                    found.push(format!(
                        "{}: its primary key starts with {:?}, not team_id",
                        table.name, table.key_head
                    ));
                }
            }
            (false, true) => {}
        }
    }
    for key in foreign_keys {
        if !tenant(&key.from_table) {
            if tenant(&key.to_table) {
                found.push(format!(
                    "{}: {} (not a tenant table) refers to the tenant table {}: a global or \
                     local table cannot refer to a distributed one",
                    key.name, key.from_table, key.to_table
                ));
            }
            continue;
        }
        let pairs: Vec<(&str, &str)> = key
            .from_columns
            .iter()
            .map(String::as_str)
            .zip(key.to_columns.iter().map(String::as_str))
            .collect();
        let through_team = if key.to_table == "teams" {
            pairs == [("team_id", "id")]
        } else if tenant(&key.to_table) {
            pairs.contains(&("team_id", "team_id"))
        } else {
            // A tenant row pointing at a table that is neither the root nor a tenant table
            // would tie a team's rows to another node.
            false
        };
        if !through_team {
            found.push(format!(
                "{}: {} {:?} -> {} {:?} does not go through team_id",
                key.name, key.from_table, key.from_columns, key.to_table, key.to_columns
            ));
        }
    }
    for index in unique_indexes {
        if tenant(&index.table_name) && !index.columns.iter().any(|c| c == "team_id") {
            found.push(format!(
                "{} on {} {:?}: a unique index of a tenant table without team_id (a token \
                 naming its team alone goes through token_directory)",
                index.name, index.table_name, index.columns
            ));
        }
    }
    for trigger in triggers {
        found.push(format!(
            "{} on {}: a trigger (Citus runs it on the node holding the row; notify from the \
             code making the change)",
            trigger.name, trigger.table_name
        ));
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tenant_table_is_keyed_and_referenced_through_team_id() {
    let db = migrated_database().await;
    let mut conn = AsyncPgConnection::establish(db.url()).await.unwrap();
    let tables: Vec<Table> = diesel::sql_query(TABLES).load(&mut conn).await.unwrap();
    let foreign_keys: Vec<ForeignKey> = diesel::sql_query(FOREIGN_KEYS)
        .load(&mut conn)
        .await
        .unwrap();
    let unique_indexes: Vec<UniqueIndex> = diesel::sql_query(UNIQUE_INDEXES)
        .load(&mut conn)
        .await
        .unwrap();
    let triggers: Vec<Trigger> = diesel::sql_query(TRIGGERS).load(&mut conn).await.unwrap();
    assert!(
        tables.iter().filter(|t| t.has_team_id).count() >= 15,
        "the catalog query found the tenant tables: {tables:?}"
    );
    assert!(foreign_keys.len() >= 15, "{foreign_keys:?}");
    assert_eq!(
        violations(&tables, &foreign_keys, &unique_indexes, &triggers),
        Vec::<String>::new()
    );
}

#[test]
fn the_rule_catches_each_way_a_table_can_break_it() {
    let table = |name: &str, has_team_id: bool, key_head: &str| Table {
        name: name.to_owned(),
        has_team_id,
        team_id_not_null: has_team_id,
        key_head: Some(key_head.to_owned()),
    };
    let key = |from: &str, cols: &[&str], to: &str, to_cols: &[&str]| ForeignKey {
        name: format!("{from}_fk"),
        from_table: from.to_owned(),
        to_table: to.to_owned(),
        from_columns: cols.iter().map(|c| (*c).to_owned()).collect(),
        to_columns: to_cols.iter().map(|c| (*c).to_owned()).collect(),
    };
    let tables = [
        table("teams", false, "id"),
        table("runs", true, "team_id"),
        table("outbox", true, "id"),
        table("stray", false, "id"),
        table("token_directory", true, "kind"),
    ];
    let keys = [
        key("runs", &["team_id"], "teams", &["id"]),
        key("outbox", &["team_id", "run_id"], "runs", &["team_id", "id"]),
        key("outbox", &["run_id"], "runs", &["id"]),
        key("token_directory", &["team_id"], "runs", &["team_id"]),
    ];
    let indexes = [UniqueIndex {
        name: "outbox_by_id".to_owned(),
        table_name: "outbox".to_owned(),
        columns: vec!["id".to_owned()],
    }];
    let triggers = [Trigger {
        name: "runs_changed".to_owned(),
        table_name: "runs".to_owned(),
    }];
    let found = violations(&tables, &keys, &indexes, &triggers);
    let expected = [
        "outbox: its primary key starts with",
        "stray: no team_id column",
        "outbox_fk: outbox [\"run_id\"] -> runs [\"id\"] does not go through team_id",
        "token_directory_fk: token_directory (not a tenant table) refers to the tenant table runs",
        "outbox_by_id on outbox [\"id\"]: a unique index of a tenant table without team_id",
        "runs_changed on runs: a trigger",
    ];
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    for (found, expected) in found.iter().zip(expected) {
        assert!(found.starts_with(expected), "{found} / {expected}");
    }
}
