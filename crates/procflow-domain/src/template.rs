//! Process templates: sections, tasks and their form fields; publishing and versions.

mod document;
mod due_date;
pub mod limits;
mod logic;

pub use document::{ElementDocument, SectionDocument, TaskDocument, TemplateDocument};
pub use due_date::{DATE_UNITS, DueDateRule, IsoDuration, TIME_UNITS};
pub use logic::{
    Condition, MAX_CONDITIONS, MAX_RULES, OPERATORS_BY_TYPE, Operator, Rule, RuleDocument,
    TemplateRule, When, operator_table,
};

pub use crate::reference::{MAX_REF_CHARS, REF_PATTERN, Ref};

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::actor::TemplateAssignee;
use crate::element::CustomElement;
use crate::error::DomainError;
use crate::ids::{SectionId, TeamId, TemplateId, TemplateTaskId};
use crate::names::named;
use crate::values::Color;

/// A blueprint that runs are started from.
///
/// `version` counts publishes: a new template is a draft with version 0, and each publish adds 1.
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct Template {
    /// Its id.
    pub id: TemplateId,
    /// The team that owns it.
    pub team_id: TeamId,
    /// Its title; runs take it as their default title.
    pub title: String,
    /// Free text, or `None`.
    pub description: Option<String>,
    /// A cover image URL, or `None`.
    pub cover_image: Option<String>,
    /// An icon (an emoji, a URL, ...), or `None`.
    pub icon: Option<String>,
    /// What kind of icon `icon` holds (for example `emoji`, `image`), free text.
    pub icon_type: Option<String>,
    /// Only a published template can start a run.
    pub is_published: bool,
    /// How many times it was published.
    pub version: u32,
    /// Its sections, by `order`.
    pub sections: Vec<Section>,
    /// Its tasks, by `order` (0-based across the whole template).
    pub tasks: Vec<TemplateTask>,
    /// The rules that show and hide its tasks from form values (API contract 12.1).
    pub rules: Vec<TemplateRule>,
    /// When it was created.
    pub created_at: OffsetDateTime,
    /// When it last changed (edit or publish).
    pub updated_at: OffsetDateTime,
}

/// A group of tasks; runs copy their template's sections with the same ids.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Section {
    /// Its id.
    pub id: SectionId,
    /// Its title.
    pub title: String,
    /// Free text, or `None`.
    pub description: Option<String>,
    /// 0-based position.
    pub order: u32,
    /// `#RRGGBB`, or `None`.
    pub color: Option<Color>,
}

named! {
    /// `task`, or `approval` (done by an `approved` decision).
    #[derive(Default)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    pub enum TaskType as "task type" {
        /// An ordinary task.
        #[default]
        Task = "task",
        /// A task completed by an `approved` decision.
        Approval = "approval",
    }
}

/// A task of a template, copied into every run started from it.
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct TemplateTask {
    /// Its id (`template_task_id` on run tasks and pre-fill items).
    pub id: TemplateTaskId,
    /// Its document-local name, if any.
    pub reference: Option<Ref>,
    /// The tasks that must be done (completed, skipped or hidden) before it can be completed.
    pub depends_on: Vec<TemplateTaskId>,
    /// The section it belongs to.
    pub section_id: SectionId,
    /// Its title.
    pub title: String,
    /// 0-based position in the template's task list.
    pub order: u32,
    /// Who its run copies are assigned to.
    pub assignee: Option<TemplateAssignee>,
    /// Essential tasks cannot be skipped.
    pub is_essential: bool,
    /// Task or approval.
    pub task_type: TaskType,
    /// How a run task's due date is worked out.
    pub due_date: Option<DueDateRule>,
    /// Whether completing it sends a `process_step.completed` webhook.
    pub webhook_enabled: bool,
    /// Its form fields, in order.
    pub custom_elements: Vec<CustomElement>,
    /// When it was created.
    pub created_at: OffsetDateTime,
}

impl Template {
    /// Whether any rule or dependency can hide or block one of its tasks: runs of a template
    /// without logic carry none.
    #[must_use]
    pub fn has_logic(&self) -> bool {
        !self.rules.is_empty() || self.tasks.iter().any(|t| !t.depends_on.is_empty())
    }

    /// The task with this id.
    #[must_use]
    pub fn task(&self, id: TemplateTaskId) -> Option<&TemplateTask> {
        self.tasks.iter().find(|task| task.id == id)
    }

    /// Refuses edits while the template is published.
    ///
    /// # Errors
    /// [`DomainError::TemplatePublished`] when it is published.
    pub fn ensure_editable(&self) -> Result<(), DomainError> {
        if self.is_published {
            Err(DomainError::TemplatePublished)
        } else {
            Ok(())
        }
    }

    /// Publishes or unpublishes; returns whether anything changed.
    ///
    /// Publishing adds 1 to `version`; publishing a published template is a no-op, and so is
    /// unpublishing a draft.
    ///
    /// # Errors
    /// [`DomainError::TemplateHasNoTask`] when publishing a template without tasks.
    pub fn set_published(
        &mut self,
        published: bool,
        now: OffsetDateTime,
    ) -> Result<bool, DomainError> {
        if published == self.is_published {
            return Ok(false);
        }
        if published {
            if self.tasks.is_empty() {
                return Err(DomainError::TemplateHasNoTask);
            }
            self.version += 1;
        }
        self.is_published = published;
        self.updated_at = now;
        Ok(true)
    }
}

impl crate::etag::Tagged for Template {}
