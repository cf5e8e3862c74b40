//! Rows of `runs`, `run_sections` and `run_tasks`.

/// `Queryable` for the rows below: read column by column (`rows::read`).
mod read;

use std::sync::Arc;

use diesel::prelude::*;
use procflow_domain::actor::Actor;
use procflow_domain::error::DomainError;
use procflow_domain::ids::{RunId, SectionId, TaskId, TeamId, TemplateId, TemplateTaskId};
use procflow_domain::run::{
    LogicPlan, LogicState, Progress, Run, RunLogic, RunStatus, RunTask, TaskState, TaskStatus,
};
use procflow_domain::template::{Ref, Section};
use time::OffsetDateTime;
use uuid::Uuid;

use super::elements::{Elements, ElementsText, ElementsUnread, TaskElements};
use super::json::Json;
use super::logic::StoredState;
use super::{parse, section, to_i32, to_u32};
use crate::error::corrupt;
use crate::schema::{run_sections, run_tasks, runs};

/// A run row: its header and, for a run with logic, the frozen plan.
///
/// `None` is written as NULL rather than DEFAULT (no nullable column of `runs` has a default):
/// the insert's text is then the same for every run, so each connection prepares it once
/// instead of parsing and planning it at every run created.
#[derive(Selectable, Insertable, Debug)]
#[diesel(
    table_name = runs,
    check_for_backend(diesel::pg::Pg),
    treat_none_as_default_value = false
)]
pub(crate) struct RunRow {
    #[diesel(embed)]
    pub header: RunHeaderRow,
    pub logic: Option<Json<LogicPlan>>,
}

/// Every column of a run but the plan of its logic, which a change reads from the process's
/// cache of plans (they never change) rather than from the row each time.
#[derive(Selectable, Insertable, Debug)]
#[diesel(
    table_name = runs,
    check_for_backend(diesel::pg::Pg),
    treat_none_as_default_value = false
)]
pub(crate) struct RunHeaderRow {
    pub team_id: Uuid,
    pub id: Uuid,
    pub template_id: Uuid,
    pub template_version: i32,
    pub title: String,
    pub status: String,
    pub started_by: String,
    pub timezone: String,
    pub due_date: Option<OffsetDateTime>,
    pub is_shared: bool,
    pub open_tasks: i32,
    pub created_at: OffsetDateTime,
    pub updated_at: Option<OffsetDateTime>,
    pub completed_at: Option<OffsetDateTime>,
    pub logic_state: Option<Json<StoredState>>,
}

/// The columns of a run header that change after creation (the logic's plan does not; its
/// state only when given).
#[derive(AsChangeset, Debug)]
#[diesel(table_name = runs, treat_none_as_null = true)]
pub(crate) struct RunChanges {
    pub status: String,
    pub is_shared: bool,
    pub open_tasks: i32,
    pub updated_at: Option<OffsetDateTime>,
    pub completed_at: Option<OffsetDateTime>,
    #[diesel(treat_none_as_null = false)]
    pub logic_state: Option<Json<StoredState>>,
}

#[derive(Selectable, Insertable, Debug)]
#[diesel(table_name = run_sections, check_for_backend(diesel::pg::Pg))]
pub(crate) struct RunSectionRow {
    pub team_id: Uuid,
    pub run_id: Uuid,
    pub id: Uuid,
    pub title: String,
    pub description: Option<String>,
    pub position: i32,
    pub color: Option<String>,
}

#[derive(Selectable, Insertable, Debug)]
#[diesel(table_name = run_tasks, check_for_backend(diesel::pg::Pg))]
pub(crate) struct RunTaskRow<E = Elements> {
    pub team_id: Uuid,
    pub run_id: Uuid,
    pub id: Uuid,
    pub template_task_id: Uuid,
    pub section_id: Uuid,
    pub title: String,
    pub position: i32,
    pub state: String,
    pub completed_at: Option<OffsetDateTime>,
    pub completed_by: Option<String>,
    pub assignee: Option<String>,
    pub is_essential: bool,
    pub task_type: String,
    pub due_date: Option<OffsetDateTime>,
    pub webhook_enabled: bool,
    pub decision: Option<String>,
    pub comment: Option<String>,
    pub custom_elements: E,
    pub created_at: OffsetDateTime,
    pub reference: Option<String>,
    pub depends_on: Json<Vec<Uuid>>,
    pub hidden: bool,
    pub blocked: bool,
}

/// A run task's row as a listing reads it: its elements as stored, not parsed.
pub(crate) type ListedTaskRow = RunTaskRow<ElementsText>;

/// A run task's row as a decision about its thread reads it: its elements left unread.
pub(crate) type BareTaskRow = RunTaskRow<ElementsUnread>;

/// The columns of a run task that a patch may change.
#[derive(AsChangeset, Debug)]
#[diesel(table_name = run_tasks, treat_none_as_null = true)]
pub(crate) struct RunTaskChanges {
    pub state: String,
    pub completed_at: Option<OffsetDateTime>,
    pub completed_by: Option<String>,
    pub assignee: Option<String>,
    pub decision: Option<String>,
    pub comment: Option<String>,
    pub custom_elements: Elements,
    pub hidden: bool,
    pub blocked: bool,
}

impl RunRow {
    pub(crate) fn from_domain(run: &Run) -> Self {
        Self {
            header: RunHeaderRow::from_domain(run),
            logic: run.logic.as_ref().map(|l| Json((*l.plan).clone())),
        }
    }

    pub(crate) fn into_domain(self, sections: Vec<Section>) -> Result<Run, DomainError> {
        self.header
            .into_domain(self.logic.map(|Json(plan)| Arc::new(plan)), sections)
    }
}

impl RunHeaderRow {
    pub(crate) fn from_domain(run: &Run) -> Self {
        Self {
            team_id: run.team_id.as_uuid(),
            id: run.id.as_uuid(),
            template_id: run.template_id.as_uuid(),
            template_version: to_i32(run.template_version),
            title: run.title.clone(),
            status: run.status().as_str().to_owned(),
            started_by: run.started_by.to_string(),
            timezone: run.timezone.clone(),
            due_date: run.due_date,
            is_shared: run.is_shared,
            open_tasks: to_i32(run.open_tasks()),
            created_at: run.created_at,
            updated_at: run.updated_at,
            completed_at: run.completed_at(),
            logic_state: run
                .logic
                .as_ref()
                .map(|l| Json(StoredState::from(&l.state))),
        }
    }

    /// Whether the run has logic (its plan is then to be read or taken from the cache).
    pub(crate) fn has_logic(&self) -> bool {
        self.logic_state.is_some()
    }

    /// The run, with the plan of its logic (which it MUST be given when it has logic).
    pub(crate) fn into_domain(
        self,
        plan: Option<Arc<LogicPlan>>,
        sections: Vec<Section>,
    ) -> Result<Run, DomainError> {
        let logic = match (plan, self.logic_state) {
            (Some(plan), Some(Json(state))) => Some(RunLogic {
                state: LogicState::try_from(state).map_err(|e| corrupt("run logic state", e))?,
                plan,
            }),
            (None, None) => None,
            _ => return Err(corrupt("run logic", "a plan without its state")),
        };
        Ok(Run {
            id: RunId::from_uuid(self.id),
            team_id: TeamId::from_uuid(self.team_id),
            template_id: TemplateId::from_uuid(self.template_id),
            template_version: to_u32("template version", self.template_version)?,
            title: self.title,
            started_by: parse::<Actor>("started_by", &self.started_by)?,
            timezone: self.timezone,
            due_date: self.due_date,
            is_shared: self.is_shared,
            sections,
            progress: Progress::from_parts(
                parse::<RunStatus>("run status", &self.status)?,
                to_u32("open task count", self.open_tasks)?,
                self.completed_at,
            )
            .ok_or_else(|| corrupt("run progress", &self.status))?,
            logic,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

impl RunChanges {
    /// The changing columns of `run`, its logic's state only `with_state` (when it changed).
    pub(crate) fn from_domain(run: &Run, with_state: bool) -> Self {
        Self {
            status: run.status().as_str().to_owned(),
            is_shared: run.is_shared,
            open_tasks: to_i32(run.open_tasks()),
            updated_at: run.updated_at,
            completed_at: run.completed_at(),
            logic_state: run
                .logic
                .as_ref()
                .filter(|_| with_state)
                .map(|l| Json(StoredState::from(&l.state))),
        }
    }
}

impl RunSectionRow {
    pub(crate) fn from_domain(run: &Run, section: &Section) -> Self {
        Self {
            team_id: run.team_id.as_uuid(),
            run_id: run.id.as_uuid(),
            id: section.id.as_uuid(),
            title: section.title.clone(),
            description: section.description.clone(),
            position: to_i32(section.order),
            color: section.color.as_ref().map(|c| c.as_str().to_owned()),
        }
    }

    pub(crate) fn into_domain(self) -> Result<Section, DomainError> {
        section(
            self.id,
            self.title,
            self.description,
            self.position,
            self.color,
        )
    }
}

fn state_columns(state: TaskState) -> (&'static str, Option<OffsetDateTime>, Option<String>) {
    let (at, by) = match state {
        TaskState::Completed { at, by } => (Some(at), Some(by.to_string())),
        TaskState::Open | TaskState::Skipped => (None, None),
    };
    (state.status().as_str(), at, by)
}

impl RunTaskRow {
    pub(crate) fn from_domain(team: TeamId, task: &RunTask) -> Self {
        let (state, completed_at, completed_by) = state_columns(task.state);
        Self {
            team_id: team.as_uuid(),
            run_id: task.run_id.as_uuid(),
            id: task.id.as_uuid(),
            template_task_id: task.template_task_id.as_uuid(),
            section_id: task.section_id.as_uuid(),
            title: task.title.clone(),
            position: to_i32(task.order),
            state: state.to_owned(),
            completed_at,
            completed_by,
            assignee: task.assignee.as_ref().map(ToString::to_string),
            is_essential: task.is_essential,
            task_type: task.task_type.as_str().to_owned(),
            due_date: task.due_date,
            webhook_enabled: task.webhook_enabled,
            decision: task.decision.map(|d| d.as_str().to_owned()),
            comment: task.comment.clone(),
            custom_elements: Elements(task.custom_elements.clone()),
            created_at: task.created_at,
            reference: task.reference.as_ref().map(|r| r.as_str().to_owned()),
            depends_on: Json(task.depends_on.iter().map(TaskId::as_uuid).collect()),
            hidden: task.hidden,
            blocked: task.blocked,
        }
    }
}

impl<E: TaskElements> RunTaskRow<E> {
    pub(crate) fn into_domain(self) -> Result<RunTask<E::Domain>, DomainError> {
        let status = parse::<TaskStatus>("task state", &self.state)?;
        let state = match (status, self.completed_at, self.completed_by) {
            (TaskStatus::Open, _, _) => TaskState::Open,
            (TaskStatus::Skipped, _, _) => TaskState::Skipped,
            (TaskStatus::Completed, Some(at), Some(by)) => TaskState::Completed {
                at,
                by: parse("completed_by", &by)?,
            },
            (TaskStatus::Completed, _, _) => {
                return Err(corrupt(
                    "completed task",
                    "without completed_at or completed_by",
                ));
            }
        };
        Ok(RunTask {
            id: TaskId::from_uuid(self.id),
            run_id: RunId::from_uuid(self.run_id),
            template_task_id: TemplateTaskId::from_uuid(self.template_task_id),
            reference: self
                .reference
                .map(|r| parse::<Ref>("task ref", &r))
                .transpose()?,
            title: self.title,
            state,
            order: to_u32("task position", self.position)?,
            section_id: SectionId::from_uuid(self.section_id),
            assignee: self.assignee.map(|a| parse("assignee", &a)).transpose()?,
            is_essential: self.is_essential,
            task_type: parse("task type", &self.task_type)?,
            due_date: self.due_date,
            webhook_enabled: self.webhook_enabled,
            decision: self.decision.map(|d| parse("decision", &d)).transpose()?,
            comment: self.comment,
            custom_elements: self.custom_elements.into_domain(),
            depends_on: self
                .depends_on
                .0
                .into_iter()
                .map(TaskId::from_uuid)
                .collect(),
            hidden: self.hidden,
            blocked: self.blocked,
            created_at: self.created_at,
        })
    }
}

impl RunTaskChanges {
    pub(crate) fn from_domain(task: &RunTask) -> Self {
        Self::with_elements(task, Elements(task.custom_elements.clone()))
    }

    /// The columns of `task`, with `custom_elements` for its elements: a writer that sends
    /// them apart gives an empty list rather than a copy.
    pub(crate) fn with_elements(task: &RunTask, custom_elements: Elements) -> Self {
        let (state, completed_at, completed_by) = state_columns(task.state);
        Self {
            state: state.to_owned(),
            completed_at,
            completed_by,
            assignee: task.assignee.as_ref().map(ToString::to_string),
            decision: task.decision.map(|d| d.as_str().to_owned()),
            comment: task.comment.clone(),
            custom_elements,
            hidden: task.hidden,
            blocked: task.blocked,
        }
    }
}

#[cfg(test)]
mod tests {
    use diesel::pg::Pg;
    use diesel::query_builder::QueryFragment;

    use super::*;

    #[test]
    fn a_run_without_its_optional_columns_is_inserted_by_a_statement_kept_prepared() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let row = RunRow {
            header: RunHeaderRow {
                team_id: Uuid::nil(),
                id: Uuid::nil(),
                template_id: Uuid::nil(),
                template_version: 1,
                title: "Onboarding".into(),
                status: "active".into(),
                started_by: "api".into(),
                timezone: "UTC".into(),
                due_date: None,
                is_shared: false,
                open_tasks: 1,
                created_at: now,
                updated_at: None,
                completed_at: None,
                logic_state: None,
            },
            logic: None,
        };
        let insert = diesel::insert_into(runs::table).values(row);
        assert!(QueryFragment::<Pg>::is_safe_to_cache_prepared(&insert, &Pg).unwrap());
    }
}
