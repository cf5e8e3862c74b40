//! Rows of `teams`, `members` and `api_keys`.

use diesel::prelude::*;
use procflow_domain::error::DomainError;
use procflow_domain::ids::{ApiKeyId, TeamId, UserId};
use procflow_domain::team::{ApiKey, Member, Team};
use time::OffsetDateTime;
use uuid::Uuid;

use super::parse;
use crate::schema::{api_keys, members, teams};

#[derive(Queryable, Selectable, Insertable, Debug)]
#[diesel(table_name = teams, check_for_backend(diesel::pg::Pg))]
pub(crate) struct TeamRow {
    pub id: Uuid,
    pub name: String,
    pub base_url: String,
    pub timezone: String,
    pub subscription: String,
    pub created_at: OffsetDateTime,
}

#[derive(Queryable, Selectable, Insertable, Debug)]
#[diesel(table_name = members, check_for_backend(diesel::pg::Pg))]
pub(crate) struct MemberRow {
    pub team_id: Uuid,
    pub id: Uuid,
    pub email: String,
    pub name: Option<String>,
    pub role: String,
    pub active: bool,
    pub created_at: OffsetDateTime,
}

#[derive(Queryable, Selectable, Insertable, Debug)]
#[diesel(table_name = api_keys, check_for_backend(diesel::pg::Pg))]
pub(crate) struct ApiKeyRow {
    pub team_id: Uuid,
    pub id: Uuid,
    pub name: Option<String>,
    pub prefix: String,
    pub key_hash: Vec<u8>,
    pub created_by: Uuid,
    pub created_at: OffsetDateTime,
    pub revoked_at: Option<OffsetDateTime>,
    pub scope: String,
}

impl TeamRow {
    pub(crate) fn from_domain(team: &Team) -> Self {
        Self {
            id: team.id.as_uuid(),
            name: team.name.clone(),
            base_url: team.base_url.clone(),
            timezone: team.timezone.clone(),
            subscription: team.subscription.as_str().to_owned(),
            created_at: team.created_at,
        }
    }

    pub(crate) fn into_domain(self) -> Result<Team, DomainError> {
        Ok(Team {
            id: TeamId::from_uuid(self.id),
            name: self.name,
            base_url: self.base_url,
            timezone: self.timezone,
            subscription: parse("subscription", &self.subscription)?,
            created_at: self.created_at,
        })
    }
}

impl MemberRow {
    pub(crate) fn from_domain(member: &Member) -> Self {
        Self {
            team_id: member.team_id.as_uuid(),
            id: member.id.as_uuid(),
            email: member.email.as_str().to_owned(),
            name: member.name.clone(),
            role: member.role.as_str().to_owned(),
            active: member.active,
            created_at: member.created_at,
        }
    }

    pub(crate) fn into_domain(self) -> Result<Member, DomainError> {
        Ok(Member {
            id: UserId::from_uuid(self.id),
            team_id: TeamId::from_uuid(self.team_id),
            email: parse("member email", &self.email)?,
            name: self.name,
            role: parse("role", &self.role)?,
            active: self.active,
            created_at: self.created_at,
        })
    }
}

impl ApiKeyRow {
    pub(crate) fn from_domain(key: &ApiKey, key_hash: &[u8; 32]) -> Self {
        Self {
            team_id: key.team_id.as_uuid(),
            id: key.id.as_uuid(),
            name: key.name.clone(),
            prefix: key.prefix.clone(),
            key_hash: key_hash.to_vec(),
            created_by: key.created_by.as_uuid(),
            created_at: key.created_at,
            revoked_at: key.revoked_at,
            scope: key.scope.as_str().to_owned(),
        }
    }

    pub(crate) fn into_domain(self) -> Result<ApiKey, DomainError> {
        Ok(ApiKey {
            id: ApiKeyId::from_uuid(self.id),
            team_id: TeamId::from_uuid(self.team_id),
            name: self.name,
            prefix: self.prefix,
            created_by: UserId::from_uuid(self.created_by),
            scope: parse("key scope", &self.scope)?,
            created_at: self.created_at,
            revoked_at: self.revoked_at,
        })
    }
}
