//! Template tasks (spec 2.4) and run tasks (spec 2.6): the list shape and the single shape.

use procflow_domain::actor::{Actor, Assignee, TemplateAssignee};
use procflow_domain::ids::{RunId, SectionId, TaskId, TemplateTaskId};
use procflow_domain::run::{Decision, RunTask};
use procflow_domain::template::{DueDateRule, Ref, TaskType, TemplateTask};
use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::element::{ElementView, elements};
use super::element_list::{ElementList, ListElements};

/// A task of a template.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = TemplateTask)]
pub struct TemplateTaskView<'a> {
    #[schema(value_type = String, format = "uuid")]
    pub id: TemplateTaskId,
    /// The task's document-local name (API contract 12.1), or null.
    #[serde(rename = "ref", default)]
    #[schema(required = true, pattern = "^[a-z0-9][a-z0-9_-]{0,63}$")]
    pub reference: Option<Cow<'a, str>>,
    /// The template tasks (by id) that must be completed, skipped or hidden before this one
    /// can be completed or approved.
    #[schema(value_type = Vec<String>, format = "uuid")]
    pub depends_on: Cow<'a, [TemplateTaskId]>,
    pub title: Cow<'a, str>,
    /// Always false in a template.
    pub completed: bool,
    /// 0-based position among the template's tasks.
    pub order: u32,
    #[schema(value_type = String, format = "uuid")]
    pub section_id: SectionId,
    /// A member's user id, an email, or `runner` (whoever the run is attributed to).
    #[schema(value_type = Option<String>, required = true)]
    pub assignee: Option<Cow<'a, TemplateAssignee>>,
    /// Essential tasks cannot be skipped.
    pub is_essential: bool,
    #[serde(rename = "type")]
    pub task_type: TaskType,
    /// The due-date rule.
    #[schema(required = true)]
    pub due_date: Option<Cow<'a, DueDateRule>>,
    /// Whether completing the task sends a webhook.
    pub webhook_enabled: bool,
    pub custom_elements: Vec<ElementView<'a>>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

impl<'a> From<&'a TemplateTask> for TemplateTaskView<'a> {
    fn from(task: &'a TemplateTask) -> Self {
        Self {
            id: task.id,
            reference: name(task.reference.as_ref()),
            depends_on: Cow::Borrowed(&task.depends_on),
            title: Cow::Borrowed(&task.title),
            completed: false,
            order: task.order,
            section_id: task.section_id,
            assignee: task.assignee.as_ref().map(Cow::Borrowed),
            is_essential: task.is_essential,
            task_type: task.task_type,
            due_date: task.due_date.as_ref().map(Cow::Borrowed),
            webhook_enabled: task.webhook_enabled,
            custom_elements: elements(&task.custom_elements),
            created_at: task.created_at,
        }
    }
}

/// A run task in List run tasks (spec 4.9): without `due_date` and `webhook_enabled`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = RunTaskListItem)]
pub struct RunTaskListView<'a> {
    /// The task's id, unique to the run.
    #[schema(value_type = String, format = "uuid")]
    pub id: TaskId,
    /// The run it belongs to.
    #[schema(value_type = String, format = "uuid")]
    pub instance_id: RunId,
    /// The template task it was copied from.
    #[schema(value_type = String, format = "uuid")]
    pub template_task_id: TemplateTaskId,
    /// The template task's document-local name (API contract 12.1), or null.
    #[serde(rename = "ref", default)]
    #[schema(required = true, pattern = "^[a-z0-9][a-z0-9_-]{0,63}$")]
    pub reference: Option<Cow<'a, str>>,
    /// The tasks of the run (by id) that must be completed, skipped or hidden before this one
    /// can be completed or approved.
    #[schema(value_type = Vec<String>, format = "uuid")]
    pub depends_on: Cow<'a, [TaskId]>,
    /// Hidden by a rule of the run: counts as done; any update of it is 409 `task_hidden`.
    pub hidden: bool,
    /// Not completed while a task it depends on is open and not hidden: completing or
    /// approving it is 409 `task_blocked`.
    pub blocked: bool,
    pub title: Cow<'a, str>,
    pub completed: bool,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(required = true)]
    pub completed_at: Option<OffsetDateTime>,
    /// A member's user id, `api`, or `guest`.
    #[schema(value_type = Option<String>, required = true, pattern = "^(api|guest|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")]
    pub completed_by: Option<Actor>,
    /// 0-based position in the run's task list.
    pub order: u32,
    #[schema(value_type = String, format = "uuid")]
    pub section_id: SectionId,
    /// A member's user id, or the email of someone outside the team.
    #[schema(value_type = Option<String>, required = true)]
    pub assignee: Option<Cow<'a, Assignee>>,
    /// Essential tasks cannot be skipped.
    pub is_essential: bool,
    pub skipped: bool,
    #[serde(rename = "type")]
    pub task_type: TaskType,
    /// The decision on an approval task; null until one is made.
    #[schema(required = true)]
    pub decision: Option<Decision>,
    /// The comment of the last decision.
    #[schema(required = true)]
    pub comment: Option<Cow<'a, str>>,
    #[schema(value_type = Vec<ElementView<'static>>)]
    pub custom_elements: ElementList<'a>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

impl<'a, E: ListElements> From<&'a RunTask<E>> for RunTaskListView<'a> {
    fn from(task: &'a RunTask<E>) -> Self {
        Self {
            id: task.id,
            instance_id: task.run_id,
            template_task_id: task.template_task_id,
            reference: name(task.reference.as_ref()),
            depends_on: Cow::Borrowed(&task.depends_on),
            hidden: task.hidden,
            blocked: task.blocked,
            title: Cow::Borrowed(&task.title),
            completed: task.completed(),
            completed_at: task.completed_at(),
            completed_by: task.completed_by(),
            order: task.order,
            section_id: task.section_id,
            assignee: task.assignee.as_ref().map(Cow::Borrowed),
            is_essential: task.is_essential,
            skipped: task.skipped(),
            task_type: task.task_type,
            decision: task.decision,
            comment: task.comment.as_deref().map(Cow::Borrowed),
            custom_elements: task.custom_elements.list(),
            created_at: task.created_at,
        }
    }
}

/// A run task in Get a task and Update a task: the list shape plus `due_date` and
/// `webhook_enabled`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = RunTask)]
pub struct RunTaskView<'a> {
    #[serde(flatten)]
    pub base: RunTaskListView<'a>,
    /// The resolved due moment.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(required = true)]
    pub due_date: Option<OffsetDateTime>,
    /// Whether completing the task sends a webhook.
    pub webhook_enabled: bool,
}

impl<'a, E: ListElements> From<&'a RunTask<E>> for RunTaskView<'a> {
    fn from(task: &'a RunTask<E>) -> Self {
        Self {
            base: RunTaskListView::from(task),
            due_date: task.due_date,
            webhook_enabled: task.webhook_enabled,
        }
    }
}

fn name(reference: Option<&Ref>) -> Option<Cow<'_, str>> {
    reference.map(|r| Cow::Borrowed(r.as_str()))
}
