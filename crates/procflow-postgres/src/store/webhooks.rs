//! `WebhookStore` and `EventFeed` on PostgreSQL.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use procflow_domain::error::{DomainResult, Resource};
use procflow_domain::event::{Event, from_stored};
use procflow_domain::ids::{TeamId, WebhookId};
use procflow_domain::ports::{EventFeed, WebhookDecision, WebhookStore};
use procflow_domain::values::{Cursor, Page, PageRequest};
use procflow_domain::webhook::{WebhookEndpoint, WebhookEvent};
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use super::page_rows::rows_to_fetch;
use super::{PgStore, not_found};
use crate::error::{Failure, db_error};
use crate::rows::webhook::WebhookRow;
use crate::schema::{outbox, webhook_endpoints};

#[async_trait]
impl WebhookStore for PgStore {
    async fn insert_webhook(&self, endpoint: &WebhookEndpoint) -> DomainResult<()> {
        let mut conn = self.conn().await?;
        diesel::insert_into(webhook_endpoints::table)
            .values(WebhookRow::from_domain(endpoint))
            .execute(&mut conn)
            .await
            .map(|_| ())
            .map_err(db_error)
    }

    async fn list_webhooks(
        &self,
        team: TeamId,
        page: PageRequest,
    ) -> DomainResult<Page<WebhookEndpoint>> {
        let mut conn = self.conn().await?;
        let mut query = webhook_endpoints::table
            .filter(webhook_endpoints::team_id.eq(team.as_uuid()))
            .into_boxed();
        if let Some(cursor) = page.cursor {
            let (at, id): (OffsetDateTime, Uuid) = webhook_endpoints::table
                .filter(webhook_endpoints::team_id.eq(team.as_uuid()))
                .filter(webhook_endpoints::id.eq(cursor.id()))
                .select((webhook_endpoints::created_at, webhook_endpoints::id))
                .first(&mut conn)
                .await
                .optional()
                .map_err(db_error)?
                .ok_or_else(Cursor::unknown)?;
            query = query.filter(
                webhook_endpoints::created_at
                    .gt(at)
                    .or(webhook_endpoints::created_at
                        .eq(at)
                        .and(webhook_endpoints::id.gt(id))),
            );
        }
        let rows: Vec<WebhookRow> = query
            .order((webhook_endpoints::created_at, webhook_endpoints::id))
            .limit(rows_to_fetch(page.limit))
            .select(WebhookRow::as_select())
            .load(&mut conn)
            .await
            .map_err(db_error)?;
        let endpoints = rows
            .into_iter()
            .map(WebhookRow::into_domain)
            .collect::<DomainResult<Vec<_>>>()?;
        Ok(Page::from_fetched(endpoints, page.limit, |w| {
            w.id.as_uuid()
        }))
    }

    async fn get_webhook(&self, team: TeamId, id: WebhookId) -> DomainResult<WebhookEndpoint> {
        let mut conn = self.conn().await?;
        webhook_endpoints::table
            .filter(webhook_endpoints::team_id.eq(team.as_uuid()))
            .filter(webhook_endpoints::id.eq(id.as_uuid()))
            .select(WebhookRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(db_error)?
            .ok_or(not_found(Resource::Webhook))?
            .into_domain()
    }

    async fn update_webhook(
        &self,
        team: TeamId,
        id: WebhookId,
        decide: &WebhookDecision<'_>,
    ) -> DomainResult<WebhookEndpoint> {
        let mut conn = self.conn().await?;
        conn.transaction::<_, Failure, _>(async |conn| {
            let key = webhook_endpoints::table
                .filter(webhook_endpoints::team_id.eq(team.as_uuid()))
                .filter(webhook_endpoints::id.eq(id.as_uuid()));
            let current = key
                .select(WebhookRow::as_select())
                .for_update()
                .first(conn)
                .await
                .optional()?
                .ok_or(not_found(Resource::Webhook))?
                .into_domain()?;
            let next = decide(&current)?;
            if next != current {
                diesel::update(key)
                    .set(WebhookRow::from_domain(&next))
                    .execute(conn)
                    .await?;
            }
            Ok(next)
        })
        .await
        .map_err(Into::into)
    }

    async fn delete_webhook(&self, team: TeamId, id: WebhookId) -> DomainResult<()> {
        let mut conn = self.conn().await?;
        // Its deliveries go with it (ON DELETE CASCADE).
        let deleted = diesel::delete(
            webhook_endpoints::table
                .filter(webhook_endpoints::team_id.eq(team.as_uuid()))
                .filter(webhook_endpoints::id.eq(id.as_uuid())),
        )
        .execute(&mut conn)
        .await
        .map_err(db_error)?;
        if deleted == 0 {
            return Err(not_found(Resource::Webhook));
        }
        Ok(())
    }

    async fn enabled_webhooks(&self, teams: &[TeamId]) -> DomainResult<Vec<WebhookEndpoint>> {
        let teams: Vec<Uuid> = teams.iter().map(TeamId::as_uuid).collect();
        let mut conn = self.conn().await?;
        let rows: Vec<WebhookRow> = webhook_endpoints::table
            .filter(webhook_endpoints::team_id.eq_any(teams))
            .filter(webhook_endpoints::enabled.eq(true))
            .select(WebhookRow::as_select())
            .load(&mut conn)
            .await
            .map_err(db_error)?;
        rows.into_iter().map(WebhookRow::into_domain).collect()
    }
}

#[async_trait]
impl EventFeed for PgStore {
    async fn list_events(
        &self,
        team: TeamId,
        event: Option<WebhookEvent>,
        page: PageRequest,
    ) -> DomainResult<Page<Event>> {
        let mut conn = self.conn().await?;
        let feed = || {
            let query = outbox::table
                .filter(outbox::team_id.eq(team.as_uuid()))
                .filter(outbox::webhook_event.is_not_null())
                .filter(outbox::dead_at.is_null())
                .into_boxed();
            match event {
                Some(name) => query.filter(outbox::webhook_event.eq(name.as_str())),
                None => query,
            }
        };
        let mut query = feed();
        if let Some(cursor) = page.cursor {
            let (at, id): (OffsetDateTime, Uuid) = feed()
                .filter(outbox::id.eq(cursor.id()))
                .select((outbox::occurred_at, outbox::id))
                .first(&mut conn)
                .await
                .optional()
                .map_err(db_error)?
                .ok_or_else(Cursor::unknown)?;
            query = query.filter(
                outbox::occurred_at
                    .gt(at)
                    .or(outbox::occurred_at.eq(at).and(outbox::id.gt(id))),
            );
        }
        let rows: Vec<(Uuid, Value)> = query
            .order((outbox::occurred_at, outbox::id))
            .limit(rows_to_fetch(page.limit))
            .select((outbox::id, outbox::payload))
            .load(&mut conn)
            .await
            .map_err(db_error)?;
        // An event that cannot be read keeps its place in the page (the cursor may name it)
        // but is not shown: the worker sets it aside when it takes it.
        let rows = rows
            .into_iter()
            .map(|(id, payload)| (id, from_stored(payload).ok()))
            .collect();
        let page = Page::from_fetched(rows, page.limit, |(id, _)| *id);
        Ok(Page {
            items: page
                .items
                .into_iter()
                .filter_map(|(_, event)| event)
                .collect(),
            next_cursor: page.next_cursor,
            has_more: page.has_more,
        })
    }
}
