//! `RunLinkStore` in memory: one link per template, found by its token's digest as
//! PostgreSQL finds it.

use async_trait::async_trait;

use crate::store::InMemoryStore;
use procflow_domain::error::{DomainError, DomainResult, Resource};
use procflow_domain::ids::{TeamId, TemplateId};
use procflow_domain::ports::RunLinkStore;
use procflow_domain::run_link::RunLink;
use procflow_domain::values::ShareToken;

#[async_trait]
impl RunLinkStore for InMemoryStore {
    async fn put_run_link(&self, link: &RunLink) -> DomainResult<RunLink> {
        let mut state = self.state();
        if !state
            .templates
            .iter()
            .any(|(t, _)| t.id == link.template_id && t.team_id == link.team_id)
        {
            return Err(DomainError::NotFound(Resource::Template));
        }
        if let Some(kept) = state
            .run_links
            .iter()
            .find(|l| l.team_id == link.team_id && l.template_id == link.template_id)
        {
            return Ok(kept.clone());
        }
        state.run_links.push(link.clone());
        Ok(link.clone())
    }

    async fn get_run_link(
        &self,
        team: TeamId,
        template: TemplateId,
    ) -> DomainResult<Option<RunLink>> {
        Ok(self
            .state()
            .run_links
            .iter()
            .find(|l| l.team_id == team && l.template_id == template)
            .cloned())
    }

    async fn delete_run_link(&self, team: TeamId, template: TemplateId) -> DomainResult<bool> {
        let mut state = self.state();
        let before = state.run_links.len();
        state
            .run_links
            .retain(|l| !(l.team_id == team && l.template_id == template));
        Ok(state.run_links.len() < before)
    }

    async fn find_run_link(&self, token: &ShareToken) -> DomainResult<Option<RunLink>> {
        let digest = token.digest();
        Ok(self
            .state()
            .run_links
            .iter()
            .find(|l| l.token.digest() == digest)
            .cloned())
    }
}
