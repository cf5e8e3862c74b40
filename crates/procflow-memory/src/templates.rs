//! `TemplateStore` in memory.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::state::paginate;
use crate::store::InMemoryStore;
use procflow_domain::error::{DomainError, DomainResult, Resource};
use procflow_domain::ids::{TeamId, TemplateId};
use procflow_domain::ports::{TemplateDecision, TemplateStore};
use procflow_domain::template::{Template, TemplateTask};
use procflow_domain::values::{Page, PageRequest};

#[async_trait]
impl TemplateStore for InMemoryStore {
    async fn list_templates(
        &self,
        team: TeamId,
        page: PageRequest,
    ) -> DomainResult<Page<Template>> {
        let state = self.state();
        let mut templates: Vec<Template> = state
            .templates
            .iter()
            .filter(|(t, archived)| t.team_id == team && !archived)
            .map(|(t, _)| Template {
                tasks: Vec::new(),
                ..t.clone()
            })
            .collect();
        templates.sort_by_key(|t| (t.created_at, t.id));
        paginate(&templates, page, |t| t.id.as_uuid())
    }

    async fn get_template(&self, team: TeamId, id: TemplateId) -> DomainResult<Template> {
        self.state().template(team, id).cloned()
    }

    async fn list_template_tasks(
        &self,
        team: TeamId,
        id: TemplateId,
        page: PageRequest,
    ) -> DomainResult<Page<TemplateTask>> {
        let state = self.state();
        paginate(&state.template(team, id)?.tasks, page, |t| t.id.as_uuid())
    }

    async fn insert_template(&self, template: &Template) -> DomainResult<()> {
        let mut state = self.state();
        if state
            .templates
            .iter()
            .any(|(t, _)| t.team_id == template.team_id && t.id == template.id)
        {
            return Err(DomainError::Conflict("the template exists already".into()));
        }
        state.templates.push((template.clone(), false));
        Ok(())
    }

    async fn update_template(
        &self,
        team: TeamId,
        id: TemplateId,
        decide: &TemplateDecision<'_>,
    ) -> DomainResult<Template> {
        let mut state = self.state();
        let current = state.template(team, id)?.clone();
        let next = decide(current)?;
        if let Some((slot, _)) = state
            .templates
            .iter_mut()
            .find(|(t, _)| t.team_id == team && t.id == id)
        {
            *slot = next.clone();
        }
        Ok(next)
    }

    async fn archive_template(
        &self,
        team: TeamId,
        id: TemplateId,
        _now: OffsetDateTime,
    ) -> DomainResult<()> {
        let mut state = self.state();
        let (_, archived) = state
            .templates
            .iter_mut()
            .find(|(t, archived)| t.team_id == team && t.id == id && !*archived)
            .ok_or(DomainError::NotFound(Resource::Template))?;
        *archived = true;
        Ok(())
    }
}
