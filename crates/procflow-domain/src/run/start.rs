//! Starting a run: the frozen snapshot of a published template, with pre-filled values.

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use time::OffsetDateTime;

use super::{Progress, Run, RunLogic, RunTask, TaskState};
use crate::actor::{Actor, Assignee, TemplateAssignee};
use crate::error::{DomainError, ValidationError};
use crate::event::{Event, EventPayload};
use crate::ids::{ElementId, EventId, RunId, TaskId, TemplateTaskId};
use crate::limits;
use crate::ports::IdGenerator;
use crate::team::Member;
use crate::template::Template;

/// A value to pre-fill: an element of a template task (spec 4.6 `custom_elements`).
#[derive(Clone, Debug, PartialEq)]
pub struct Prefill {
    /// The template task.
    pub task_id: TemplateTaskId,
    /// An existing element of that task.
    pub element_id: ElementId,
    /// The value, of the element's type.
    pub value: Value,
}

/// Everything a run is started from.
#[derive(Clone, Debug)]
pub struct StartRun<'a> {
    /// The template to copy; it must be published.
    pub template: &'a Template,
    /// The title; the template's title when `None`.
    pub title: Option<String>,
    /// When the run is due.
    pub due_date: Option<OffsetDateTime>,
    /// The active member the run is attributed to (`actor_email`), if any.
    pub runner: Option<&'a Member>,
    /// The team's members the template's tasks are assigned to, by user id or email: their
    /// tasks are assigned to them by user id while they are active (as a task update
    /// assigning their email would), left unassigned when they are not.
    pub members: &'a [Member],
    /// The team's time zone.
    pub timezone: String,
    /// Values to pre-fill.
    pub prefill: Vec<Prefill>,
}

/// A started run: what the store writes in one transaction.
#[derive(Clone, Debug, PartialEq)]
pub struct NewRun {
    /// The header.
    pub run: Run,
    /// Every task, by order.
    pub tasks: Vec<RunTask>,
    /// `process_run.created`, and one assignment per assigned task.
    pub events: Vec<Event>,
}

impl Run {
    /// Copies a published template into a new run: sections, tasks and elements are frozen,
    /// pre-filled values written, `runner` tasks assigned to the attributed member, due dates
    /// resolved.
    ///
    /// # Errors
    /// [`DomainError::TemplateNotPublished`]; a [`ValidationError`] for a bad title, an unknown
    /// task or element in the pre-fill, or a value its element refuses.
    pub fn start(
        request: StartRun<'_>,
        ids: &dyn IdGenerator,
        now: OffsetDateTime,
    ) -> Result<NewRun, DomainError> {
        let template = request.template;
        if !template.is_published {
            return Err(DomainError::TemplateNotPublished);
        }
        let title = match request.title {
            None => template.title.clone(),
            Some(title) => check_title(title)?,
        };
        let run_id = RunId::from_uuid(ids.new_id());
        let started_by = request.runner.map_or(Actor::Api, |m| Actor::User(m.id));
        let new_ids: Vec<TaskId> = template
            .tasks
            .iter()
            .map(|_| TaskId::from_uuid(ids.new_id()))
            .collect();
        let task_ids: HashMap<_, _> = template
            .tasks
            .iter()
            .map(|t| t.id)
            .zip(new_ids.iter().copied())
            .collect();
        let mut tasks: Vec<RunTask> = template
            .tasks
            .iter()
            .zip(new_ids)
            .map(|(task, id)| RunTask {
                id,
                run_id,
                template_task_id: task.id,
                reference: task.reference.clone(),
                title: task.title.clone(),
                state: TaskState::Open,
                order: task.order,
                section_id: task.section_id,
                assignee: match &task.assignee {
                    None => None,
                    Some(TemplateAssignee::Runner) => request.runner.map(|m| Assignee::User(m.id)),
                    Some(TemplateAssignee::Fixed(assignee)) => {
                        let member = request.members.iter().find(|m| match assignee {
                            Assignee::User(user) => m.id == *user,
                            Assignee::Email(email) => m.email == *email,
                        });
                        match member {
                            Some(member) if member.active => Some(Assignee::User(member.id)),
                            // A member who left gets no more work.
                            Some(_) => None,
                            None => Some(assignee.clone()),
                        }
                    }
                },
                is_essential: task.is_essential,
                task_type: task.task_type,
                due_date: task.due_date.as_ref().map(|rule| rule.resolve(now)),
                webhook_enabled: task.webhook_enabled,
                decision: None,
                comment: None,
                custom_elements: task.custom_elements.clone(),
                depends_on: task
                    .depends_on
                    .iter()
                    .filter_map(|p| task_ids.get(p).copied())
                    .collect(),
                hidden: false,
                blocked: false,
                created_at: now,
            })
            .collect();
        apply_prefill(template, &mut tasks, request.prefill)?;
        // Visibility and blocking from the pre-filled values, stored with the new tasks.
        let logic = RunLogic::start(template, &mut tasks);
        let open_tasks = tasks.iter().filter(|t| t.is_open() && !t.hidden).count();

        let run = Run {
            id: run_id,
            team_id: template.team_id,
            template_id: template.id,
            template_version: template.version,
            title,
            started_by,
            timezone: request.timezone,
            due_date: request.due_date,
            is_shared: false,
            sections: template.sections.clone(),
            progress: Progress::with_open_tasks(u32::try_from(open_tasks).unwrap_or(u32::MAX), now),
            logic,
            created_at: now,
            updated_at: None,
        };
        let event = |payload| Event {
            id: EventId::from_uuid(ids.new_id()),
            team_id: run.team_id,
            occurred_at: now,
            payload,
        };
        let mut events = vec![event(EventPayload::RunCreated {
            run: run.snapshot(),
            task_count: u32::try_from(tasks.len()).unwrap_or(u32::MAX),
        })];
        events.extend(tasks.iter().filter(|t| t.assignee.is_some()).map(|task| {
            let email = match &task.assignee {
                Some(Assignee::Email(email)) => Some(email.clone()),
                Some(Assignee::User(user)) => request
                    .runner
                    .into_iter()
                    .chain(request.members)
                    .find(|member| member.id == *user)
                    .map(|member| member.email.clone()),
                None => None,
            };
            event(EventPayload::TaskAssigned {
                task: task.snapshot(),
                run_title: run.title.clone(),
                email,
            })
        }));
        Ok(NewRun { run, tasks, events })
    }
}

fn check_title(title: String) -> Result<String, ValidationError> {
    limits::check_title(&title)
        .map(|()| title)
        .map_err(|message| ValidationError::field("name", message))
}

fn apply_prefill(
    template: &Template,
    tasks: &mut [RunTask],
    prefill: Vec<Prefill>,
) -> Result<(), ValidationError> {
    let mut seen = HashSet::with_capacity(prefill.len());
    for (i, item) in prefill.into_iter().enumerate() {
        let at = |field: &str| format!("custom_elements[{i}].{field}");
        let task = tasks
            .iter_mut()
            .find(|t| t.template_task_id == item.task_id)
            .ok_or_else(|| {
                ValidationError::field(
                    at("task_id"),
                    format!("template {} has no task {}", template.id, item.task_id),
                )
            })?;
        let element = task
            .custom_elements
            .iter_mut()
            .find(|e| e.id == item.element_id)
            .ok_or_else(|| {
                ValidationError::field(
                    at("element_id"),
                    format!("task {} has no element {}", item.task_id, item.element_id),
                )
            })?;
        if !seen.insert((item.task_id, item.element_id)) {
            return Err(ValidationError::field(
                at("element_id"),
                format!("element {} is pre-filled twice", item.element_id),
            ));
        }
        element.value = element.validate_write(&item.value)?;
    }
    Ok(())
}
