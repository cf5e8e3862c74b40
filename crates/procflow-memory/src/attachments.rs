//! `AttachmentStore` in memory.

use async_trait::async_trait;
use procflow_domain::attachment::Attachment;
use procflow_domain::error::{DomainError, DomainResult, Resource};
use procflow_domain::ids::{AttachmentId, RunId, TaskId, TeamId};
use procflow_domain::ports::{AttachmentDecision, AttachmentStore};
use procflow_domain::values::{Page, PageRequest};

use crate::comments::run_and_task;
use crate::state::paginate;
use crate::store::InMemoryStore;

#[async_trait]
impl AttachmentStore for InMemoryStore {
    async fn add_attachment(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
        decide: &AttachmentDecision<'_>,
    ) -> DomainResult<Attachment> {
        let mut state = self.state();
        let (_, task) = run_and_task(&state, team, run, task)?;
        let new = decide(&task)?;
        state.attachments.push(new.attachment.clone());
        state.append(&new.events);
        Ok(new.attachment)
    }

    async fn list_attachments(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
        page: PageRequest,
    ) -> DomainResult<Page<Attachment>> {
        let state = self.state();
        run_and_task(&state, team, run, task)?;
        let mut found: Vec<Attachment> = state
            .attachments
            .iter()
            .filter(|a| a.team_id == team && a.run_id == run && a.task_id == task)
            .cloned()
            .collect();
        found.sort_by_key(|a| a.id);
        paginate(&found, page, |a| a.id.as_uuid())
    }

    async fn latest_run_attachments(
        &self,
        team: TeamId,
        run: RunId,
        limit: usize,
    ) -> DomainResult<Vec<Attachment>> {
        let state = self.state();
        let mut found: Vec<Attachment> = state
            .attachments
            .iter()
            .filter(|a| a.team_id == team && a.run_id == run)
            .cloned()
            .collect();
        found.sort_by_key(|a| a.id);
        let cut = found.len().saturating_sub(limit);
        Ok(found.split_off(cut))
    }

    async fn get_attachment(&self, team: TeamId, id: AttachmentId) -> DomainResult<Attachment> {
        self.state()
            .attachments
            .iter()
            .find(|a| a.team_id == team && a.id == id)
            .cloned()
            .ok_or(DomainError::NotFound(Resource::Attachment))
    }

    async fn find_attachments(
        &self,
        team: TeamId,
        ids: &[AttachmentId],
    ) -> DomainResult<Vec<Attachment>> {
        let mut found: Vec<Attachment> = self
            .state()
            .attachments
            .iter()
            .filter(|a| a.team_id == team && ids.contains(&a.id))
            .cloned()
            .collect();
        found.sort_by_key(|a| a.id);
        Ok(found)
    }

    async fn delete_attachment(&self, team: TeamId, id: AttachmentId) -> DomainResult<Attachment> {
        let mut state = self.state();
        let index = state
            .attachments
            .iter()
            .position(|a| a.team_id == team && a.id == id)
            .ok_or(DomainError::NotFound(Resource::Attachment))?;
        Ok(state.attachments.remove(index))
    }
}
