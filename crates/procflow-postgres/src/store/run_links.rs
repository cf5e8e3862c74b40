//! `RunLinkStore` on PostgreSQL: `run_links`, one row per template of a team, and its token's
//! entry in `token_directory` (kind `run_link`), written in one transaction. The public look-up
//! names no team: the directory names it, then the row on the team's shard decides (a link
//! turned off leaves its directory entry naming a team where nothing is found).

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use procflow_domain::error::{DomainResult, Resource};
use procflow_domain::ids::{TeamId, TemplateId};
use procflow_domain::ports::RunLinkStore;
use procflow_domain::run_link::RunLink;
use procflow_domain::values::ShareToken;
use time::OffsetDateTime;
use uuid::Uuid;

use super::directory::{self, TokenKind};
use super::{PgStore, not_found};
use crate::error::{Failure, db_error};
use crate::schema::run_links;

/// A `run_links` row.
#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = run_links)]
#[diesel(check_for_backend(diesel::pg::Pg))]
struct RunLinkRow {
    team_id: Uuid,
    template_id: Uuid,
    token: String,
    token_hash: String,
    created_at: OffsetDateTime,
}

impl RunLinkRow {
    fn from_domain(link: &RunLink) -> Self {
        Self {
            team_id: link.team_id.as_uuid(),
            template_id: link.template_id.as_uuid(),
            token: link.token.expose().to_owned(),
            token_hash: link.token.digest(),
            created_at: link.created_at,
        }
    }

    fn into_domain(self) -> RunLink {
        RunLink {
            team_id: TeamId::from_uuid(self.team_id),
            template_id: TemplateId::from_uuid(self.template_id),
            token: ShareToken::new(self.token),
            created_at: self.created_at,
        }
    }
}

#[async_trait]
impl RunLinkStore for PgStore {
    async fn put_run_link(&self, link: &RunLink) -> DomainResult<RunLink> {
        let mut conn = self.conn().await?;
        let row = RunLinkRow::from_domain(link);
        let kept = conn
            .transaction::<_, Failure, _>(async |conn| {
                // Of concurrent calls one inserts; the others find its row below.
                let inserted = diesel::insert_into(run_links::table)
                    .values(&row)
                    .on_conflict((run_links::team_id, run_links::template_id))
                    .do_nothing()
                    .execute(conn)
                    .await?;
                if inserted == 1 {
                    directory::enter(conn, TokenKind::RunLink, &row.token_hash, row.team_id)
                        .await?;
                }
                Ok(run_links::table
                    .filter(run_links::team_id.eq(row.team_id))
                    .filter(run_links::template_id.eq(row.template_id))
                    .select(RunLinkRow::as_select())
                    .first(conn)
                    .await?)
            })
            .await;
        match kept {
            Ok(kept) => {
                self.known_tokens
                    .remember(TokenKind::RunLink, &kept.token_hash, kept.team_id);
                Ok(kept.into_domain())
            }
            // A template of another team (or none) fails the foreign key.
            Err(Failure::Db(diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::ForeignKeyViolation,
                _,
            ))) => Err(not_found(Resource::Template)),
            Err(failure) => Err(failure.into()),
        }
    }

    async fn get_run_link(
        &self,
        team: TeamId,
        template: TemplateId,
    ) -> DomainResult<Option<RunLink>> {
        let mut conn = self.conn().await?;
        Ok(run_links::table
            .filter(run_links::team_id.eq(team.as_uuid()))
            .filter(run_links::template_id.eq(template.as_uuid()))
            .select(RunLinkRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(db_error)?
            .map(RunLinkRow::into_domain))
    }

    async fn delete_run_link(&self, team: TeamId, template: TemplateId) -> DomainResult<bool> {
        let mut conn = self.conn().await?;
        let deleted = diesel::delete(
            run_links::table
                .filter(run_links::team_id.eq(team.as_uuid()))
                .filter(run_links::template_id.eq(template.as_uuid())),
        )
        .execute(&mut conn)
        .await
        .map_err(db_error)?;
        Ok(deleted > 0)
    }

    async fn find_run_link(&self, token: &ShareToken) -> DomainResult<Option<RunLink>> {
        let mut conn = self.conn().await?;
        let digest = token.digest();
        let Some(team) = self
            .known_tokens
            .team_of(&conn, TokenKind::RunLink, &digest)
            .await
            .map_err(db_error)?
        else {
            return Ok(None);
        };
        Ok(run_links::table
            .filter(run_links::team_id.eq(team))
            .filter(run_links::token_hash.eq(&digest))
            .select(RunLinkRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(db_error)?
            .map(RunLinkRow::into_domain))
    }
}
