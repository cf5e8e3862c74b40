//! The rows of runs, their sections and their tasks read column by column (`rows::read`):
//! the rows a listing reads in numbers.

use diesel::Selectable;
use diesel::deserialize::{self, FromSql};
use diesel::dsl::SqlTypeOf;
use diesel::pg::Pg;
use diesel::row::Row;
use diesel::sql_types::{Bool, Int4, Jsonb, Nullable, Text, Timestamptz, Uuid};

use super::{RunHeaderRow, RunRow, RunSectionRow, RunTaskRow};
use crate::rows::elements::{Elements, ElementsText, ElementsUnread};
use crate::rows::read::{column, read_in_place, row_reader};

row_reader! {
    /// The SQL types of `RunHeaderRow::as_select()`, in its order.
    HeaderColumns, HEADER_NAMES, fn header -> RunHeaderRow, runs {
        team_id: Uuid,
        id: Uuid,
        template_id: Uuid,
        template_version: Int4,
        title: Text,
        status: Text,
        started_by: Text,
        timezone: Text,
        due_date: Nullable<Timestamptz>,
        is_shared: Bool,
        open_tasks: Int4,
        created_at: Timestamptz,
        updated_at: Nullable<Timestamptz>,
        completed_at: Nullable<Timestamptz>,
        logic_state: Nullable<Jsonb>,
    }
}

/// The SQL types of `RunRow::as_select()`: the header's, then the plan.
type RunColumns = (HeaderColumns, Nullable<Jsonb>);

row_reader! {
    /// The SQL types of `RunSectionRow::as_select()`, in its order.
    SectionColumns, SECTION_NAMES, fn section -> RunSectionRow, run_sections {
        team_id: Uuid,
        run_id: Uuid,
        id: Uuid,
        title: Text,
        description: Nullable<Text>,
        position: Int4,
        color: Nullable<Text>,
    }
}

row_reader! {
    /// The SQL types of `RunTaskRow::as_select()`, in its order.
    TaskColumns, TASK_NAMES, fn task<E: FromSql<Jsonb, Pg>> -> RunTaskRow<E>, run_tasks {
        team_id: Uuid,
        run_id: Uuid,
        id: Uuid,
        template_task_id: Uuid,
        section_id: Uuid,
        title: Text,
        position: Int4,
        state: Text,
        completed_at: Nullable<Timestamptz>,
        completed_by: Nullable<Text>,
        assignee: Nullable<Text>,
        is_essential: Bool,
        task_type: Text,
        due_date: Nullable<Timestamptz>,
        webhook_enabled: Bool,
        decision: Nullable<Text>,
        comment: Nullable<Text>,
        custom_elements: Jsonb,
        created_at: Timestamptz,
        reference: Nullable<Text>,
        depends_on: Jsonb,
        hidden: Bool,
        blocked: Bool,
    }
}

/// The SQL types of `T::as_select()`.
type Selected<T> = SqlTypeOf<<T as Selectable<Pg>>::SelectExpression>;

// Each compiles only while the columns written out above are the selection's types.
const _: fn(Selected<RunHeaderRow>) -> HeaderColumns = |types| types;
const _: fn(Selected<RunRow>) -> RunColumns = |types| types;
const _: fn(Selected<RunSectionRow>) -> SectionColumns = |types| types;
const _: fn(Selected<RunTaskRow>) -> TaskColumns = |types| types;

read_in_place!(RunHeaderRow, HeaderColumns, |row| header(row, &mut 0));
read_in_place!(RunRow, RunColumns, run);
read_in_place!(RunSectionRow, SectionColumns, |row| section(row, &mut 0));
read_in_place!(RunTaskRow<Elements>, TaskColumns, |row| task(row, &mut 0));
read_in_place!(RunTaskRow<ElementsText>, TaskColumns, |row| task(
    row, &mut 0
));
read_in_place!(RunTaskRow<ElementsUnread>, TaskColumns, |row| task(
    row, &mut 0
));

fn run<'a>(row: &impl Row<'a, Pg>) -> deserialize::Result<RunRow> {
    let mut at = 0;
    Ok(RunRow {
        header: header(row, &mut at)?,
        logic: column::<Nullable<Jsonb>, _>(row, at, "runs.logic")?,
    })
}

#[cfg(test)]
mod tests {
    use diesel::debug_query;
    use diesel::prelude::*;

    use super::*;
    use crate::schema::{run_sections, run_tasks, runs};

    /// The columns of a `SELECT`'s list as `table.column`, in order.
    fn selected(sql: &str) -> Vec<String> {
        let list = sql
            .strip_prefix("SELECT ")
            .and_then(|rest| rest.split(" FROM ").next())
            .expect("a SELECT");
        list.split(", ")
            .map(|column| column.replace('"', ""))
            .collect()
    }

    /// The columns `query` selects, as `table.column`.
    fn columns_of<Q>(query: Q) -> Vec<String>
    where
        Q: diesel::query_builder::QueryFragment<Pg>,
    {
        selected(&debug_query::<Pg, _>(&query).to_string())
    }

    #[test]
    fn each_reader_reads_the_selection_s_columns_in_its_order() {
        let header = columns_of(runs::table.select(RunHeaderRow::as_select()));
        assert_eq!(header, HEADER_NAMES);
        assert_eq!(
            columns_of(runs::table.select(RunRow::as_select())),
            [HEADER_NAMES, &["runs.logic"]].concat(),
            "the run's row: its header's columns, then the plan"
        );
        let section = columns_of(run_sections::table.select(RunSectionRow::as_select()));
        assert_eq!(section, SECTION_NAMES);
        let task = columns_of(run_tasks::table.select(RunTaskRow::<Elements>::as_select()));
        assert_eq!(task, TASK_NAMES);
    }
}
