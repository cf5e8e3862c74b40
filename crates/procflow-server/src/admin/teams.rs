//! `create-team`, `add-member`, `set-member`, `set-subscription`.

use procflow_domain::error::ErrorCode;
use procflow_domain::ids::{TeamId, UserId};
use procflow_domain::team::{Member, Role, Subscription, Team};
use serde_json::{Value, json};

use super::{Admin, name, optional_name};
use crate::cli::{AddMember, CreateTeam, SetMember, SetSubscription};
use crate::error::CommandError;

impl Admin {
    pub(super) async fn create_team(&self, args: CreateTeam) -> Result<Value, CommandError> {
        let ports = self.procflow.ports();
        let now = ports.clock.now();
        let base_url = args.base_url.unwrap_or_else(|| args.address.public_url());
        let team = Team {
            id: TeamId::from_uuid(ports.ids.new_id()),
            name: name("--name", args.name)?,
            base_url: base_url.as_str().to_owned(),
            timezone: args.timezone.as_str().to_owned(),
            subscription: Subscription::Active,
            created_at: now,
        };
        let admin = Member {
            id: UserId::from_uuid(ports.ids.new_id()),
            team_id: team.id,
            email: args.admin_email,
            name: optional_name("--admin-name", args.admin_name)?,
            role: Role::Admin,
            active: true,
            created_at: now,
        };
        self.teams().create_team(&team, &admin).await?;
        tracing::info!(team.id = %team.id, user.id = %admin.id, "created a team");
        Ok(json!({"team_id": team.id, "admin_user_id": admin.id}))
    }

    pub(super) async fn add_member(&self, args: AddMember) -> Result<Value, CommandError> {
        let ports = self.procflow.ports();
        let team = self.team(args.team).await?;
        let member = Member {
            id: UserId::from_uuid(ports.ids.new_id()),
            team_id: team.id,
            email: args.email,
            name: optional_name("--name", args.name)?,
            role: args.role,
            active: true,
            created_at: ports.clock.now(),
        };
        self.teams().add_member(&member).await?;
        tracing::info!(team.id = %team.id, user.id = %member.id, "added a member");
        Ok(json!({"user_id": member.id}))
    }

    pub(super) async fn set_member(&self, args: SetMember) -> Result<Value, CommandError> {
        let team = self.team(args.team).await?;
        let mut member = self
            .teams()
            .find_member_by_email(team.id, &args.email)
            .await?
            .ok_or_else(|| {
                CommandError::api(
                    ErrorCode::NotFound,
                    format!("team {} has no member with that email", team.id),
                )
            })?;
        if let Some(active) = args.active {
            member.active = active;
        }
        if let Some(role) = args.role {
            member.role = role;
        }
        self.teams().update_member(&member).await?;
        tracing::info!(team.id = %team.id, user.id = %member.id, "updated a member");
        Ok(json!({"user_id": member.id, "active": member.active, "role": member.role}))
    }

    pub(super) async fn set_subscription(
        &self,
        args: SetSubscription,
    ) -> Result<Value, CommandError> {
        let status = args.status;
        self.teams().set_subscription(args.team, status).await?;
        tracing::info!(team.id = %args.team, ?status, "set the subscription");
        Ok(json!({"team_id": args.team, "status": status}))
    }
}
