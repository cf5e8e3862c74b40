//! Rows of `templates`, `template_sections` and `template_tasks`.

use super::elements::Elements;
use super::json::Json;
use diesel::prelude::*;
use procflow_domain::error::DomainError;
use procflow_domain::ids::{SectionId, TeamId, TemplateId, TemplateTaskId};
use procflow_domain::template::{DueDateRule, Ref, Section, Template, TemplateRule, TemplateTask};
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use super::{parse, section, to_i32, to_u32};
use crate::error::corrupt;
use crate::schema::{template_sections, template_tasks, templates};

// `primary_key`: the key is never in an `UPDATE`'s `SET` (Citus refuses to write the
// distribution column `team_id`, even with its own value).
#[derive(Queryable, Selectable, Insertable, AsChangeset, Debug)]
#[diesel(table_name = templates, check_for_backend(diesel::pg::Pg), treat_none_as_null = true)]
#[diesel(primary_key(team_id, id))]
pub(crate) struct TemplateRow {
    pub team_id: Uuid,
    pub id: Uuid,
    pub title: String,
    pub description: Option<String>,
    pub cover_image: Option<String>,
    pub icon: Option<String>,
    pub icon_type: Option<String>,
    pub is_published: bool,
    pub version: i32,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub archived_at: Option<OffsetDateTime>,
    pub rules: Json<Vec<TemplateRule>>,
}

#[derive(Queryable, Selectable, Insertable, Debug)]
#[diesel(table_name = template_sections, check_for_backend(diesel::pg::Pg))]
pub(crate) struct TemplateSectionRow {
    pub team_id: Uuid,
    pub template_id: Uuid,
    pub id: Uuid,
    pub title: String,
    pub description: Option<String>,
    pub position: i32,
    pub color: Option<String>,
}

#[derive(Queryable, Selectable, Insertable, Debug)]
#[diesel(table_name = template_tasks, check_for_backend(diesel::pg::Pg))]
pub(crate) struct TemplateTaskRow {
    pub team_id: Uuid,
    pub template_id: Uuid,
    pub id: Uuid,
    pub section_id: Uuid,
    pub title: String,
    pub position: i32,
    pub assignee: Option<String>,
    pub is_essential: bool,
    pub task_type: String,
    pub due_date: Option<Value>,
    pub webhook_enabled: bool,
    pub custom_elements: Elements,
    pub created_at: OffsetDateTime,
    pub reference: Option<String>,
    pub depends_on: Json<Vec<Uuid>>,
}

impl TemplateRow {
    pub(crate) fn from_domain(template: &Template) -> Self {
        Self {
            team_id: template.team_id.as_uuid(),
            id: template.id.as_uuid(),
            title: template.title.clone(),
            description: template.description.clone(),
            cover_image: template.cover_image.clone(),
            icon: template.icon.clone(),
            icon_type: template.icon_type.clone(),
            is_published: template.is_published,
            version: to_i32(template.version),
            created_at: template.created_at,
            updated_at: template.updated_at,
            archived_at: None,
            rules: Json(template.rules.clone()),
        }
    }

    pub(crate) fn into_domain(
        self,
        sections: Vec<Section>,
        tasks: Vec<TemplateTask>,
    ) -> Result<Template, DomainError> {
        Ok(Template {
            id: TemplateId::from_uuid(self.id),
            team_id: TeamId::from_uuid(self.team_id),
            title: self.title,
            description: self.description,
            cover_image: self.cover_image,
            icon: self.icon,
            icon_type: self.icon_type,
            is_published: self.is_published,
            version: to_u32("template version", self.version)?,
            sections,
            tasks,
            rules: self.rules.0,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

impl TemplateSectionRow {
    pub(crate) fn from_domain(template: &Template, section: &Section) -> Self {
        Self {
            team_id: template.team_id.as_uuid(),
            template_id: template.id.as_uuid(),
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

impl TemplateTaskRow {
    pub(crate) fn from_domain(template: &Template, task: &TemplateTask) -> Self {
        Self {
            team_id: template.team_id.as_uuid(),
            template_id: template.id.as_uuid(),
            id: task.id.as_uuid(),
            section_id: task.section_id.as_uuid(),
            title: task.title.clone(),
            position: to_i32(task.order),
            assignee: task.assignee.as_ref().map(ToString::to_string),
            is_essential: task.is_essential,
            task_type: task.task_type.as_str().to_owned(),
            due_date: task
                .due_date
                .as_ref()
                .and_then(|rule| serde_json::to_value(rule).ok()),
            webhook_enabled: task.webhook_enabled,
            custom_elements: Elements(task.custom_elements.clone()),
            created_at: task.created_at,
            reference: task.reference.as_ref().map(|r| r.as_str().to_owned()),
            depends_on: Json(
                task.depends_on
                    .iter()
                    .map(TemplateTaskId::as_uuid)
                    .collect(),
            ),
        }
    }

    pub(crate) fn into_domain(self) -> Result<TemplateTask, DomainError> {
        Ok(TemplateTask {
            id: TemplateTaskId::from_uuid(self.id),
            reference: self
                .reference
                .map(|r| parse::<Ref>("task ref", &r))
                .transpose()?,
            depends_on: self
                .depends_on
                .0
                .into_iter()
                .map(TemplateTaskId::from_uuid)
                .collect(),
            section_id: SectionId::from_uuid(self.section_id),
            title: self.title,
            order: to_u32("task position", self.position)?,
            assignee: self
                .assignee
                .map(|a| parse("template assignee", &a))
                .transpose()?,
            is_essential: self.is_essential,
            task_type: parse("task type", &self.task_type)?,
            due_date: self
                .due_date
                .map(serde_json::from_value::<DueDateRule>)
                .transpose()
                .map_err(|e| corrupt("due-date rule", e))?,
            webhook_enabled: self.webhook_enabled,
            custom_elements: self.custom_elements.0,
            created_at: self.created_at,
        })
    }
}
