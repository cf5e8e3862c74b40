//! Distribution on Citus (issue 25, docs/scaling.md): when the database is a Citus
//! coordinator (the `citus` extension is installed), `migrate` distributes every tenant table
//! by `team_id`, co-located with `teams` (distributed by `id`), and makes the global tables
//! reference tables. Idempotent: a table already distributed is left as it is, so each
//! `migrate` distributes only what its migrations created.
//!
//! Citus distributes a table only when every foreign key between it and another table is
//! between tables it can co-locate, so foreign keys that touch a table about to be distributed
//! are dropped, the tables distributed, and the keys made again (now between co-located
//! tables, enforced on each shard), all in one transaction: a failure leaves the schema as it
//! was.

use diesel::connection::LoadConnection;
use diesel::pg::Pg;
use diesel::sql_types::{Bool, Text};
use diesel::{QueryableByName, RunQueryDsl};

/// Global tables: replicated to every node as reference tables (each with why).
pub const REFERENCE_TABLES: &[&str] = &[
    // The team each token naming no team belongs to, read before the team is known.
    "token_directory",
];

/// Tables left local to the coordinator (each with why).
pub const LOCAL_TABLES: &[&str] = &[
    // Guest post limits per share token and per client address (an address spans teams):
    // decided by one statement that locks and rewrites its rows, in a transaction of its own,
    // a few times a minute at most per guest. Local, it costs no two-phase commit.
    "rate_windows",
];

/// The root of the tenant tables, distributed by its `id`.
const ROOT: &str = "teams";

#[derive(QueryableByName)]
struct Name {
    #[diesel(sql_type = Text)]
    name: String,
}

#[derive(QueryableByName)]
struct Present {
    #[diesel(sql_type = Bool)]
    present: bool,
}

#[derive(QueryableByName)]
struct ForeignKey {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    definition: String,
}

/// Whether the database is a Citus coordinator (the extension is installed).
pub(crate) fn is_citus<C: LoadConnection<Backend = Pg>>(conn: &mut C) -> diesel::QueryResult<bool> {
    diesel::sql_query(
        "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS present",
    )
    .get_result::<Present>(conn)
    .map(|p| p.present)
}

/// Tables of the current schema that Citus does not know yet (neither distributed nor
/// reference), but those kept local (`$1`).
const PENDING: &str = "\
    SELECT c.relname::text AS name \
      FROM pg_class c \
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') \
       AND c.relname NOT LIKE '\\_\\_diesel%' \
       AND NOT EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = c.oid) \
       AND c.relname <> ALL($1) \
     ORDER BY 1";

/// Foreign keys from or to the tables `$1`.
const KEYS_OF: &str = "\
    SELECT src.relname::text AS table_name, con.conname::text AS name, \
           pg_get_constraintdef(con.oid) AS definition \
      FROM pg_constraint con \
      JOIN pg_class src ON src.oid = con.conrelid \
      JOIN pg_class dst ON dst.oid = con.confrelid \
     WHERE con.contype = 'f' AND src.relnamespace = current_schema()::regnamespace \
       AND (src.relname = ANY($1) OR dst.relname = ANY($1)) \
     ORDER BY 1, 2";

/// Distributes what is not distributed yet; returns the tables it distributed (empty when the
/// database is not a Citus coordinator).
pub(crate) fn distribute<C: LoadConnection<Backend = Pg>>(
    conn: &mut C,
) -> diesel::QueryResult<Vec<String>> {
    if !is_citus(conn)? {
        return Ok(Vec::new());
    }
    conn.transaction(|conn| {
        // The shards are made and filled over one connection per node, so that the foreign
        // keys made again in this transaction see them.
        diesel::sql_query("SET LOCAL citus.multi_shard_modify_mode TO 'sequential'")
            .execute(conn)?;
        let pending: Vec<String> = diesel::sql_query(PENDING)
            .bind::<diesel::sql_types::Array<Text>, _>(LOCAL_TABLES)
            .load::<Name>(conn)?
            .into_iter()
            .map(|n| n.name)
            .collect();
        if pending.is_empty() {
            return Ok(pending);
        }
        let keys: Vec<ForeignKey> = diesel::sql_query(KEYS_OF)
            .bind::<diesel::sql_types::Array<Text>, _>(&pending)
            .load(conn)?;
        for key in &keys {
            diesel::sql_query(format!(
                "ALTER TABLE {} DROP CONSTRAINT {}",
                quote(&key.table_name),
                quote(&key.name)
            ))
            .execute(conn)?;
        }
        let mut ordered: Vec<&String> = pending.iter().filter(|t| *t == ROOT).collect();
        ordered.extend(pending.iter().filter(|t| *t != ROOT));
        for table in ordered {
            let call = if REFERENCE_TABLES.contains(&table.as_str()) {
                format!("SELECT create_reference_table('{}')", literal(table))
            } else if table == ROOT {
                format!(
                    "SELECT create_distributed_table('{}', 'id')",
                    literal(table)
                )
            } else {
                format!(
                    "SELECT create_distributed_table('{}', 'team_id', colocate_with => '{}')",
                    literal(table),
                    literal(ROOT)
                )
            };
            diesel::sql_query(call).execute(conn)?;
        }
        for key in &keys {
            diesel::sql_query(format!(
                "ALTER TABLE {} ADD CONSTRAINT {} {}",
                quote(&key.table_name),
                quote(&key.name),
                key.definition
            ))
            .execute(conn)?;
        }
        Ok(pending)
    })
}

/// An identifier, quoted.
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A name inside a string literal (a `regclass` argument), quoted as an identifier.
fn literal(name: &str) -> String {
    quote(name).replace('\'', "''")
}
