//! A task update's write of its task: every column a patch may change, as text written once,
//! the task's custom elements sent only when the change changed them (or when they are stored
//! in an earlier release's form, which a write turns into the current one).
//!
//! Completing a task, the update integrations send most, leaves its form fields as they were,
//! yet the task's elements were serialised and sent back with every update, and the `SET` of
//! nine columns was written out by diesel three times an execution: together about 5 % of a
//! task update's instructions (callgrind, `docs/performance.md`, "A task update's writes").
//! Unchanged elements are bound as NULL and the column keeps its value
//! (`COALESCE($7, "run_tasks"."custom_elements")`; the column is `NOT NULL`, so NULL never
//! means anything else), in one text either way, so each connection keeps the statement
//! prepared. The bench's floor runs the same statement (`bench/sql/complete_task.sql`).

use diesel::QueryResult;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{Bool, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use procflow_domain::run::RunTask;
use uuid::Uuid;

use crate::rows::elements::Elements;
use crate::rows::run::RunTaskChanges;

/// The text before each bind, in the binds' order (the last bind ends the statement).
const BEFORE: [&str; 12] = [
    "UPDATE \"run_tasks\" SET \"state\" = ",
    ", \"completed_at\" = ",
    ", \"completed_by\" = ",
    ", \"assignee\" = ",
    ", \"decision\" = ",
    ", \"comment\" = ",
    ", \"custom_elements\" = COALESCE(",
    ", \"run_tasks\".\"custom_elements\"), \"hidden\" = ",
    ", \"blocked\" = ",
    " WHERE \"team_id\" = ",
    " AND \"run_id\" = ",
    " AND \"id\" = ",
];

/// `UPDATE run_tasks SET ... WHERE` the task's key, for a task as a change left it.
#[derive(Debug)]
pub(super) struct WriteTask {
    /// Its columns but the elements (`changes.custom_elements` is left empty).
    changes: RunTaskChanges,
    /// The elements to write; `None` keeps the stored ones.
    elements: Option<Elements>,
    key: [Uuid; 3],
}

impl WriteTask {
    /// The write of `task` of `team`, read as `before` by the change that made it: its
    /// elements are sent when they differ from `before`'s, or when they were not stored
    /// `in_api_form` (an earlier release's form, rewritten at the task's next write).
    pub(super) fn new(team: Uuid, task: &RunTask, before: &RunTask, in_api_form: bool) -> Self {
        let send = !in_api_form || task.custom_elements != before.custom_elements;
        Self {
            changes: RunTaskChanges::with_elements(task, Elements(Vec::new())),
            elements: send.then(|| Elements(task.custom_elements.clone())),
            key: [team, task.run_id.as_uuid(), task.id.as_uuid()],
        }
    }
}

impl QueryId for WriteTask {
    type QueryId = Self;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl QueryFragment<Pg> for WriteTask {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let c = &self.changes;
        let [
            state,
            at,
            by,
            assignee,
            decision,
            comment,
            elements,
            hidden,
            blocked,
            team,
            run,
            id,
        ] = BEFORE;
        out.push_sql(state);
        out.push_bind_param::<Text, _>(&c.state)?;
        out.push_sql(at);
        out.push_bind_param::<Nullable<Timestamptz>, _>(&c.completed_at)?;
        out.push_sql(by);
        out.push_bind_param::<Nullable<Text>, _>(&c.completed_by)?;
        out.push_sql(assignee);
        out.push_bind_param::<Nullable<Text>, _>(&c.assignee)?;
        out.push_sql(decision);
        out.push_bind_param::<Nullable<Text>, _>(&c.decision)?;
        out.push_sql(comment);
        out.push_bind_param::<Nullable<Text>, _>(&c.comment)?;
        out.push_sql(elements);
        out.push_bind_param::<Nullable<Jsonb>, _>(&self.elements)?;
        out.push_sql(hidden);
        out.push_bind_param::<Bool, _>(&c.hidden)?;
        out.push_sql(blocked);
        out.push_bind_param::<Bool, _>(&c.blocked)?;
        let [team_id, run_id, task_id] = &self.key;
        out.push_sql(team);
        out.push_bind_param::<SqlUuid, _>(team_id)?;
        out.push_sql(run);
        out.push_bind_param::<SqlUuid, _>(run_id)?;
        out.push_sql(id);
        out.push_bind_param::<SqlUuid, _>(task_id)
    }
}

#[cfg(test)]
mod tests {
    use procflow_domain::ids::{RunId, SectionId, TaskId, TemplateTaskId};
    use procflow_domain::run::TaskState;
    use procflow_domain::template::TaskType;
    use time::OffsetDateTime;

    use super::*;
    use crate::store::shown::text as sql;

    /// Elements sent only when changed or in the earlier form; one text for every write
    /// (`bench/sql/complete_task.sql` runs it too).
    #[test]
    fn a_task_is_written_by_one_text_with_its_elements_or_without() {
        let task = RunTask {
            id: TaskId::from_uuid(Uuid::now_v7()),
            run_id: RunId::from_uuid(Uuid::now_v7()),
            template_task_id: TemplateTaskId::from_uuid(Uuid::now_v7()),
            reference: None,
            title: "Sign".into(),
            state: TaskState::Open,
            order: 0,
            section_id: SectionId::from_uuid(Uuid::now_v7()),
            assignee: None,
            is_essential: false,
            task_type: TaskType::Task,
            due_date: None,
            webhook_enabled: false,
            decision: None,
            comment: None,
            custom_elements: Vec::new(),
            depends_on: Vec::new(),
            hidden: false,
            blocked: false,
            created_at: OffsetDateTime::UNIX_EPOCH,
        };
        let unchanged = WriteTask::new(Uuid::now_v7(), &task, &task, true);
        assert_eq!(unchanged.elements, None);
        let earlier = WriteTask::new(Uuid::now_v7(), &task, &task, false);
        assert_eq!(earlier.elements, Some(Elements(Vec::new())));
        let mut filled = task.clone();
        filled.custom_elements.push(
            serde_json::from_value(serde_json::json!({
                "id": Uuid::nil(), "type": "text", "label": "Name", "value": "Ada", "required": false,
            }))
            .expect("element"),
        );
        let changed = WriteTask::new(Uuid::now_v7(), &filled, &task, true);
        assert_eq!(
            changed.elements,
            Some(Elements(filled.custom_elements.clone()))
        );
        assert_eq!(sql(&unchanged), sql(&changed));
        assert_eq!(
            sql(&unchanged),
            "UPDATE \"run_tasks\" SET \"state\" = $1, \"completed_at\" = $2, \
             \"completed_by\" = $3, \"assignee\" = $4, \"decision\" = $5, \"comment\" = $6, \
             \"custom_elements\" = COALESCE($7, \"run_tasks\".\"custom_elements\"), \
             \"hidden\" = $8, \"blocked\" = $9 \
             WHERE \"team_id\" = $10 AND \"run_id\" = $11 AND \"id\" = $12"
        );
        assert!(unchanged.is_safe_to_cache_prepared(&Pg).expect("cacheable"));
    }
}
