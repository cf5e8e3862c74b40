//! `CommentStore` in memory.

use async_trait::async_trait;

use crate::state::{State, paginate};
use crate::store::InMemoryStore;
use procflow_domain::comment::Comment;
use procflow_domain::error::{DomainError, DomainResult, Resource};
use procflow_domain::ids::{CommentId, RunId, TaskId, TeamId};
use procflow_domain::ports::{CommentDecision, CommentEdit, CommentStore};
use procflow_domain::run::BareTask;
use procflow_domain::values::{Page, PageRequest};

/// The run's title and the task, as `get_task` finds them, without its elements.
pub(crate) fn run_and_task(
    state: &State,
    team: TeamId,
    run: RunId,
    task: TaskId,
) -> DomainResult<(String, BareTask)> {
    let title = state.runs[state.run_index(team, run)?].title.clone();
    let task = state
        .tasks
        .get(&(team, run))
        .and_then(|tasks| tasks.iter().find(|t| t.id == task))
        .map(|task| task.clone().with_elements(()))
        .ok_or(DomainError::NotFound(Resource::Task))?;
    Ok((title, task))
}

/// Keeps of a comment's attachments those that still exist, as PostgreSQL's join does.
fn current_attachments(state: &State, comment: &mut Comment) {
    comment.attachments.retain(|a| {
        state
            .attachments
            .iter()
            .any(|row| row.team_id == a.team_id && row.id == a.id)
    });
}

#[async_trait]
impl CommentStore for InMemoryStore {
    async fn add_comment(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
        decide: &CommentDecision<'_>,
    ) -> DomainResult<Comment> {
        let mut state = self.state();
        let (title, task) = run_and_task(&state, team, run, task)?;
        let new = decide(&title, &task)?;
        state.comments.push(new.comment.clone());
        state.append(&new.events);
        Ok(new.comment)
    }

    async fn list_comments(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
        page: PageRequest,
    ) -> DomainResult<Page<Comment>> {
        let state = self.state();
        run_and_task(&state, team, run, task)?;
        let mut thread: Vec<Comment> = state
            .comments
            .iter()
            .filter(|c| c.team_id == team && c.run_id == run && c.task_id == task)
            .cloned()
            .collect();
        thread.sort_by_key(|c| c.id);
        for comment in &mut thread {
            current_attachments(&state, comment);
        }
        paginate(&thread, page, |c| c.id.as_uuid())
    }

    async fn latest_run_comments(
        &self,
        team: TeamId,
        run: RunId,
        limit: usize,
    ) -> DomainResult<Vec<Comment>> {
        let state = self.state();
        let mut found: Vec<Comment> = state
            .comments
            .iter()
            .filter(|c| c.team_id == team && c.run_id == run)
            .cloned()
            .collect();
        found.sort_by_key(|c| c.id);
        let cut = found.len().saturating_sub(limit);
        Ok(found.split_off(cut))
    }

    async fn get_comment(&self, team: TeamId, id: CommentId) -> DomainResult<Comment> {
        let state = self.state();
        let mut comment = state
            .comments
            .iter()
            .find(|c| c.team_id == team && c.id == id)
            .cloned()
            .ok_or(DomainError::NotFound(Resource::Comment))?;
        current_attachments(&state, &mut comment);
        Ok(comment)
    }

    async fn update_comment(
        &self,
        team: TeamId,
        id: CommentId,
        decide: &CommentEdit<'_>,
    ) -> DomainResult<Comment> {
        let mut state = self.state();
        let index = state
            .comments
            .iter()
            .position(|c| c.team_id == team && c.id == id)
            .ok_or(DomainError::NotFound(Resource::Comment))?;
        let mut current = state.comments[index].clone();
        current_attachments(&state, &mut current);
        let next = decide(&current)?;
        state.comments[index] = next.clone();
        Ok(next)
    }
}
