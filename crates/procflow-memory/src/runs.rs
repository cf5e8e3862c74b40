//! `RunStore` in memory: runs, their tasks and their sharing.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::state::paginate;
use crate::store::InMemoryStore;
use procflow_domain::error::{DomainError, DomainResult, Resource, StoreError};
use procflow_domain::ids::{RunId, TaskId, TeamId};
use procflow_domain::ports::{RunStore, ShareDecision, TaskDecision, TasksDecision};
use procflow_domain::run::{
    InboxFilter, InboxTask, ListedTask, NewRun, Run, RunFilter, RunTask, TaskChange, TaskFlags,
    TasksChange, inbox_key,
};
use procflow_domain::sharing::{Share, ShareChange};
use procflow_domain::values::{Page, PageRequest, ShareToken};

#[async_trait]
impl RunStore for InMemoryStore {
    async fn create_run(&self, new_run: &NewRun) -> DomainResult<()> {
        let mut state = self.state();
        if !state
            .templates
            .iter()
            .any(|(t, _)| t.id == new_run.run.template_id && t.team_id == new_run.run.team_id)
        {
            return Err(DomainError::NotFound(Resource::Template));
        }
        state.runs.push(new_run.run.clone());
        state
            .tasks
            .insert((new_run.run.team_id, new_run.run.id), new_run.tasks.clone());
        state.append(&new_run.events);
        Ok(())
    }

    async fn get_run(&self, team: TeamId, id: RunId) -> DomainResult<Run> {
        let state = self.state();
        Ok(state.runs[state.run_index(team, id)?].clone())
    }

    async fn list_runs(
        &self,
        team: TeamId,
        filter: RunFilter,
        page: PageRequest,
    ) -> DomainResult<Page<Run>> {
        let state = self.state();
        let mut runs: Vec<Run> = state
            .runs
            .iter()
            .filter(|r| r.team_id == team)
            .filter(|r| filter.template_id.is_none_or(|t| r.template_id == t))
            .filter(|r| filter.status.is_none_or(|s| r.status() == s))
            .cloned()
            .collect();
        runs.sort_by_key(|r| std::cmp::Reverse(r.id));
        paginate(&runs, page, |r| r.id.as_uuid())
    }

    async fn list_tasks(
        &self,
        team: TeamId,
        run: RunId,
        page: PageRequest,
    ) -> DomainResult<Page<ListedTask>> {
        let state = self.state();
        state.run_index(team, run)?;
        let listed = state
            .tasks
            .get(&(team, run))
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(listed)
            .collect::<DomainResult<Vec<_>>>()?;
        paginate(&listed, page, |t| t.id.as_uuid())
    }

    async fn list_inbox(
        &self,
        team: TeamId,
        filter: &InboxFilter,
        now: OffsetDateTime,
        page: PageRequest,
    ) -> DomainResult<Page<InboxTask>> {
        let state = self.state();
        let mut listed: Vec<InboxTask> = state
            .runs
            .iter()
            .filter(|r| r.team_id == team)
            .flat_map(|run| {
                let tasks = state
                    .tasks
                    .get(&(team, run.id))
                    .map_or(&[][..], Vec::as_slice);
                tasks
                    .iter()
                    .filter(|t| filter.admits(t, run.status(), run.template_id, now))
                    .map(|t| {
                        Ok(InboxTask {
                            task: listed(t)?,
                            run_title: run.title.clone(),
                        })
                    })
            })
            .collect::<DomainResult<_>>()?;
        listed.sort_by_key(|i| (inbox_key(i.task.due_date), i.task.id));
        paginate(&listed, page, |i| i.task.id.as_uuid())
    }

    async fn get_task(&self, team: TeamId, run: RunId, task: TaskId) -> DomainResult<RunTask> {
        let state = self.state();
        state.run_index(team, run)?;
        state
            .tasks
            .get(&(team, run))
            .and_then(|tasks| tasks.iter().find(|t| t.id == task))
            .cloned()
            .ok_or(DomainError::NotFound(Resource::Task))
    }

    async fn update_task(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
        decide: &TaskDecision<'_>,
    ) -> DomainResult<TaskChange> {
        let mut state = self.state();
        let run_index = state.run_index(team, run)?;
        let key = (team, run);
        let task_index = state
            .tasks
            .get(&key)
            .and_then(|tasks| tasks.iter().position(|t| t.id == task))
            .ok_or(DomainError::NotFound(Resource::Task))?;
        let change = decide(&state.runs[run_index], &state.tasks[&key][task_index])?;
        state.runs[run_index] = change.run.clone();
        if let Some(tasks) = state.tasks.get_mut(&key) {
            tasks[task_index] = change.task.clone();
            set_flags(tasks, &change.flags);
        }
        state.append(&change.events);
        Ok(change)
    }

    async fn update_tasks(
        &self,
        team: TeamId,
        run: RunId,
        tasks: &[TaskId],
        decide: &TasksDecision<'_>,
    ) -> DomainResult<TasksChange> {
        let mut state = self.state();
        let run_index = state.run_index(team, run)?;
        let key = (team, run);
        let current: Vec<RunTask> = {
            let of_run = state.tasks.get(&key).map_or(&[][..], Vec::as_slice);
            tasks
                .iter()
                .filter_map(|id| of_run.iter().find(|t| t.id == *id).cloned())
                .collect()
        };
        let change = decide(&state.runs[run_index], &current)?;
        state.runs[run_index] = change.run.clone();
        if let Some(of_run) = state.tasks.get_mut(&key) {
            for task in change
                .tasks
                .iter()
                .filter(|t| change.changed.contains(&t.id))
            {
                if let Some(slot) = of_run.iter_mut().find(|t| t.id == task.id) {
                    *slot = task.clone();
                }
            }
            set_flags(of_run, &change.flags);
        }
        state.append(&change.events);
        Ok(change)
    }

    async fn get_share(&self, team: TeamId, run: RunId) -> DomainResult<Option<Share>> {
        let state = self.state();
        state.run_index(team, run)?;
        Ok(state.shares.get(&(team, run)).cloned())
    }

    async fn share_run(
        &self,
        team: TeamId,
        run: RunId,
        decide: &ShareDecision<'_>,
    ) -> DomainResult<ShareChange> {
        let mut state = self.state();
        let index = state.run_index(team, run)?;
        let change = decide(&state.runs[index], state.shares.get(&(team, run)))?;
        state.runs[index] = change.run.clone();
        state.shares.insert((team, run), change.share.clone());
        state.share_links.insert(change.token.digest(), (team, run));
        state.append(&change.events);
        Ok(change)
    }

    async fn add_share_link(
        &self,
        team: TeamId,
        run: RunId,
        token: &ShareToken,
        _at: OffsetDateTime,
    ) -> DomainResult<bool> {
        let mut state = self.state();
        if !state.shares.contains_key(&(team, run)) {
            return Ok(false);
        }
        state.share_links.insert(token.digest(), (team, run));
        Ok(true)
    }

    async fn unshare_run(
        &self,
        team: TeamId,
        run: RunId,
        now: OffsetDateTime,
    ) -> DomainResult<Run> {
        let mut state = self.state();
        let index = state.run_index(team, run)?;
        state.shares.remove(&(team, run));
        state.share_links.retain(|_, shared| *shared != (team, run));
        let record = &mut state.runs[index];
        if record.is_shared {
            record.is_shared = false;
            record.updated_at = Some(now);
        }
        Ok(record.clone())
    }

    async fn find_shared_run(&self, run: RunId, token: &ShareToken) -> DomainResult<(Run, Share)> {
        let state = self.state();
        let (team, share) = state.shared_while_subscribed(run, token)?;
        let index = state.run_index(team, run)?;
        Ok((state.runs[index].clone(), share.clone()))
    }

    async fn read_shared_run(
        &self,
        run: RunId,
        token: &ShareToken,
    ) -> DomainResult<(Run, Share, Vec<RunTask>)> {
        let state = self.state();
        let (team, share) = state.shared_while_subscribed(run, token)?;
        let found = state.runs[state.run_index(team, run)?].clone();
        let tasks = state.tasks.get(&(team, run)).cloned().unwrap_or_default();
        Ok((found, share.clone(), tasks))
    }

    async fn record_guest_engagement(
        &self,
        team: TeamId,
        run: RunId,
        at: OffsetDateTime,
    ) -> DomainResult<bool> {
        let mut state = self.state();
        let guest = state
            .shares
            .get_mut(&(team, run))
            .and_then(|share| share.guest.as_mut())
            .filter(|guest| guest.engaged_at.is_none());
        Ok(guest.map(|guest| guest.engaged_at = Some(at)).is_some())
    }
}

/// Writes the flags a change turned on tasks it did not write itself.
fn set_flags(tasks: &mut [RunTask], flags: &[(TaskId, TaskFlags)]) {
    for (id, flags) in flags {
        if let Some(task) = tasks.iter_mut().find(|t| t.id == *id) {
            (task.hidden, task.blocked) = (flags.hidden, flags.blocked);
        }
    }
}

/// A task as the listings carry it, its elements written as the store would hold them.
fn listed(task: &RunTask) -> DomainResult<ListedTask> {
    task.listed()
        .map_err(|e| StoreError::Other(format!("a task's elements: {e}")).into())
}
