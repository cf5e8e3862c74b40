//! One in-memory store implementing every store port, behind one lock. The rate limiter and
//! the idempotency records, which keep state of their own, are in `rate_limits` and
//! `idempotency`.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;
use time::OffsetDateTime;
use uuid::Uuid;

use super::idempotency::IdempotencyRecords;
use super::rate_limits::RateLogs;
use crate::error::{DomainError, DomainResult, Resource};
use crate::event::Event;
use crate::ids::{ApiKeyId, EventId, RunId, TaskId, TeamId, TemplateId, UserId};
use crate::ports::{
    Outbox, OutboxEntry, RunStore, ShareDecision, TaskDecision, TeamStore, TemplateDecision,
    TemplateStore,
};
use crate::run::{NewRun, Run, RunFilter, RunTask, TaskChange};
use crate::sharing::{Share, ShareChange};
use crate::team::{ApiKey, Member, Role, Subscription, Team};
use crate::template::{Template, TemplateTask};
use crate::values::{Cursor, Email, Page, PageRequest, ShareToken};

/// Every store port in memory but the PostgreSQL figures (`StoreStats`, `HealthCheck`). All
/// reads and decisions happen under one lock, which makes each port call atomic, as the
/// contracts ask; clones of an `Arc` of it are what server instances sharing a database are.
#[derive(Debug, Default)]
pub struct InMemoryStore(Mutex<State>);

#[derive(Debug, Default)]
pub(super) struct State {
    teams: HashMap<TeamId, Team>,
    members: Vec<Member>,
    keys: Vec<(ApiKey, [u8; 32])>,
    templates: Vec<(Template, bool)>,
    runs: Vec<Run>,
    // Keyed by team and id, as PostgreSQL keys them: two teams' records never meet, even
    // under one id.
    tasks: HashMap<(TeamId, RunId), Vec<RunTask>>,
    shares: HashMap<(TeamId, RunId), Share>,
    outbox: Vec<OutboxRow>,
    pub(super) rate_limits: RateLogs,
    pub(super) idempotency: IdempotencyRecords,
}

#[derive(Debug)]
struct OutboxRow {
    event: Event,
    attempts: u32,
    due_at: OffsetDateTime,
    leased_until: Option<OffsetDateTime>,
    delivered: bool,
}

impl InMemoryStore {
    pub(super) fn state(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Creates (once) and returns a team `Demo` with an active subscription and an admin,
    /// `admin@demo.example`.
    #[must_use]
    pub fn demo_team(&self) -> Team {
        let team = Team {
            id: TeamId::from_uuid(Uuid::from_u128(0xD0)),
            name: "Demo".into(),
            base_url: "https://demo.example".into(),
            timezone: "UTC".into(),
            subscription: Subscription::Active,
            created_at: time::macros::datetime!(2026-01-01 0:00 UTC),
        };
        let mut state = self.state();
        if let std::collections::hash_map::Entry::Vacant(slot) = state.teams.entry(team.id) {
            slot.insert(team.clone());
            state.members.push(Member {
                id: UserId::from_uuid(Uuid::from_u128(0xAD)),
                team_id: team.id,
                email: Email::try_from("admin@demo.example".to_owned())
                    .unwrap_or_else(|_| unreachable!("a valid literal")),
                name: Some("Demo Admin".into()),
                role: Role::Admin,
                active: true,
                created_at: team.created_at,
            });
        }
        team
    }

    /// Every event appended so far, in order.
    #[must_use]
    pub fn events(&self) -> Vec<Event> {
        self.state()
            .outbox
            .iter()
            .map(|row| row.event.clone())
            .collect()
    }
}

fn paginate<T: Clone>(
    items: &[T],
    page: PageRequest,
    id: impl Fn(&T) -> Uuid,
) -> DomainResult<Page<T>> {
    let start = match page.cursor {
        None => 0,
        Some(cursor) => {
            items
                .iter()
                .position(|item| id(item) == cursor.id())
                .ok_or_else(Cursor::unknown)?
                + 1
        }
    };
    let fetched = items
        .iter()
        .skip(start)
        .take(page.limit.get() + 1)
        .cloned()
        .collect();
    Ok(Page::from_fetched(fetched, page.limit, id))
}

impl State {
    /// The unrevoked key with this hash and its team.
    pub(super) fn key_and_team(&self, key_hash: &[u8; 32]) -> Option<(ApiKey, Team)> {
        self.keys
            .iter()
            .find(|(key, hash)| hash == key_hash && key.revoked_at.is_none())
            .and_then(|(key, _)| {
                self.teams
                    .get(&key.team_id)
                    .map(|team| (key.clone(), team.clone()))
            })
    }

    fn template(&self, team: TeamId, id: TemplateId) -> DomainResult<&Template> {
        self.templates
            .iter()
            .find(|(t, archived)| t.team_id == team && t.id == id && !archived)
            .map(|(t, _)| t)
            .ok_or(DomainError::NotFound(Resource::Template))
    }

    fn run_index(&self, team: TeamId, id: RunId) -> DomainResult<usize> {
        self.runs
            .iter()
            .position(|r| r.team_id == team && r.id == id)
            .ok_or(DomainError::NotFound(Resource::Run))
    }

    fn append(&mut self, events: &[Event]) {
        self.outbox.extend(events.iter().map(|event| OutboxRow {
            event: event.clone(),
            attempts: 0,
            due_at: event.occurred_at,
            leased_until: None,
            delivered: false,
        }));
    }
}

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
    ) -> DomainResult<Page<RunTask>> {
        let state = self.state();
        state.run_index(team, run)?;
        paginate(
            state.tasks.get(&(team, run)).map_or(&[][..], Vec::as_slice),
            page,
            |t| t.id.as_uuid(),
        )
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
        state.append(&change.events);
        Ok(change)
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
        let record = &mut state.runs[index];
        if record.is_shared {
            record.is_shared = false;
            record.updated_at = Some(now);
        }
        Ok(record.clone())
    }

    async fn find_shared_run(&self, run: RunId, token: &ShareToken) -> DomainResult<Run> {
        let state = self.state();
        // The token is the capability: whichever team's run it opens.
        state
            .shares
            .iter()
            .find(|((_, shared), share)| *shared == run && &share.token == token)
            .and_then(|((team, _), _)| state.run_index(*team, run).ok())
            .map(|index| state.runs[index].clone())
            .ok_or(DomainError::NotFound(Resource::Run))
    }
}

#[async_trait]
impl TeamStore for InMemoryStore {
    async fn find_api_key(&self, key_hash: &[u8; 32]) -> DomainResult<Option<(ApiKey, Team)>> {
        Ok(self.state().key_and_team(key_hash))
    }

    async fn get_team(&self, team: TeamId) -> DomainResult<Team> {
        self.state()
            .teams
            .get(&team)
            .cloned()
            .ok_or(DomainError::NotFound(Resource::Team))
    }

    async fn find_member_by_email(
        &self,
        team: TeamId,
        email: &Email,
    ) -> DomainResult<Option<Member>> {
        Ok(self
            .state()
            .members
            .iter()
            .find(|m| m.team_id == team && &m.email == email)
            .cloned())
    }

    async fn find_member(&self, team: TeamId, user: UserId) -> DomainResult<Option<Member>> {
        Ok(self
            .state()
            .members
            .iter()
            .find(|m| m.team_id == team && m.id == user)
            .cloned())
    }

    async fn create_team(&self, team: &Team, admin: &Member) -> DomainResult<()> {
        let mut state = self.state();
        if state.teams.contains_key(&team.id) {
            return Err(DomainError::Conflict("the team exists already".into()));
        }
        state.teams.insert(team.id, team.clone());
        state.members.push(admin.clone());
        Ok(())
    }

    async fn add_member(&self, member: &Member) -> DomainResult<()> {
        let mut state = self.state();
        if !state.teams.contains_key(&member.team_id) {
            return Err(DomainError::NotFound(Resource::Team));
        }
        if state
            .members
            .iter()
            .any(|m| m.team_id == member.team_id && m.email == member.email)
        {
            return Err(DomainError::Conflict(
                "the team has a member with this email".into(),
            ));
        }
        state.members.push(member.clone());
        Ok(())
    }

    async fn update_member(&self, member: &Member) -> DomainResult<()> {
        let mut state = self.state();
        let slot = state
            .members
            .iter_mut()
            .find(|m| m.team_id == member.team_id && m.id == member.id)
            .ok_or(DomainError::NotFound(Resource::Member))?;
        slot.role = member.role;
        slot.active = member.active;
        Ok(())
    }

    async fn insert_api_key(&self, key: &ApiKey, key_hash: &[u8; 32]) -> DomainResult<()> {
        let mut state = self.state();
        if !state
            .members
            .iter()
            .any(|m| m.team_id == key.team_id && m.id == key.created_by)
        {
            return Err(DomainError::NotFound(Resource::Member));
        }
        if state.keys.iter().any(|(_, hash)| hash == key_hash) {
            return Err(DomainError::Conflict("the key exists already".into()));
        }
        state.keys.push((key.clone(), *key_hash));
        Ok(())
    }

    async fn revoke_api_key(
        &self,
        team: TeamId,
        key: ApiKeyId,
        now: OffsetDateTime,
    ) -> DomainResult<()> {
        let mut state = self.state();
        let (record, _) = state
            .keys
            .iter_mut()
            .find(|(k, _)| k.team_id == team && k.id == key)
            .ok_or(DomainError::NotFound(Resource::ApiKey))?;
        record.revoked_at.get_or_insert(now);
        Ok(())
    }

    async fn set_subscription(&self, team: TeamId, status: Subscription) -> DomainResult<()> {
        let mut state = self.state();
        let record = state
            .teams
            .get_mut(&team)
            .ok_or(DomainError::NotFound(Resource::Team))?;
        record.subscription = status;
        Ok(())
    }
}

#[async_trait]
impl Outbox for InMemoryStore {
    async fn claim(
        &self,
        limit: usize,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
    ) -> DomainResult<Vec<OutboxEntry>> {
        let mut state = self.state();
        Ok(state
            .outbox
            .iter_mut()
            .filter(|row| {
                !row.delivered && row.due_at <= now && row.leased_until.is_none_or(|l| l <= now)
            })
            .take(limit)
            .map(|row| {
                row.leased_until = Some(lease_until);
                OutboxEntry {
                    event: row.event.clone(),
                    attempts: row.attempts,
                }
            })
            .collect())
    }

    async fn complete(&self, id: EventId) -> DomainResult<()> {
        if let Some(row) = self
            .state()
            .outbox
            .iter_mut()
            .find(|row| row.event.id == id)
        {
            row.delivered = true;
        }
        Ok(())
    }

    async fn retry(&self, id: EventId, retry_at: OffsetDateTime, _error: &str) -> DomainResult<()> {
        if let Some(row) = self
            .state()
            .outbox
            .iter_mut()
            .find(|row| row.event.id == id)
        {
            row.attempts += 1;
            row.due_at = retry_at;
            row.leased_until = None;
        }
        Ok(())
    }
}
