//! The rows of runs, their sections and their tasks read column by column (`rows::read`):
//! the rows a listing reads in numbers.

use diesel::Selectable;
use diesel::deserialize;
use diesel::dsl::SqlTypeOf;
use diesel::pg::Pg;
use diesel::row::Row;
use diesel::sql_types::{Bool, Int4, Jsonb, Nullable, Text, Timestamptz, Uuid};

use super::{RunHeaderRow, RunRow, RunSectionRow, RunTaskRow};
use crate::rows::elements::{Elements, ElementsText};
use crate::rows::read::{column, read_in_place};

/// The SQL types of `RunHeaderRow::as_select()`, in its order.
type HeaderColumns = (
    Uuid,
    Uuid,
    Uuid,
    Int4,
    Text,
    Text,
    Text,
    Text,
    Nullable<Timestamptz>,
    Bool,
    Int4,
    Timestamptz,
    Nullable<Timestamptz>,
    Nullable<Timestamptz>,
    Nullable<Jsonb>,
);

/// The SQL types of `RunRow::as_select()`: the header's, then the plan.
type RunColumns = (HeaderColumns, Nullable<Jsonb>);

/// The SQL types of `RunSectionRow::as_select()`, in its order.
type SectionColumns = (Uuid, Uuid, Uuid, Text, Nullable<Text>, Int4, Nullable<Text>);

/// The SQL types of `RunTaskRow::as_select()`, in its order.
type TaskColumns = (
    Uuid,
    Uuid,
    Uuid,
    Uuid,
    Uuid,
    Text,
    Int4,
    Text,
    Nullable<Timestamptz>,
    Nullable<Text>,
    Nullable<Text>,
    Bool,
    Text,
    Nullable<Timestamptz>,
    Bool,
    Nullable<Text>,
    Nullable<Text>,
    Jsonb,
    Timestamptz,
    Nullable<Text>,
    Jsonb,
    Bool,
    Bool,
);

/// The SQL types of `T::as_select()`.
type Selected<T> = SqlTypeOf<<T as Selectable<Pg>>::SelectExpression>;

// Each compiles only while the columns written out above are the selection's types.
const _: fn(Selected<RunHeaderRow>) -> HeaderColumns = |types| types;
const _: fn(Selected<RunRow>) -> RunColumns = |types| types;
const _: fn(Selected<RunSectionRow>) -> SectionColumns = |types| types;
const _: fn(Selected<RunTaskRow>) -> TaskColumns = |types| types;

read_in_place!(RunHeaderRow, HeaderColumns, header);
read_in_place!(RunRow, RunColumns, run);
read_in_place!(RunSectionRow, SectionColumns, section);
read_in_place!(RunTaskRow<Elements>, TaskColumns, task);
read_in_place!(RunTaskRow<ElementsText>, TaskColumns, task);

fn header<'a>(row: &impl Row<'a, Pg>) -> deserialize::Result<RunHeaderRow> {
    Ok(RunHeaderRow {
        team_id: column::<Uuid, _>(row, 0, "runs.team_id")?,
        id: column::<Uuid, _>(row, 1, "runs.id")?,
        template_id: column::<Uuid, _>(row, 2, "runs.template_id")?,
        template_version: column::<Int4, _>(row, 3, "runs.template_version")?,
        title: column::<Text, _>(row, 4, "runs.title")?,
        status: column::<Text, _>(row, 5, "runs.status")?,
        started_by: column::<Text, _>(row, 6, "runs.started_by")?,
        timezone: column::<Text, _>(row, 7, "runs.timezone")?,
        due_date: column::<Nullable<Timestamptz>, _>(row, 8, "runs.due_date")?,
        is_shared: column::<Bool, _>(row, 9, "runs.is_shared")?,
        open_tasks: column::<Int4, _>(row, 10, "runs.open_tasks")?,
        created_at: column::<Timestamptz, _>(row, 11, "runs.created_at")?,
        updated_at: column::<Nullable<Timestamptz>, _>(row, 12, "runs.updated_at")?,
        completed_at: column::<Nullable<Timestamptz>, _>(row, 13, "runs.completed_at")?,
        logic_state: column::<Nullable<Jsonb>, _>(row, 14, "runs.logic_state")?,
    })
}

fn run<'a>(row: &impl Row<'a, Pg>) -> deserialize::Result<RunRow> {
    Ok(RunRow {
        header: header(row)?,
        logic: column::<Nullable<Jsonb>, _>(row, 15, "runs.logic")?,
    })
}

fn section<'a>(row: &impl Row<'a, Pg>) -> deserialize::Result<RunSectionRow> {
    Ok(RunSectionRow {
        team_id: column::<Uuid, _>(row, 0, "run_sections.team_id")?,
        run_id: column::<Uuid, _>(row, 1, "run_sections.run_id")?,
        id: column::<Uuid, _>(row, 2, "run_sections.id")?,
        title: column::<Text, _>(row, 3, "run_sections.title")?,
        description: column::<Nullable<Text>, _>(row, 4, "run_sections.description")?,
        position: column::<Int4, _>(row, 5, "run_sections.position")?,
        color: column::<Nullable<Text>, _>(row, 6, "run_sections.color")?,
    })
}

fn task<'a, E: deserialize::FromSql<Jsonb, Pg>>(
    row: &impl Row<'a, Pg>,
) -> deserialize::Result<RunTaskRow<E>> {
    Ok(RunTaskRow {
        team_id: column::<Uuid, _>(row, 0, "run_tasks.team_id")?,
        run_id: column::<Uuid, _>(row, 1, "run_tasks.run_id")?,
        id: column::<Uuid, _>(row, 2, "run_tasks.id")?,
        template_task_id: column::<Uuid, _>(row, 3, "run_tasks.template_task_id")?,
        section_id: column::<Uuid, _>(row, 4, "run_tasks.section_id")?,
        title: column::<Text, _>(row, 5, "run_tasks.title")?,
        position: column::<Int4, _>(row, 6, "run_tasks.position")?,
        state: column::<Text, _>(row, 7, "run_tasks.state")?,
        completed_at: column::<Nullable<Timestamptz>, _>(row, 8, "run_tasks.completed_at")?,
        completed_by: column::<Nullable<Text>, _>(row, 9, "run_tasks.completed_by")?,
        assignee: column::<Nullable<Text>, _>(row, 10, "run_tasks.assignee")?,
        is_essential: column::<Bool, _>(row, 11, "run_tasks.is_essential")?,
        task_type: column::<Text, _>(row, 12, "run_tasks.task_type")?,
        due_date: column::<Nullable<Timestamptz>, _>(row, 13, "run_tasks.due_date")?,
        webhook_enabled: column::<Bool, _>(row, 14, "run_tasks.webhook_enabled")?,
        decision: column::<Nullable<Text>, _>(row, 15, "run_tasks.decision")?,
        comment: column::<Nullable<Text>, _>(row, 16, "run_tasks.comment")?,
        custom_elements: column::<Jsonb, _>(row, 17, "run_tasks.custom_elements")?,
        created_at: column::<Timestamptz, _>(row, 18, "run_tasks.created_at")?,
        reference: column::<Nullable<Text>, _>(row, 19, "run_tasks.reference")?,
        depends_on: column::<Jsonb, _>(row, 20, "run_tasks.depends_on")?,
        hidden: column::<Bool, _>(row, 21, "run_tasks.hidden")?,
        blocked: column::<Bool, _>(row, 22, "run_tasks.blocked")?,
    })
}
