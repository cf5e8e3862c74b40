//! Use cases on runs and their tasks.

use std::collections::HashSet;

use time::OffsetDateTime;

use super::Procflow;
use crate::actor::{Assignee, TemplateAssignee};
use crate::error::DomainResult;
use crate::etag::IfMatch;
use crate::ids::{RunId, TaskId, TeamId, TemplateId};
use crate::ports::{Clearance, Cleared};
use crate::run::{
    Decision, ElementWrite, InboxFilter, InboxTask, ListedTask, Prefill, Run, RunFilter, RunTask,
    StartRun, TaskChange, TaskPatch,
};
use crate::team::{Member, Team};
use crate::template::Template;
use crate::values::{Email, Page, PageRequest};

/// Create a run (spec 4.6).
#[derive(Clone, Debug, PartialEq)]
pub struct CreateRun {
    /// The template; it must be published.
    pub template_id: TemplateId,
    /// The title; the template's when `None`.
    pub name: Option<String>,
    /// When the run is due.
    pub due_date: Option<OffsetDateTime>,
    /// The member to attribute the run to; the run falls back to `api` when it names no active
    /// member (spec 4.6 rule 6).
    pub actor_email: Option<Email>,
    /// Values to pre-fill.
    pub custom_elements: Vec<Prefill>,
}

impl CreateRun {
    /// A run of `template_id` with nothing else given.
    #[must_use]
    pub fn of(template_id: TemplateId) -> Self {
        Self {
            template_id,
            name: None,
            due_date: None,
            actor_email: None,
            custom_elements: Vec::new(),
        }
    }
}

/// Update a task (spec 4.11 and API contract 6); `None` leaves a field as it is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateTask {
    /// Complete (`true`) or reopen (`false`).
    pub completed: Option<bool>,
    /// Skip (`true`) or un-skip (`false`) a non-essential task.
    pub skipped: Option<bool>,
    /// `Some(None)` unassigns; `Some(Some(a))` assigns a member (by user id or email) or
    /// anyone else by email.
    pub assignee: Option<Option<Assignee>>,
    /// Who acts; `api` unless it names an active member.
    pub actor_email: Option<Email>,
    /// Values to write.
    pub custom_elements: Vec<ElementWrite>,
    /// The decision on an approval task.
    pub decision: Option<Decision>,
    /// A comment with the decision.
    pub comment: Option<String>,
    /// Applies only when the task's current tag matches (`If-Match`), checked under the
    /// store's lock.
    pub if_match: Option<IfMatch>,
}

/// An assignee change resolved: the new assignee (`Some(None)` unassigns), and where to notify.
pub(super) type Resolved = (Option<Option<Assignee>>, Option<Email>);

impl UpdateTask {
    /// The state machine's patch, with the assignee resolved.
    pub(super) fn into_patch(self, (assignee, assignee_email): Resolved) -> TaskPatch {
        TaskPatch {
            completed: self.completed,
            skipped: self.skipped,
            assignee,
            assignee_email,
            custom_elements: self.custom_elements,
            decision: self.decision,
            comment: self.comment,
        }
    }
}

impl Procflow {
    /// Starts a run of a published template of the team, attributed to `actor_email`'s member
    /// when it names an active one.
    ///
    /// # Errors
    /// `NotFound(Template)`, `TemplateNotPublished`, or a validation error from the title or
    /// the pre-fill.
    pub async fn create_run(&self, team: &Team, request: CreateRun) -> DomainResult<Run> {
        let new_run = self.prepare_run(team, request).await?;
        self.ports.runs.create_run(&new_run).await?;
        Ok(new_run.run)
    }

    /// Everything [`create_run`](Self::create_run) checks and builds, without writing it:
    /// the run a schedule's occurrence writes in its own transaction.
    pub(crate) async fn prepare_run(
        &self,
        team: &Team,
        request: CreateRun,
    ) -> DomainResult<crate::run::NewRun> {
        let template = self
            .ports
            .templates
            .get_template(team.id, request.template_id)
            .await?;
        let runner = self
            .active_member(team.id, request.actor_email.as_ref())
            .await?;
        let members = self.template_assignees(team.id, &template).await?;
        Run::start(
            StartRun {
                template: &template,
                title: request.name,
                due_date: request.due_date,
                runner: runner.as_ref(),
                members: &members,
                timezone: team.timezone.clone(),
                prefill: request.custom_elements,
            },
            &*self.ports.ids,
            self.ports.clock.now(),
        )
    }

    /// The team's members the template's tasks are assigned to (by user id or email), each
    /// once.
    async fn template_assignees(
        &self,
        team: TeamId,
        template: &Template,
    ) -> DomainResult<Vec<Member>> {
        let named: HashSet<&Assignee> = template
            .tasks
            .iter()
            .filter_map(|task| match &task.assignee {
                Some(TemplateAssignee::Fixed(assignee)) => Some(assignee),
                _ => None,
            })
            .collect();
        let mut members = Vec::new();
        for assignee in named {
            let teams = &self.ports.teams;
            members.extend(match assignee {
                Assignee::User(user) => teams.find_member(team, *user).await?,
                Assignee::Email(email) => teams.find_member_by_email(team, email).await?,
            });
        }
        Ok(members)
    }

    /// One run of the team.
    ///
    /// # Errors
    /// `NotFound(Run)`.
    pub async fn get_run(&self, team: &Team, run: RunId) -> DomainResult<Run> {
        self.ports.runs.get_run(team.id, run).await
    }

    /// A page of the team's runs, newest first.
    ///
    /// # Errors
    /// A validation error for an unknown cursor.
    pub async fn list_runs(
        &self,
        team: &Team,
        filter: RunFilter,
        page: PageRequest,
    ) -> DomainResult<Page<Run>> {
        self.ports.runs.list_runs(team.id, filter, page).await
    }

    /// A page of a run's tasks, by order, their elements as stored.
    ///
    /// # Errors
    /// `NotFound(Run)`; a validation error for an unknown cursor.
    pub async fn list_tasks(
        &self,
        team: &Team,
        run: RunId,
        page: PageRequest,
    ) -> DomainResult<Page<ListedTask>> {
        self.ports.runs.list_tasks(team.id, run, page).await
    }

    /// A page of the team's inbox (API contract 15.1), read at the clock's now: a member's
    /// email names the member (as an assignment by email does), any other email an external
    /// assignee.
    ///
    /// # Errors
    /// A validation error for an unknown cursor.
    pub async fn list_inbox(
        &self,
        team: &Team,
        mut filter: InboxFilter,
        page: PageRequest,
    ) -> DomainResult<Page<InboxTask>> {
        if let Some(Assignee::Email(email)) = &filter.assignee
            && let Some(member) = self
                .ports
                .teams
                .find_member_by_email(team.id, email)
                .await?
        {
            filter.assignee = Some(Assignee::User(member.id));
        }
        let now = self.ports.clock.now();
        self.ports
            .runs
            .list_inbox(team.id, &filter, now, page)
            .await
    }

    /// One task of a run.
    ///
    /// # Errors
    /// `NotFound(Run)` or `NotFound(Task)`.
    pub async fn get_task(&self, team: &Team, run: RunId, task: TaskId) -> DomainResult<RunTask> {
        self.ports.runs.get_task(team.id, run, task).await
    }

    /// Applies one PATCH to a task; the run completes when its last open task closes.
    ///
    /// # Errors
    /// `NotFound(Run)` or `NotFound(Task)`, `RunCompleted`, or a validation error.
    pub async fn update_task(
        &self,
        team: &Team,
        run: RunId,
        task: TaskId,
        request: UpdateTask,
    ) -> DomainResult<TaskChange> {
        self.update_task_cleared(team, run, task, request, &Cleared)
            .await
    }

    /// [`update_task`](Self::update_task) for a caller whose admission may still be under way:
    /// the store reads the run and the task, and writes only once `clearance` clears the
    /// caller ([`RunStore::update_task_cleared`](crate::ports::RunStore::update_task_cleared)).
    ///
    /// # Errors
    /// As [`update_task`](Self::update_task); `clearance`'s refusal.
    pub async fn update_task_cleared(
        &self,
        team: &Team,
        run: RunId,
        task: TaskId,
        request: UpdateTask,
        clearance: &dyn Clearance,
    ) -> DomainResult<TaskChange> {
        let actor = self.actor(team.id, request.actor_email.as_ref()).await?;
        let if_match = request.if_match.clone();
        let assignee = self.assignee(team, request.assignee.clone()).await?;
        let patch = request.into_patch(assignee);
        let (clock, ids) = (&*self.ports.clock, &*self.ports.ids);
        // The time is read under the store's lock, so that the change that completes a run is
        // also the latest: completed_at never precedes a task's completion. The precondition
        // is checked there too, so that of two writers sending the same tag one fails.
        self.ports
            .runs
            .update_task_cleared(
                team.id,
                run,
                task,
                &|run, task| {
                    if let Some(condition) = &if_match {
                        condition.check(task)?;
                    }
                    patch.apply(run, task, actor, ids, clock.now())
                },
                clearance,
            )
            .await
    }

    /// A requested assignee as the patch takes it: a member's user id or email resolved to the
    /// member, with the address to notify.
    pub(super) async fn assignee(
        &self,
        team: &Team,
        requested: Option<Option<Assignee>>,
    ) -> DomainResult<Resolved> {
        Ok(match requested {
            None => (None, None),
            Some(None) => (Some(None), None),
            Some(Some(assignee)) => {
                let (assignee, email) = self.resolve_assignee(team.id, assignee).await?;
                (Some(Some(assignee)), email)
            }
        })
    }
}
