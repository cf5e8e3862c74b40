//! `TemplateStore` on PostgreSQL.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use futures_util::future::{Either, ready, try_join3, try_join4};
use procflow_domain::error::{DomainResult, Resource};
use procflow_domain::ids::{TeamId, TemplateId};
use procflow_domain::ports::{TemplateDecision, TemplateStore};
use procflow_domain::template::{Section, Template, TemplateTask};
use procflow_domain::values::{Cursor, Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::documents::Document;
use super::page_rows::rows_to_fetch;
use super::unnest::{InsertTemplateSections, InsertTemplateTasks};
use super::{PgStore, not_found};
use crate::error::{Failure, db_error};
use crate::rows::template::{TemplateRow, TemplateSectionRow, TemplateTaskRow};
use crate::schema::{template_sections, template_tasks, templates};

fn live(team: TeamId) -> templates::BoxedQuery<'static, diesel::pg::Pg> {
    templates::table
        .filter(templates::team_id.eq(team.as_uuid()))
        .filter(templates::archived_at.is_null())
        .into_boxed()
}

async fn header(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    id: TemplateId,
    lock: bool,
) -> DomainResult<TemplateRow> {
    let query = templates::table
        .filter(templates::team_id.eq(team.as_uuid()))
        .filter(templates::id.eq(id.as_uuid()))
        .filter(templates::archived_at.is_null())
        .select(TemplateRow::as_select());
    let found = if lock {
        query.for_update().first(&mut conn).await
    } else {
        query.first(&mut conn).await
    };
    found
        .optional()
        .map_err(db_error)?
        .ok_or(not_found(Resource::Template))
}

async fn sections(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    templates_of: &[Uuid],
) -> DomainResult<Vec<(Uuid, Section)>> {
    let rows: Vec<TemplateSectionRow> = template_sections::table
        .filter(template_sections::team_id.eq(team.as_uuid()))
        .filter(template_sections::template_id.eq_any(templates_of))
        .order((template_sections::template_id, template_sections::position))
        .select(TemplateSectionRow::as_select())
        .load(&mut conn)
        .await
        .map_err(db_error)?;
    rows.into_iter()
        .map(|row| {
            let template = row.template_id;
            row.into_domain().map(|section| (template, section))
        })
        .collect()
}

async fn tasks(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    id: TemplateId,
    after: Option<i32>,
    limit: Option<i64>,
) -> DomainResult<Vec<TemplateTask>> {
    let mut query = template_tasks::table
        .filter(template_tasks::team_id.eq(team.as_uuid()))
        .filter(template_tasks::template_id.eq(id.as_uuid()))
        .order(template_tasks::position)
        .select(TemplateTaskRow::as_select())
        .into_boxed();
    if let Some(position) = after {
        query = query.filter(template_tasks::position.gt(position));
    }
    if let Some(limit) = limit {
        query = query.limit(limit);
    }
    let rows: Vec<TemplateTaskRow> = query.load(&mut conn).await.map_err(db_error)?;
    rows.into_iter().map(TemplateTaskRow::into_domain).collect()
}

/// A template with its sections and tasks, its header locked for an edit. The three reads are
/// independent, so they are sent together (diesel-async pipelines futures polled at once on one
/// connection): one round trip. PostgreSQL runs them in order, so the header is locked before
/// the rest is read.
async fn load_locked(
    conn: &AsyncPgConnection,
    team: TeamId,
    id: TemplateId,
) -> DomainResult<Template> {
    let (row, sections, tasks) = try_join3(
        header(conn, team, id, true),
        sections(conn, team, &[id.as_uuid()]),
        tasks(conn, team, id, None, None),
    )
    .await?;
    let sections = sections.into_iter().map(|(_, s)| s).collect();
    row.into_domain(sections, tasks)
}

async fn write_document(conn: &mut AsyncPgConnection, template: &Template) -> DomainResult<()> {
    let sections: Vec<_> = template
        .sections
        .iter()
        .map(|s| TemplateSectionRow::from_domain(template, s))
        .collect();
    let tasks: Vec<_> = template
        .tasks
        .iter()
        .map(|t| TemplateTaskRow::from_domain(template, t))
        .collect();
    if !sections.is_empty() {
        InsertTemplateSections::of(sections)
            .execute(conn)
            .await
            .map_err(db_error)?;
    }
    if !tasks.is_empty() {
        InsertTemplateTasks::of(tasks)
            .execute(conn)
            .await
            .map_err(db_error)?;
    }
    Ok(())
}

#[async_trait]
impl TemplateStore for PgStore {
    async fn list_templates(
        &self,
        team: TeamId,
        page: PageRequest,
    ) -> DomainResult<Page<Template>> {
        let mut conn = self.conn().await?;
        let mut query = live(team);
        if let Some(cursor) = page.cursor {
            let (at, id): (OffsetDateTime, Uuid) = live(team)
                .filter(templates::id.eq(cursor.id()))
                .select((templates::created_at, templates::id))
                .first(&mut conn)
                .await
                .optional()
                .map_err(db_error)?
                .ok_or_else(Cursor::unknown)?;
            query = query.filter(
                templates::created_at
                    .gt(at)
                    .or(templates::created_at.eq(at).and(templates::id.gt(id))),
            );
        }
        let rows: Vec<TemplateRow> = query
            .order((templates::created_at, templates::id))
            .limit(rows_to_fetch(page.limit))
            .select(TemplateRow::as_select())
            .load(&mut conn)
            .await
            .map_err(db_error)?;
        let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
        let mut all_sections = sections(&conn, team, &ids).await?;
        let templates = rows
            .into_iter()
            .map(|row| {
                let own = all_sections
                    .extract_if(.., |(template, _)| *template == row.id)
                    .map(|(_, s)| s)
                    .collect();
                row.into_domain(own, Vec::new())
            })
            .collect::<DomainResult<Vec<_>>>()?;
        Ok(Page::from_fetched(templates, page.limit, |t| {
            t.id.as_uuid()
        }))
    }

    async fn get_template(&self, team: TeamId, id: TemplateId) -> DomainResult<Template> {
        let conn = self.conn().await?;
        let known = match self.documents.get(team, id) {
            Some(kept) => {
                let row = header(&conn, team, id, false).await?;
                if row.is_published && row.version == kept.version {
                    return row.into_domain(kept.sections.clone(), kept.tasks.clone());
                }
                Some(row)
            }
            None => None,
        };
        // The header (unless the kept version's check read it), the document, and the header
        // again, pipelined: the statements run in order, each in a snapshot of its own, so the
        // same published version before and after the document's reads means none of its edits
        // came between them (each needs an unpublish, then a publish that adds 1 to the
        // version).
        let first = match known {
            Some(row) => Either::Left(ready(Ok(row))),
            None => Either::Right(header(&conn, team, id, false)),
        };
        let (row, sections, tasks, after) = try_join4(
            first,
            sections(&conn, team, &[id.as_uuid()]),
            tasks(&conn, team, id, None, None),
            header(&conn, team, id, false),
        )
        .await?;
        let sections: Vec<Section> = sections.into_iter().map(|(_, s)| s).collect();
        if row.is_published && after.is_published && row.version == after.version {
            let document = Document {
                version: row.version,
                sections: sections.clone(),
                tasks: tasks.clone(),
            };
            self.documents.keep(team, id, document);
        } else if !after.is_published {
            // A draft's document may change at any moment: read whole, in one round trip.
            self.documents.forget(team, id);
        }
        row.into_domain(sections, tasks)
    }

    async fn list_template_tasks(
        &self,
        team: TeamId,
        id: TemplateId,
        page: PageRequest,
    ) -> DomainResult<Page<TemplateTask>> {
        let mut conn = self.conn().await?;
        header(&conn, team, id, false).await?;
        let after = match page.cursor {
            None => None,
            Some(cursor) => Some(
                template_tasks::table
                    .filter(template_tasks::team_id.eq(team.as_uuid()))
                    .filter(template_tasks::template_id.eq(id.as_uuid()))
                    .filter(template_tasks::id.eq(cursor.id()))
                    .select(template_tasks::position)
                    .first::<i32>(&mut conn)
                    .await
                    .optional()
                    .map_err(db_error)?
                    .ok_or_else(Cursor::unknown)?,
            ),
        };
        let limit = rows_to_fetch(page.limit);
        let fetched = tasks(&conn, team, id, after, Some(limit)).await?;
        Ok(Page::from_fetched(fetched, page.limit, |t| t.id.as_uuid()))
    }

    async fn insert_template(&self, template: &Template) -> DomainResult<()> {
        let mut conn = self.conn().await?;
        conn.transaction::<_, Failure, _>(async |conn| {
            diesel::insert_into(templates::table)
                .values(TemplateRow::from_domain(template))
                .execute(conn)
                .await?;
            write_document(conn, template).await?;
            Ok(())
        })
        .await
        .map_err(Into::into)
    }

    async fn update_template(
        &self,
        team: TeamId,
        id: TemplateId,
        decide: &TemplateDecision<'_>,
    ) -> DomainResult<Template> {
        let mut conn = self.conn().await?;
        conn.transaction::<_, Failure, _>(async |conn| {
            let current = load_locked(conn, team, id).await?;
            let document_changed = {
                let next_probe = (current.sections.clone(), current.tasks.clone());
                move |next: &Template| next.sections != next_probe.0 || next.tasks != next_probe.1
            };
            let next = decide(current)?;
            diesel::update(
                templates::table
                    .filter(templates::team_id.eq(team.as_uuid()))
                    .filter(templates::id.eq(id.as_uuid())),
            )
            .set(TemplateRow::from_domain(&next))
            .execute(conn)
            .await?;
            if document_changed(&next) {
                diesel::delete(
                    template_sections::table
                        .filter(template_sections::team_id.eq(team.as_uuid()))
                        .filter(template_sections::template_id.eq(id.as_uuid())),
                )
                .execute(conn)
                .await?;
                write_document(conn, &next).await?;
            }
            Ok(next)
        })
        .await
        .map_err(Into::into)
    }

    async fn archive_template(
        &self,
        team: TeamId,
        id: TemplateId,
        now: OffsetDateTime,
    ) -> DomainResult<()> {
        let mut conn = self.conn().await?;
        let archived = diesel::update(
            templates::table
                .filter(templates::team_id.eq(team.as_uuid()))
                .filter(templates::id.eq(id.as_uuid()))
                .filter(templates::archived_at.is_null()),
        )
        .set(templates::archived_at.eq(now))
        .execute(&mut conn)
        .await
        .map_err(db_error)?;
        if archived == 0 {
            return Err(not_found(Resource::Template));
        }
        Ok(())
    }
}
