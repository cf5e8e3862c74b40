//! `TeamStore` on PostgreSQL.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use procflow_domain::error::{DomainResult, Resource};
use procflow_domain::ids::{ApiKeyId, TeamId, UserId};
use procflow_domain::ports::TeamStore;
use procflow_domain::team::{ApiKey, Member, Role, Subscription, Team};
use procflow_domain::values::Email;
use time::OffsetDateTime;

use super::directory::{self, TokenKind};
use super::key_changes::KEYS_CHANNEL;
use super::{PgStore, not_found};
use crate::error::{Failure, db_error};
use crate::rows::team::{ApiKeyRow, MemberRow, TeamRow};
use crate::schema::{api_keys, members, rate_limits, teams};

#[async_trait]
impl TeamStore for PgStore {
    async fn find_api_key(&self, key_hash: &[u8; 32]) -> DomainResult<Option<(ApiKey, Team)>> {
        let conn = self.conn().await?;
        let Some(team) = self
            .known_tokens
            .api_key_team(&conn, key_hash)
            .await
            .map_err(db_error)?
        else {
            return Ok(None);
        };
        let mut conn = conn;
        let found: Option<(ApiKeyRow, TeamRow)> = api_keys::table
            .inner_join(teams::table.on(teams::id.eq(api_keys::team_id)))
            .filter(api_keys::team_id.eq(team))
            .filter(teams::id.eq(team))
            .filter(api_keys::key_hash.eq(key_hash.as_slice()))
            .filter(api_keys::revoked_at.is_null())
            .select((ApiKeyRow::as_select(), TeamRow::as_select()))
            .first(&mut conn)
            .await
            .optional()
            .map_err(db_error)?;
        found
            .map(|(key, team)| Ok((key.into_domain()?, team.into_domain()?)))
            .transpose()
    }

    async fn get_team(&self, team: TeamId) -> DomainResult<Team> {
        let mut conn = self.conn().await?;
        teams::table
            .filter(teams::id.eq(team.as_uuid()))
            .select(TeamRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(db_error)?
            .ok_or(not_found(Resource::Team))?
            .into_domain()
    }

    async fn find_member_by_email(
        &self,
        team: TeamId,
        email: &Email,
    ) -> DomainResult<Option<Member>> {
        let mut conn = self.conn().await?;
        members::table
            .filter(members::team_id.eq(team.as_uuid()))
            .filter(members::email.eq(email.as_str()))
            .select(MemberRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(db_error)?
            .map(MemberRow::into_domain)
            .transpose()
    }

    async fn find_member(&self, team: TeamId, user: UserId) -> DomainResult<Option<Member>> {
        let mut conn = self.conn().await?;
        members::table
            .filter(members::team_id.eq(team.as_uuid()))
            .filter(members::id.eq(user.as_uuid()))
            .select(MemberRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(db_error)?
            .map(MemberRow::into_domain)
            .transpose()
    }

    async fn active_admins(&self, team: TeamId) -> DomainResult<Vec<Member>> {
        let mut conn = self.conn().await?;
        members::table
            .filter(members::team_id.eq(team.as_uuid()))
            .filter(members::role.eq(Role::Admin.as_str()))
            .filter(members::active.eq(true))
            .order((members::created_at, members::id))
            .select(MemberRow::as_select())
            .load(&mut conn)
            .await
            .map_err(db_error)?
            .into_iter()
            .map(MemberRow::into_domain)
            .collect()
    }

    async fn create_team(&self, team: &Team, admin: &Member) -> DomainResult<()> {
        let mut conn = self.conn().await?;
        conn.transaction::<_, Failure, _>(async |conn| {
            diesel::insert_into(teams::table)
                .values(TeamRow::from_domain(team))
                .execute(conn)
                .await?;
            diesel::insert_into(members::table)
                .values(MemberRow::from_domain(admin))
                .execute(conn)
                .await?;
            Ok(())
        })
        .await
        .map_err(Into::into)
    }

    async fn add_member(&self, member: &Member) -> DomainResult<()> {
        let mut conn = self.conn().await?;
        let inserted = diesel::insert_into(members::table)
            .values(MemberRow::from_domain(member))
            .execute(&mut conn)
            .await;
        match inserted {
            Err(diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::ForeignKeyViolation,
                _,
            )) => Err(not_found(Resource::Team)),
            other => other.map(|_| ()).map_err(db_error),
        }
    }

    async fn update_member(&self, member: &Member) -> DomainResult<()> {
        let mut conn = self.conn().await?;
        let updated = diesel::update(
            members::table
                .filter(members::team_id.eq(member.team_id.as_uuid()))
                .filter(members::id.eq(member.id.as_uuid())),
        )
        .set((
            members::role.eq(member.role.as_str()),
            members::active.eq(member.active),
        ))
        .execute(&mut conn)
        .await
        .map_err(db_error)?;
        if updated == 0 {
            return Err(not_found(Resource::Member));
        }
        Ok(())
    }

    async fn insert_api_key(&self, key: &ApiKey, key_hash: &[u8; 32]) -> DomainResult<()> {
        let mut conn = self.conn().await?;
        let digest = hex::encode(key_hash);
        // The key's rate row is made with it, so that admitting a request is one UPDATE of an
        // existing row (store/rate_limits.rs), from the key's first request on.
        let inserted = conn
            .transaction::<_, diesel::result::Error, _>(async |conn| {
                diesel::insert_into(api_keys::table)
                    .values(ApiKeyRow::from_domain(key, key_hash))
                    .execute(conn)
                    .await?;
                directory::enter(conn, TokenKind::ApiKey, &digest, key.team_id.as_uuid()).await?;
                diesel::insert_into(rate_limits::table)
                    .values((
                        rate_limits::team_id.eq(key.team_id.as_uuid()),
                        rate_limits::api_key_id.eq(key.id.as_uuid()),
                    ))
                    .execute(conn)
                    .await
            })
            .await;
        if inserted.is_ok() {
            self.known_tokens
                .remember(TokenKind::ApiKey, &digest, key.team_id.as_uuid());
        }
        match inserted {
            Err(diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::ForeignKeyViolation,
                _,
            )) => Err(not_found(Resource::Member)),
            other => other.map(|_| ()).map_err(db_error),
        }
    }

    async fn list_api_keys(&self, team: TeamId) -> DomainResult<Vec<ApiKey>> {
        let mut conn = self.conn().await?;
        let rows: Vec<ApiKeyRow> = api_keys::table
            .filter(api_keys::team_id.eq(team.as_uuid()))
            .order((api_keys::created_at, api_keys::id))
            .select(ApiKeyRow::as_select())
            .load(&mut conn)
            .await
            .map_err(db_error)?;
        rows.into_iter().map(ApiKeyRow::into_domain).collect()
    }

    async fn revoke_api_key(
        &self,
        team: TeamId,
        key: ApiKeyId,
        now: OffsetDateTime,
    ) -> DomainResult<()> {
        let mut conn = self.conn().await?;
        let of_team = api_keys::table
            .filter(api_keys::team_id.eq(team.as_uuid()))
            .filter(api_keys::id.eq(key.as_uuid()));
        let revoked: Vec<Vec<u8>> = diesel::update(of_team.filter(api_keys::revoked_at.is_null()))
            .set(api_keys::revoked_at.eq(now))
            .returning(api_keys::key_hash)
            .get_results(&mut conn)
            .await
            .map_err(db_error)?;
        if let Some(hash) = <[Vec<u8>]>::first(&revoked) {
            notify_key_change(&mut conn, &hex::encode(hash)).await;
            return Ok(());
        }
        // Revoking a revoked key is a no-op; a key of another team is not found.
        let known: i64 = of_team
            .count()
            .get_result(&mut conn)
            .await
            .map_err(db_error)?;
        if known == 0 {
            return Err(not_found(Resource::ApiKey));
        }
        Ok(())
    }

    async fn set_subscription(&self, team: TeamId, status: Subscription) -> DomainResult<()> {
        let mut conn = self.conn().await?;
        let updated = diesel::update(teams::table.filter(teams::id.eq(team.as_uuid())))
            .set(teams::subscription.eq(status.as_str()))
            .execute(&mut conn)
            .await
            .map_err(db_error)?;
        if updated == 0 {
            return Err(not_found(Resource::Team));
        }
        // An empty payload: every instance forgets what it remembered of every key.
        notify_key_change(&mut conn, "").await;
        Ok(())
    }
}

/// Tells every instance (`LISTEN procflow_keys`, store/key_changes.rs) of a change committed
/// just before: sent by the code that made it, on the connection the instances listen on (the
/// coordinator, on Citus), not by a trigger, which would fire on the node holding the row.
/// Sent after the commit, outside any transaction (a transaction that notifies cannot be
/// prepared, as Citus's two-phase commit does). A lost notification costs little: the
/// admission statement reads the key on every request; what an instance remembers (rate-limit
/// refusals) would only answer 429 instead of 401 until the refusal ends.
async fn notify_key_change(conn: &mut diesel_async::AsyncPgConnection, payload: &str) {
    let sent = diesel::sql_query("SELECT pg_notify($1, $2)")
        .bind::<diesel::sql_types::Text, _>(KEYS_CHANNEL)
        .bind::<diesel::sql_types::Text, _>(payload)
        .execute(conn)
        .await;
    if let Err(error) = sent {
        tracing::warn!(%error, "the key-change notification was not sent");
    }
}
