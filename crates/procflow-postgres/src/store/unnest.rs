//! Inserts of many rows in one statement whose SQL does not depend on the row count:
//! `INSERT INTO t (cols) SELECT * FROM unnest($1::type[], ...)`, one array bind per column.
//!
//! diesel's multi-row `insert_into(..).values(&vec)` writes a statement with a bind per value,
//! whose SQL changes with the row count, so diesel never prepares it: PostgreSQL parses and
//! plans ~1,000 parameters afresh on every run created. These statements have a static query
//! id instead, so each connection prepares them once, like `AdmitQuery` in `rate_limits`.

use diesel::QueryResult;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{
    Array, Bool, Integer, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid,
};
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::rows::elements::Elements;
use crate::rows::json::{Json, JsonText};
use crate::rows::outbox::NewOutboxRow;
use crate::rows::run::{RunSectionRow, RunTaskRow};
use crate::rows::template::{TemplateSectionRow, TemplateTaskRow};

/// Declares the column arrays of a table's rows and their fixed-SQL insert. Each column is
/// `name: rust type => diesel SQL type as "PostgreSQL type"`; the explicit array casts name the
/// element types for readers of `pg_stat_statements` (the binds carry them anyway).
macro_rules! unnest_insert {
    ($(#[$doc:meta])* $name:ident, $row:ty, $table:literal,
     { $($col:ident: $ty:ty => $sql:ty as $cast:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Default)]
        pub(crate) struct $name {
            $($col: Vec<$ty>,)+
        }

        impl $name {
            /// The rows, one array per column.
            pub(crate) fn of(rows: impl IntoIterator<Item = $row>) -> Self {
                let mut columns = Self::default();
                for row in rows {
                    $(columns.$col.push(row.$col);)+
                }
                columns
            }
        }

        impl QueryId for $name {
            type QueryId = Self;
            const HAS_STATIC_QUERY_ID: bool = true;
        }

        impl QueryFragment<Pg> for $name {
            fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
                out.push_sql(concat!("INSERT INTO ", $table, " ("));
                let mut separator = "";
                $(
                    out.push_sql(separator);
                    out.push_sql(stringify!($col));
                    separator = ", ";
                )+
                out.push_sql(") SELECT * FROM unnest(");
                separator = "";
                $(
                    out.push_sql(separator);
                    out.push_bind_param::<Array<$sql>, _>(&self.$col)?;
                    out.push_sql(concat!("::", $cast, "[]"));
                    separator = ", ";
                )+
                let _ = separator;
                out.push_sql(")");
                Ok(())
            }
        }
    };
}

unnest_insert! {
    /// A run's tasks, with their elements.
    InsertRunTasks, RunTaskRow, "run_tasks", {
        team_id: Uuid => SqlUuid as "uuid",
        run_id: Uuid => SqlUuid as "uuid",
        id: Uuid => SqlUuid as "uuid",
        template_task_id: Uuid => SqlUuid as "uuid",
        section_id: Uuid => SqlUuid as "uuid",
        title: String => Text as "text",
        position: i32 => Integer as "int4",
        state: String => Text as "text",
        completed_at: Option<OffsetDateTime> => Nullable<Timestamptz> as "timestamptz",
        completed_by: Option<String> => Nullable<Text> as "text",
        assignee: Option<String> => Nullable<Text> as "text",
        is_essential: bool => Bool as "bool",
        task_type: String => Text as "text",
        due_date: Option<OffsetDateTime> => Nullable<Timestamptz> as "timestamptz",
        webhook_enabled: bool => Bool as "bool",
        decision: Option<String> => Nullable<Text> as "text",
        comment: Option<String> => Nullable<Text> as "text",
        custom_elements: Elements => Jsonb as "jsonb",
        created_at: OffsetDateTime => Timestamptz as "timestamptz",
        reference: Option<String> => Nullable<Text> as "text",
        depends_on: Json<Vec<Uuid>> => Jsonb as "jsonb",
        hidden: bool => Bool as "bool",
        blocked: bool => Bool as "bool",
    }
}

unnest_insert! {
    /// A run's sections.
    InsertRunSections, RunSectionRow, "run_sections", {
        team_id: Uuid => SqlUuid as "uuid",
        run_id: Uuid => SqlUuid as "uuid",
        id: Uuid => SqlUuid as "uuid",
        title: String => Text as "text",
        description: Option<String> => Nullable<Text> as "text",
        position: i32 => Integer as "int4",
        color: Option<String> => Nullable<Text> as "text",
    }
}

unnest_insert! {
    /// Events appended to the outbox; the delivery columns take their defaults.
    InsertOutbox, NewOutboxRow, "outbox", {
        id: Uuid => SqlUuid as "uuid",
        team_id: Uuid => SqlUuid as "uuid",
        kind: &'static str => Text as "text",
        payload: JsonText => Jsonb as "jsonb",
        occurred_at: OffsetDateTime => Timestamptz as "timestamptz",
        due_at: OffsetDateTime => Timestamptz as "timestamptz",
        webhook_event: Option<&'static str> => Nullable<Text> as "text",
    }
}

unnest_insert! {
    /// A template's sections.
    InsertTemplateSections, TemplateSectionRow, "template_sections", {
        team_id: Uuid => SqlUuid as "uuid",
        template_id: Uuid => SqlUuid as "uuid",
        id: Uuid => SqlUuid as "uuid",
        title: String => Text as "text",
        description: Option<String> => Nullable<Text> as "text",
        position: i32 => Integer as "int4",
        color: Option<String> => Nullable<Text> as "text",
    }
}

unnest_insert! {
    /// A template's tasks, with their elements (up to 1,000 tasks: one statement whatever
    /// their number, where a multi-row `VALUES` would carry 13 binds a task).
    InsertTemplateTasks, TemplateTaskRow, "template_tasks", {
        team_id: Uuid => SqlUuid as "uuid",
        template_id: Uuid => SqlUuid as "uuid",
        id: Uuid => SqlUuid as "uuid",
        section_id: Uuid => SqlUuid as "uuid",
        title: String => Text as "text",
        position: i32 => Integer as "int4",
        assignee: Option<String> => Nullable<Text> as "text",
        is_essential: bool => Bool as "bool",
        task_type: String => Text as "text",
        due_date: Option<Value> => Nullable<Jsonb> as "jsonb",
        webhook_enabled: bool => Bool as "bool",
        custom_elements: Elements => Jsonb as "jsonb",
        created_at: OffsetDateTime => Timestamptz as "timestamptz",
        reference: Option<String> => Nullable<Text> as "text",
        depends_on: Json<Vec<Uuid>> => Jsonb as "jsonb",
    }
}
