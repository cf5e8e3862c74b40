//! Use cases on templates: reading, authoring, publishing.

use super::Procflow;
use crate::error::DomainResult;
use crate::etag::IfMatch;
use crate::ids::TemplateId;
use crate::team::Team;
use crate::template::{Template, TemplateDocument, TemplateTask};
use crate::values::{Page, PageRequest};

impl Procflow {
    /// A page of the team's templates (without their tasks).
    ///
    /// # Errors
    /// A validation error for an unknown cursor.
    pub async fn list_templates(
        &self,
        team: &Team,
        page: PageRequest,
    ) -> DomainResult<Page<Template>> {
        self.ports.templates.list_templates(team.id, page).await
    }

    /// One template with its sections and tasks.
    ///
    /// # Errors
    /// `NotFound(Template)`.
    pub async fn get_template(&self, team: &Team, id: TemplateId) -> DomainResult<Template> {
        self.ports.templates.get_template(team.id, id).await
    }

    /// A page of a template's tasks, by order.
    ///
    /// # Errors
    /// `NotFound(Template)`; a validation error for an unknown cursor.
    pub async fn list_template_tasks(
        &self,
        team: &Team,
        id: TemplateId,
        page: PageRequest,
    ) -> DomainResult<Page<TemplateTask>> {
        self.ports
            .templates
            .list_template_tasks(team.id, id, page)
            .await
    }

    /// Creates a draft from an authoring document.
    ///
    /// # Errors
    /// A validation error naming the path at fault.
    pub async fn create_template(
        &self,
        team: &Team,
        document: TemplateDocument,
    ) -> DomainResult<Template> {
        let template = document.build(team.id, None, &*self.ports.ids, self.ports.clock.now())?;
        self.ports.templates.insert_template(&template).await?;
        Ok(template)
    }

    /// Replaces a draft's document, keeping the ids the document gives; with `if_match`, only
    /// when the template's current tag matches (checked under the store's lock).
    ///
    /// # Errors
    /// `NotFound(Template)`, `PreconditionFailed`, `TemplatePublished`, or a validation error
    /// naming the path at fault.
    pub async fn replace_template(
        &self,
        team: &Team,
        id: TemplateId,
        document: TemplateDocument,
        if_match: Option<&IfMatch>,
    ) -> DomainResult<Template> {
        let now = self.ports.clock.now();
        let ids = &*self.ports.ids;
        self.ports
            .templates
            .update_template(team.id, id, &|current| {
                if let Some(condition) = if_match {
                    condition.check(&current)?;
                }
                current.ensure_editable()?;
                Ok(document.clone().build(team.id, Some(&current), ids, now)?)
            })
            .await
    }

    /// Publishes (`true`) or unpublishes (`false`); publishing adds 1 to the version.
    ///
    /// # Errors
    /// `NotFound(Template)`, or a validation error when publishing a template without tasks.
    pub async fn publish_template(
        &self,
        team: &Team,
        id: TemplateId,
        published: bool,
    ) -> DomainResult<Template> {
        let now = self.ports.clock.now();
        self.ports
            .templates
            .update_template(team.id, id, &|mut template| {
                template.set_published(published, now)?;
                Ok(template)
            })
            .await
    }

    /// Archives a template; runs started from it are untouched.
    ///
    /// # Errors
    /// `NotFound(Template)`.
    pub async fn archive_template(&self, team: &Team, id: TemplateId) -> DomainResult<()> {
        self.ports
            .templates
            .archive_template(team.id, id, self.ports.clock.now())
            .await
    }
}
