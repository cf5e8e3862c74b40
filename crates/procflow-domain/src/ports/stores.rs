//! The stores the use cases read and change: templates, runs (with their tasks and sharing),
//! teams, and the outbox their changes append to. In the domain because the use cases are
//! written against them; `procflow-postgres` and the in-memory fakes implement them.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::Clearance;
use crate::actor::Assignee;
use crate::error::DomainResult;
use crate::event::{Event, UnreadableEvent};
use crate::ids::{ApiKeyId, EventId, RunId, TaskId, TeamId, TemplateId, UserId};
use crate::run::{
    InboxFilter, InboxTask, ListedTask, NewRun, Run, RunFilter, RunTask, TaskChange, TasksChange,
};
use crate::sharing::{Share, ShareChange};
use crate::team::{ApiKey, Member, Subscription, Team};
use crate::template::{Template, TemplateTask};
use crate::values::{Email, Page, PageRequest, ShareToken};

/// Decides a task change from the run and the task as they are under the store's lock.
pub type TaskDecision<'a> = dyn Fn(&Run, &RunTask) -> DomainResult<TaskChange> + Send + Sync + 'a;

/// Decides a change of several tasks from the run and those tasks as they are under the
/// store's lock.
pub type TasksDecision<'a> =
    dyn Fn(&Run, &[RunTask]) -> DomainResult<TasksChange> + Send + Sync + 'a;

/// Decides an invitation from the run and its current share under the store's lock.
pub type ShareDecision<'a> =
    dyn Fn(&Run, Option<&Share>) -> DomainResult<ShareChange> + Send + Sync + 'a;

/// Decides a template's new state from its current one under the store's lock.
pub type TemplateDecision<'a> = dyn Fn(Template) -> DomainResult<Template> + Send + Sync + 'a;

/// Templates of a team.
#[async_trait]
pub trait TemplateStore: Send + Sync {
    /// A page of the team's templates, by `created_at` then id, each with its sections and
    /// without its tasks (`tasks` is empty).
    ///
    /// # Errors
    /// MUST refuse a cursor that names no template of the team with a validation error
    /// ([`Cursor::unknown`](crate::values::Cursor::unknown)). Archived templates MUST NOT appear.
    async fn list_templates(&self, team: TeamId, page: PageRequest)
    -> DomainResult<Page<Template>>;

    /// One template with its sections and tasks.
    ///
    /// # Errors
    /// MUST answer `NotFound(Template)` for a missing, archived or other team's template.
    async fn get_template(&self, team: TeamId, id: TemplateId) -> DomainResult<Template>;

    /// A page of a template's tasks, by `order`, each with its elements.
    ///
    /// # Errors
    /// `NotFound(Template)` as for [`get_template`](Self::get_template); an unknown cursor as
    /// for [`list_templates`](Self::list_templates).
    async fn list_template_tasks(
        &self,
        team: TeamId,
        id: TemplateId,
        page: PageRequest,
    ) -> DomainResult<Page<TemplateTask>>;

    /// Stores a new template with its sections, tasks and elements.
    ///
    /// # Errors
    /// MUST answer `Conflict` when the id exists already.
    async fn insert_template(&self, template: &Template) -> DomainResult<()>;

    /// Replaces a template by what `decide` makes of its current state, under a lock on it, and
    /// returns the new state. Nothing is written when `decide` refuses.
    ///
    /// # Errors
    /// `NotFound(Template)` as for [`get_template`](Self::get_template); whatever `decide`
    /// answers.
    async fn update_template(
        &self,
        team: TeamId,
        id: TemplateId,
        decide: &TemplateDecision<'_>,
    ) -> DomainResult<Template>;

    /// Archives a template: it leaves lists and gets; runs started from it are untouched.
    ///
    /// # Errors
    /// `NotFound(Template)` as for [`get_template`](Self::get_template).
    async fn archive_template(
        &self,
        team: TeamId,
        id: TemplateId,
        now: OffsetDateTime,
    ) -> DomainResult<()>;
}

/// Runs of a team, their tasks and their sharing.
#[async_trait]
pub trait RunStore: Send + Sync {
    /// Writes a new run (its logic's plan and state included), its tasks (their `hidden` and
    /// `blocked` included) and its events in one transaction: all or nothing.
    ///
    /// # Errors
    /// MUST answer `NotFound(Template)` when the template is not the run's team's.
    async fn create_run(&self, new_run: &NewRun) -> DomainResult<()>;

    /// One run header.
    ///
    /// # Errors
    /// MUST answer `NotFound(Run)` for a missing or other team's run.
    async fn get_run(&self, team: TeamId, id: RunId) -> DomainResult<Run>;

    /// A page of runs, newest first.
    ///
    /// # Errors
    /// MUST refuse a cursor that names no run of the filtered list with a validation error.
    async fn list_runs(
        &self,
        team: TeamId,
        filter: RunFilter,
        page: PageRequest,
    ) -> DomainResult<Page<Run>>;

    /// A page of a run's tasks, by `order`, their elements as stored.
    ///
    /// # Errors
    /// `NotFound(Run)` as for [`get_run`](Self::get_run); an unknown cursor as a validation error.
    async fn list_tasks(
        &self,
        team: TeamId,
        run: RunId,
        page: PageRequest,
    ) -> DomainResult<Page<ListedTask>>;

    /// A page of the team's inbox (API contract 15.1): the tasks of every run of the team that
    /// `filter` admits at `now` ([`InboxFilter::admits`]), never a hidden one, by due date (no
    /// due date last) then id, each with its run's title. The cost of a page MUST NOT grow with
    /// the number of runs or tasks of the team (an index serves the order).
    ///
    /// # Errors
    /// A cursor that names no task of the filtered list as a validation error.
    async fn list_inbox(
        &self,
        team: TeamId,
        filter: &InboxFilter,
        now: OffsetDateTime,
        page: PageRequest,
    ) -> DomainResult<Page<InboxTask>>;

    /// One task of a run.
    ///
    /// # Errors
    /// `NotFound(Run)` for a missing run, `NotFound(Task)` for a task not of that run.
    async fn get_task(&self, team: TeamId, run: RunId, task: TaskId) -> DomainResult<RunTask>;

    /// Whom one task of a run is assigned to, as [`get_task`](Self::get_task) shows it, read
    /// alone: a comment's write looks up whom it emails before its transaction, and needs
    /// nothing else of the task. A store may answer it without reading the whole task.
    ///
    /// # Errors
    /// As [`get_task`](Self::get_task).
    async fn task_assignee(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
    ) -> DomainResult<Option<Assignee>> {
        Ok(self.get_task(team, run, task).await?.assignee)
    }

    /// Changes a task by what `decide` makes of the run and the task, read under a lock on the
    /// run (or an equivalent compare-and-set), and writes the task, the run header (its logic's
    /// state included), the flags of the other tasks the change turned
    /// ([`TaskChange::flags`]) and the change's events in one transaction. With any number of concurrent calls on one run no
    /// change is lost and the run completes exactly once. Nothing is written when `decide`
    /// refuses. The cost MUST NOT grow with the number of tasks of the run.
    ///
    /// # Errors
    /// `NotFound` as for [`get_task`](Self::get_task); whatever `decide` answers.
    async fn update_task(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
        decide: &TaskDecision<'_>,
    ) -> DomainResult<TaskChange>;

    /// [`update_task`](Self::update_task) for a caller whose admission may still be under way:
    /// nothing is written before `clearance` clears it, and nothing at all when it refuses (the
    /// transaction rolls back, its locks go). A store MAY read, and lock, before it awaits
    /// `clearance`, so that its reads overlap the admission; this default awaits it first.
    ///
    /// # Errors
    /// As [`update_task`](Self::update_task); `clearance`'s refusal.
    async fn update_task_cleared(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
        decide: &TaskDecision<'_>,
        clearance: &dyn Clearance,
    ) -> DomainResult<TaskChange> {
        clearance.cleared().await?;
        self.update_task(team, run, task, decide).await
    }

    /// Changes several tasks of a run at once: reads the run under a lock (its header: the
    /// sections MAY be left out, as the decision never needs them), with those of `tasks` that
    /// are the run's (in the order of `tasks`; ids that name no task of the run are left out),
    /// calls `decide`, and writes the changed tasks, the run header, the flags of the other
    /// tasks the change turned ([`TasksChange::flags`]) and the events in one transaction: all
    /// or nothing. Nothing is written when `decide` refuses.
    /// Serialised with [`update_task`](Self::update_task) and other batches on the same run
    /// by the same lock. The cost MUST NOT grow with the number of tasks of the run, and its
    /// round trips MUST NOT grow with the number of tasks changed (set-based statements).
    ///
    /// # Errors
    /// `NotFound(Run)` as for [`get_run`](Self::get_run); whatever `decide` answers.
    async fn update_tasks(
        &self,
        team: TeamId,
        run: RunId,
        tasks: &[TaskId],
        decide: &TasksDecision<'_>,
    ) -> DomainResult<TasksChange>;

    /// The run's share, `None` when it is not shared.
    ///
    /// # Errors
    /// `NotFound(Run)` as for [`get_run`](Self::get_run).
    async fn get_share(&self, team: TeamId, run: RunId) -> DomainResult<Option<Share>>;

    /// Shares a run by what `decide` makes of it and its current share, under a lock on the
    /// run; writes the run, the share, the guest and the events in one transaction.
    ///
    /// # Errors
    /// `NotFound(Run)` as for [`get_run`](Self::get_run); whatever `decide` answers.
    async fn share_run(
        &self,
        team: TeamId,
        run: RunId,
        decide: &ShareDecision<'_>,
    ) -> DomainResult<ShareChange>;

    /// Keeps one more link to a shared run: `token`'s digest beside its other links, each
    /// opening the run until sharing is turned off. Answers whether the run is shared (and so
    /// whether the link was kept).
    ///
    /// # Errors
    /// Only store failures: a run not shared, missing or another team's is `Ok(false)`.
    async fn add_share_link(
        &self,
        team: TeamId,
        run: RunId,
        token: &ShareToken,
        at: OffsetDateTime,
    ) -> DomainResult<bool>;

    /// Turns sharing off: every link is void and the guest record removed.
    ///
    /// # Errors
    /// `NotFound(Run)` as for [`get_run`](Self::get_run).
    async fn unshare_run(&self, team: TeamId, run: RunId, now: OffsetDateTime)
    -> DomainResult<Run>;

    /// The run a share link opens, with its share (and guest), whichever its team: the token
    /// is the capability.
    ///
    /// # Errors
    /// MUST answer `NotFound(Run)` when the run does not exist, is not shared, or the token is
    /// none of its links' (compared by digest), alike; then, for a right link,
    /// `SubscriptionInactive` while the run's team's subscription is not active (read with the
    /// link, not in a statement of its own).
    async fn find_shared_run(&self, run: RunId, token: &ShareToken) -> DomainResult<(Run, Share)>;

    /// What a share link opens, in one read: the run, its share (and guest) and every task by
    /// order, whichever the team. The token is the capability.
    ///
    /// # Errors
    /// As [`find_shared_run`](Self::find_shared_run): `NotFound(Run)` alike for a run that
    /// does not exist, is not shared, or whose token is another; `SubscriptionInactive` for a
    /// right link while the team's subscription is not active.
    async fn read_shared_run(
        &self,
        run: RunId,
        token: &ShareToken,
    ) -> DomainResult<(Run, Share, Vec<RunTask>)>;

    /// Records that the run's guest engaged (opened the shared run) at `at`, unless an
    /// engagement is recorded already: the first one's time is kept, and of concurrent calls
    /// at most one records. Answers whether this call recorded it.
    ///
    /// # Errors
    /// Only store failures: a run without a guest (a missing or other team's run included)
    /// is `Ok(false)`.
    async fn record_guest_engagement(
        &self,
        team: TeamId,
        run: RunId,
        at: OffsetDateTime,
    ) -> DomainResult<bool>;
}

/// Teams, members and API keys.
#[async_trait]
pub trait TeamStore: Send + Sync {
    /// The key with this hash and its team, whichever the team: a key is what names the team.
    /// Revoked keys MUST NOT be found.
    ///
    /// # Errors
    /// Only store failures; an unknown key is `Ok(None)`.
    async fn find_api_key(&self, key_hash: &[u8; 32]) -> DomainResult<Option<(ApiKey, Team)>>;

    /// One team.
    ///
    /// # Errors
    /// `NotFound(Team)`.
    async fn get_team(&self, team: TeamId) -> DomainResult<Team>;

    /// The member of the team with this email (ignoring case), active or not.
    ///
    /// # Errors
    /// Only store failures.
    async fn find_member_by_email(
        &self,
        team: TeamId,
        email: &Email,
    ) -> DomainResult<Option<Member>>;

    /// The member of the team with this id, active or not.
    ///
    /// # Errors
    /// Only store failures.
    async fn find_member(&self, team: TeamId, user: UserId) -> DomainResult<Option<Member>>;

    /// The team's active admins, oldest first: who is told when a schedule fails.
    ///
    /// # Errors
    /// Only store failures; a team without one answers an empty list.
    async fn active_admins(&self, team: TeamId) -> DomainResult<Vec<Member>>;

    /// Creates a team with its first member (an admin).
    ///
    /// # Errors
    /// `Conflict` when the team id exists.
    async fn create_team(&self, team: &Team, admin: &Member) -> DomainResult<()>;

    /// Adds a member.
    ///
    /// # Errors
    /// `NotFound(Team)`; `Conflict` when the team has a member with that email.
    async fn add_member(&self, member: &Member) -> DomainResult<()>;

    /// Writes a member's role and active flag.
    ///
    /// # Errors
    /// `NotFound(Member)`.
    async fn update_member(&self, member: &Member) -> DomainResult<()>;

    /// Stores a key's record and the hash of its secret.
    ///
    /// # Errors
    /// `NotFound(Member)` when `created_by` is no member of the key's team (a missing team
    /// included); `Conflict` when the hash exists.
    async fn insert_api_key(&self, key: &ApiKey, key_hash: &[u8; 32]) -> DomainResult<()>;

    /// Every key of the team, revoked ones included, by creation time then id.
    ///
    /// # Errors
    /// Only store failures; a team without keys (or no such team) has none.
    async fn list_api_keys(&self, team: TeamId) -> DomainResult<Vec<ApiKey>>;

    /// Revokes a key at once.
    ///
    /// # Errors
    /// `NotFound(ApiKey)` for a missing or other team's key.
    async fn revoke_api_key(
        &self,
        team: TeamId,
        key: ApiKeyId,
        now: OffsetDateTime,
    ) -> DomainResult<()>;

    /// Sets the team's subscription status.
    ///
    /// # Errors
    /// `NotFound(Team)`.
    async fn set_subscription(&self, team: TeamId, status: Subscription) -> DomainResult<()>;
}

/// An event taken from the outbox for delivery.
#[derive(Clone, Debug, PartialEq)]
pub struct OutboxEntry {
    /// Its id, read from the row rather than the payload, so that an event that cannot be read
    /// can still be named and set aside.
    pub id: EventId,
    /// Its kind as the row names it.
    pub kind: String,
    /// The event, or why its stored form cannot be read.
    pub event: Result<Event, UnreadableEvent>,
    /// Deliveries tried so far.
    pub attempts: u32,
}

/// An event set aside because it cannot be dispatched, ever: kept for operators, never handed
/// out again unless [`requeue`](Outbox::requeue)d.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadEvent {
    /// Its id.
    pub id: EventId,
    /// Its team.
    pub team_id: TeamId,
    /// Its kind as the row names it.
    pub kind: String,
    /// When it happened.
    pub occurred_at: OffsetDateTime,
    /// When it was set aside.
    pub dead_at: OffsetDateTime,
    /// Why.
    pub error: String,
}

/// The outbox, as the delivery worker sees it. Stores append events to it in the transaction of
/// the change that raised them; this port only takes them out to hand them to the channels
/// (webhook deliveries, ...), which makes each event dispatched once every channel has what it
/// needs from it.
#[async_trait]
pub trait Outbox: Send + Sync {
    /// Leases up to `limit` due events until `lease_until`; an event leased by one worker MUST
    /// NOT be handed to another before its lease runs out.
    ///
    /// # Errors
    /// Only store failures.
    async fn claim(
        &self,
        limit: usize,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
    ) -> DomainResult<Vec<OutboxEntry>>;

    /// Marks events dispatched; they are not handed out again.
    ///
    /// # Errors
    /// Only store failures.
    async fn complete(&self, ids: &[EventId]) -> DomainResult<()>;

    /// Sets events aside, each with the reason it cannot be dispatched, at `at`: they MUST NOT
    /// be handed out again (whatever their lease) until [`requeue`](Self::requeue)d, and they
    /// leave the event feed. An event already dispatched is left as it is.
    ///
    /// # Errors
    /// Only store failures.
    async fn set_aside(&self, dead: &[(EventId, String)], at: OffsetDateTime) -> DomainResult<()>;

    /// Up to `limit` events set aside, oldest first (`dead_at`, then id), of every team.
    ///
    /// # Errors
    /// Only store failures.
    async fn dead_events(&self, limit: usize) -> DomainResult<Vec<DeadEvent>>;

    /// Puts an event set aside back in the queue, due at `now`, its lease and error cleared;
    /// answers whether there was such an event (`false` for an unknown id or one not set
    /// aside, nothing changed).
    ///
    /// # Errors
    /// Only store failures.
    async fn requeue(&self, id: EventId, now: OffsetDateTime) -> DomainResult<bool>;

    /// Puts an event back, due again at `retry_at`, with the error for operators.
    ///
    /// # Errors
    /// Only store failures.
    async fn retry(&self, id: EventId, retry_at: OffsetDateTime, error: &str) -> DomainResult<()>;

    /// Removes the dispatched events that happened before `before` (they leave the event
    /// feed). Answers how many.
    ///
    /// # Errors
    /// Only store failures.
    async fn sweep_events(&self, before: OffsetDateTime) -> DomainResult<u64>;
}
