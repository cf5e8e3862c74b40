//! `create-api-key` (only by an active admin), `list-api-keys` and `revoke-api-key`.

use procflow_domain::error::ErrorCode;
use std::collections::HashMap;

use procflow_domain::ids::{ApiKeyId, UserId};
use procflow_domain::team::{ApiKey, Member, Role};
use serde_json::{Value, json};

use super::{Admin, optional_name, rfc3339};
use crate::cli::{CreateApiKey, ListApiKeys, RevokeApiKey};
use crate::error::CommandError;

impl Admin {
    pub(super) async fn create_api_key(&self, args: CreateApiKey) -> Result<Value, CommandError> {
        let ports = self.procflow.ports();
        let team = self.team(args.team).await?;
        let member = self
            .teams()
            .find_member_by_email(team.id, &args.admin_email)
            .await?;
        let admin = active_admin(member, &args.admin_email.to_string())?;
        let name = optional_name("--name", args.name)?;
        let new = procflow_http::keys::generate().map_err(|e| {
            CommandError::api(
                ErrorCode::InternalError,
                format!("no randomness for a key: {e}"),
            )
        })?;
        let key = ApiKey {
            id: ApiKeyId::from_uuid(ports.ids.new_id()),
            team_id: team.id,
            name,
            prefix: new.prefix.clone(),
            created_by: admin.id,
            scope: args.scope,
            created_at: ports.clock.now(),
            revoked_at: None,
        };
        self.teams().insert_api_key(&key, &new.hash).await?;
        tracing::info!(team.id = %team.id, key.id = %key.id, key.prefix = %key.prefix,
            key.scope = %key.scope, "created an API key");
        Ok(json!({"key_id": key.id, "key": new.plain, "prefix": key.prefix, "scope": key.scope}))
    }

    /// Every key of the team, oldest first, each with its creator's email when the creator is
    /// still a member; never the key itself (only its hash is stored).
    pub(super) async fn list_api_keys(&self, args: ListApiKeys) -> Result<Value, CommandError> {
        let team = self.team(args.team).await?;
        let keys = self.teams().list_api_keys(team.id).await?;
        let mut creators: HashMap<UserId, Option<String>> = HashMap::new();
        let mut listed = Vec::with_capacity(keys.len());
        for key in keys {
            let email = match creators.get(&key.created_by) {
                Some(email) => email.clone(),
                None => {
                    let member = self.teams().find_member(team.id, key.created_by).await?;
                    let email = member.map(|m| m.email.to_string());
                    creators.insert(key.created_by, email.clone());
                    email
                }
            };
            listed.push(json!({
                "key_id": key.id,
                "prefix": key.prefix,
                "name": key.name,
                "scope": key.scope,
                "created_by": key.created_by,
                "created_by_email": email,
                "created_at": rfc3339(key.created_at)?,
                "revoked_at": key.revoked_at.map(rfc3339).transpose()?,
            }));
        }
        Ok(json!({"team_id": team.id, "keys": listed}))
    }

    pub(super) async fn revoke_api_key(&self, args: RevokeApiKey) -> Result<Value, CommandError> {
        let now = self.procflow.ports().clock.now();
        self.teams()
            .revoke_api_key(args.team, args.key_id, now)
            .await?;
        tracing::info!(team.id = %args.team, key.id = %args.key_id, "revoked an API key");
        Ok(json!({"revoked": true, "key_id": args.key_id}))
    }
}

/// Only an active admin of the team may create keys (API contract 2).
fn active_admin(member: Option<Member>, email: &str) -> Result<Member, CommandError> {
    let refuse = |why: &str| {
        CommandError::api(
            ErrorCode::Forbidden,
            format!("{email} {why}; only an active admin of the team can create API keys"),
        )
    };
    match member {
        None => Err(refuse("is not a member of this team")),
        Some(member) if member.role != Role::Admin => Err(refuse("is not an admin")),
        Some(member) if !member.active => Err(refuse("is not active")),
        Some(member) => Ok(member),
    }
}
