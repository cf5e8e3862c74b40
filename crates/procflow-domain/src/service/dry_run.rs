//! Dry runs (API contract 15.2): the use cases as they are, over stores that read through and
//! never write. A write that decides (a task, a batch, a template) reads what the real store
//! would read, runs the same decision and answers its result; a plain insert (a run, a
//! template) answers as if written. So a dry run takes every check and the decision of the
//! real request, and leaves no row, no event, no outbox row and no email behind.

use std::sync::Arc;

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{Ports, Procflow};
use crate::error::{DomainError, DomainResult, Resource, StoreError};
use crate::ids::{RunId, TaskId, TeamId, TemplateId};
use crate::ports::{
    RunStore, ShareDecision, TaskDecision, TasksDecision, TemplateDecision, TemplateStore,
};
use crate::run::{
    InboxFilter, InboxTask, ListedTask, NewRun, Run, RunFilter, RunTask, TaskChange, TasksChange,
};
use crate::sharing::{Share, ShareChange};
use crate::template::{Template, TemplateTask};
use crate::values::{Page, PageRequest, ShareToken};

impl Procflow {
    /// The same service whose template and run stores never write: every use case of it runs
    /// its checks and its decision and answers what it would have written (API contract 15.2).
    /// Only creating and replacing templates, publishing, starting runs and updating tasks are
    /// meant to be called on it; sharing refuses.
    #[must_use]
    pub fn dry_run(&self) -> Self {
        Self::new(Ports {
            templates: Arc::new(DryTemplates(Arc::clone(&self.ports.templates))),
            runs: Arc::new(DryRuns(Arc::clone(&self.ports.runs))),
            ..self.ports.clone()
        })
    }
}

/// A write a dry run has no business making (sharing): refused as a bug would be.
fn not_in_a_dry_run(what: &str) -> DomainError {
    DomainError::Store(StoreError::Other(format!("{what} is no dry-run operation")))
}

struct DryTemplates(Arc<dyn TemplateStore>);

#[async_trait]
impl TemplateStore for DryTemplates {
    async fn list_templates(
        &self,
        team: TeamId,
        page: PageRequest,
    ) -> DomainResult<Page<Template>> {
        self.0.list_templates(team, page).await
    }

    async fn get_template(&self, team: TeamId, id: TemplateId) -> DomainResult<Template> {
        self.0.get_template(team, id).await
    }

    async fn list_template_tasks(
        &self,
        team: TeamId,
        id: TemplateId,
        page: PageRequest,
    ) -> DomainResult<Page<TemplateTask>> {
        self.0.list_template_tasks(team, id, page).await
    }

    async fn insert_template(&self, _template: &Template) -> DomainResult<()> {
        Ok(())
    }

    async fn update_template(
        &self,
        team: TeamId,
        id: TemplateId,
        decide: &TemplateDecision<'_>,
    ) -> DomainResult<Template> {
        decide(self.0.get_template(team, id).await?)
    }

    async fn archive_template(
        &self,
        _team: TeamId,
        _id: TemplateId,
        _now: OffsetDateTime,
    ) -> DomainResult<()> {
        Err(not_in_a_dry_run("archiving a template"))
    }
}

struct DryRuns(Arc<dyn RunStore>);

#[async_trait]
impl RunStore for DryRuns {
    async fn create_run(&self, _new_run: &NewRun) -> DomainResult<()> {
        // The use case has read the template of the team already: the real insert's one
        // refusal (another team's template) cannot happen here.
        Ok(())
    }

    async fn get_run(&self, team: TeamId, id: RunId) -> DomainResult<Run> {
        self.0.get_run(team, id).await
    }

    async fn list_runs(
        &self,
        team: TeamId,
        filter: RunFilter,
        page: PageRequest,
    ) -> DomainResult<Page<Run>> {
        self.0.list_runs(team, filter, page).await
    }

    async fn list_tasks(
        &self,
        team: TeamId,
        run: RunId,
        page: PageRequest,
    ) -> DomainResult<Page<ListedTask>> {
        self.0.list_tasks(team, run, page).await
    }

    async fn list_inbox(
        &self,
        team: TeamId,
        filter: &InboxFilter,
        now: OffsetDateTime,
        page: PageRequest,
    ) -> DomainResult<Page<InboxTask>> {
        self.0.list_inbox(team, filter, now, page).await
    }

    async fn get_task(&self, team: TeamId, run: RunId, task: TaskId) -> DomainResult<RunTask> {
        self.0.get_task(team, run, task).await
    }

    async fn update_task(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
        decide: &TaskDecision<'_>,
    ) -> DomainResult<TaskChange> {
        // The real store's order of refusals: the run, then the task.
        let header = self.0.get_run(team, run).await?;
        let current = self.0.get_task(team, run, task).await?;
        decide(&header, &current)
    }

    async fn update_tasks(
        &self,
        team: TeamId,
        run: RunId,
        tasks: &[TaskId],
        decide: &TasksDecision<'_>,
    ) -> DomainResult<TasksChange> {
        let header = self.0.get_run(team, run).await?;
        // As the real store: the run's tasks among `tasks`, in that order; others left out
        // (the decision names them).
        let mut current = Vec::with_capacity(tasks.len());
        for task in tasks {
            match self.0.get_task(team, run, *task).await {
                Ok(found) => current.push(found),
                Err(DomainError::NotFound(Resource::Task)) => {}
                Err(other) => return Err(other),
            }
        }
        decide(&header, &current)
    }

    async fn get_share(&self, team: TeamId, run: RunId) -> DomainResult<Option<Share>> {
        self.0.get_share(team, run).await
    }

    async fn share_run(
        &self,
        _team: TeamId,
        _run: RunId,
        _decide: &ShareDecision<'_>,
    ) -> DomainResult<ShareChange> {
        Err(not_in_a_dry_run("sharing a run"))
    }

    async fn add_share_link(
        &self,
        _team: TeamId,
        _run: RunId,
        _token: &ShareToken,
        _at: OffsetDateTime,
    ) -> DomainResult<bool> {
        Err(not_in_a_dry_run("adding a share link"))
    }

    async fn unshare_run(
        &self,
        _team: TeamId,
        _run: RunId,
        _now: OffsetDateTime,
    ) -> DomainResult<Run> {
        Err(not_in_a_dry_run("stopping sharing"))
    }

    async fn find_shared_run(&self, run: RunId, token: &ShareToken) -> DomainResult<(Run, Share)> {
        self.0.find_shared_run(run, token).await
    }

    async fn read_shared_run(
        &self,
        run: RunId,
        token: &ShareToken,
    ) -> DomainResult<(Run, Share, Vec<RunTask>)> {
        self.0.read_shared_run(run, token).await
    }

    async fn record_guest_engagement(
        &self,
        _team: TeamId,
        _run: RunId,
        _at: OffsetDateTime,
    ) -> DomainResult<bool> {
        Err(not_in_a_dry_run("recording a guest's engagement"))
    }
}
