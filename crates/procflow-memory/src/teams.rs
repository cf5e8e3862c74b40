//! `TeamStore` in memory: teams, members and API keys.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::store::InMemoryStore;
use procflow_domain::error::{DomainError, DomainResult, Resource};
use procflow_domain::ids::{ApiKeyId, TeamId, UserId};
use procflow_domain::ports::TeamStore;
use procflow_domain::team::{ApiKey, Member, Role, Subscription, Team};
use procflow_domain::values::Email;

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

    async fn active_admins(&self, team: TeamId) -> DomainResult<Vec<Member>> {
        let mut admins: Vec<Member> = self
            .state()
            .members
            .iter()
            .filter(|m| m.team_id == team && m.role == Role::Admin && m.active)
            .cloned()
            .collect();
        admins.sort_by_key(|m| (m.created_at, m.id));
        Ok(admins)
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

    async fn list_api_keys(&self, team: TeamId) -> DomainResult<Vec<ApiKey>> {
        let mut keys: Vec<ApiKey> = self
            .state()
            .keys
            .iter()
            .filter(|(key, _)| key.team_id == team)
            .map(|(key, _)| key.clone())
            .collect();
        keys.sort_by_key(|key| (key.created_at, key.id));
        Ok(keys)
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
