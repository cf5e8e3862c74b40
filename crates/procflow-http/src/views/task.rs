//! Template tasks (spec 2.4) and run tasks (spec 2.6): the list shape and the single shape.

use procflow_domain::actor::{Actor, Assignee, TemplateAssignee};
use procflow_domain::ids::{RunId, SectionId, TaskId, TemplateTaskId};
use procflow_domain::run::{Decision, RunTask};
use procflow_domain::template::{DueDateRule, TaskType, TemplateTask};
use serde::Serialize;
use time::OffsetDateTime;

use super::element::{ElementView, elements};

/// A task of a template.
#[derive(Serialize)]
pub struct TemplateTaskView<'a> {
    id: TemplateTaskId,
    title: &'a str,
    completed: bool,
    order: u32,
    section_id: SectionId,
    assignee: Option<&'a TemplateAssignee>,
    is_essential: bool,
    #[serde(rename = "type")]
    task_type: TaskType,
    due_date: Option<&'a DueDateRule>,
    webhook_enabled: bool,
    custom_elements: Vec<ElementView<'a>>,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
}

impl<'a> From<&'a TemplateTask> for TemplateTaskView<'a> {
    fn from(task: &'a TemplateTask) -> Self {
        Self {
            id: task.id,
            title: &task.title,
            completed: false,
            order: task.order,
            section_id: task.section_id,
            assignee: task.assignee.as_ref(),
            is_essential: task.is_essential,
            task_type: task.task_type,
            due_date: task.due_date.as_ref(),
            webhook_enabled: task.webhook_enabled,
            custom_elements: elements(&task.custom_elements),
            created_at: task.created_at,
        }
    }
}

/// A run task in List run tasks (spec 4.9): without `due_date` and `webhook_enabled`.
#[derive(Serialize)]
pub struct RunTaskListView<'a> {
    id: TaskId,
    instance_id: RunId,
    template_task_id: TemplateTaskId,
    title: &'a str,
    completed: bool,
    #[serde(with = "time::serde::rfc3339::option")]
    completed_at: Option<OffsetDateTime>,
    completed_by: Option<Actor>,
    order: u32,
    section_id: SectionId,
    assignee: Option<&'a Assignee>,
    is_essential: bool,
    skipped: bool,
    #[serde(rename = "type")]
    task_type: TaskType,
    decision: Option<Decision>,
    comment: Option<&'a str>,
    custom_elements: Vec<ElementView<'a>>,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
}

impl<'a> From<&'a RunTask> for RunTaskListView<'a> {
    fn from(task: &'a RunTask) -> Self {
        Self {
            id: task.id,
            instance_id: task.run_id,
            template_task_id: task.template_task_id,
            title: &task.title,
            completed: task.completed(),
            completed_at: task.completed_at(),
            completed_by: task.completed_by(),
            order: task.order,
            section_id: task.section_id,
            assignee: task.assignee.as_ref(),
            is_essential: task.is_essential,
            skipped: task.skipped(),
            task_type: task.task_type,
            decision: task.decision,
            comment: task.comment.as_deref(),
            custom_elements: elements(&task.custom_elements),
            created_at: task.created_at,
        }
    }
}

/// A run task in Get a task and Update a task: the list shape plus `due_date` and
/// `webhook_enabled`.
#[derive(Serialize)]
pub struct RunTaskView<'a> {
    #[serde(flatten)]
    base: RunTaskListView<'a>,
    #[serde(with = "time::serde::rfc3339::option")]
    due_date: Option<OffsetDateTime>,
    webhook_enabled: bool,
}

impl<'a> From<&'a RunTask> for RunTaskView<'a> {
    fn from(task: &'a RunTask) -> Self {
        Self {
            base: RunTaskListView::from(task),
            due_date: task.due_date,
            webhook_enabled: task.webhook_enabled,
        }
    }
}
