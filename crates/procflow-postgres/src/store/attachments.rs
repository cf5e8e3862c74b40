//! `AttachmentStore` on PostgreSQL; and the attachments comments show, read with them.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use futures_util::future::try_join;
use procflow_domain::attachment::Attachment;
use procflow_domain::error::{DomainError, DomainResult, Resource};
use procflow_domain::ids::{AttachmentId, RunId, TaskId, TeamId};
use procflow_domain::ports::{AttachmentDecision, AttachmentStore};
use procflow_domain::values::{Cursor, Page, PageRequest};
use uuid::Uuid;

use super::page_rows::rows_to_fetch;
use super::thread::thread_of;
use super::transaction::Transaction;
use super::{PgStore, append_events, not_found};
use crate::error::{Failure, db_error};
use crate::rows::attachment::AttachmentRow;
use crate::schema::task_attachments;

/// The team's attachments among `ids`, in id order.
pub(crate) async fn find(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    ids: &[Uuid],
) -> DomainResult<Vec<Attachment>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<AttachmentRow> = task_attachments::table
        .filter(task_attachments::team_id.eq(team.as_uuid()))
        .filter(task_attachments::id.eq_any(ids))
        .order(task_attachments::id)
        .select(AttachmentRow::as_select())
        .load(&mut conn)
        .await
        .map_err(db_error)?;
    rows.into_iter().map(AttachmentRow::into_domain).collect()
}

async fn insert_attachment(mut conn: &AsyncPgConnection, row: AttachmentRow) -> DomainResult<()> {
    diesel::insert_into(task_attachments::table)
        .values(row)
        .execute(&mut conn)
        .await
        .map(|_| ())
        .map_err(db_error)
}

#[async_trait]
impl AttachmentStore for PgStore {
    async fn add_attachment(
        &self,
        team: TeamId,
        run: RunId,
        task_id: TaskId,
        decide: &AttachmentDecision<'_>,
    ) -> DomainResult<Attachment> {
        let mut conn = self.conn().await?;
        // Three round trips: `BEGIN` with both reads, the row with its events, `COMMIT`.
        let (transaction, (_, current)) = Transaction::begin_with(&mut conn, async |conn| {
            thread_of(conn, team, run, task_id, true).await
        })
        .await
        .map_err(DomainError::from)?;
        let outcome = async {
            let conn = transaction.conn();
            let new = decide(&current.into_domain()?)?;
            try_join(
                insert_attachment(conn, AttachmentRow::from_domain(&new.attachment)),
                append_events(conn, &new.events),
            )
            .await?;
            Ok::<_, Failure>(new.attachment)
        }
        .await;
        let attachment = transaction.end(outcome).await.map_err(DomainError::from)?;
        self.ring();
        Ok(attachment)
    }

    async fn list_attachments(
        &self,
        team: TeamId,
        run: RunId,
        task_id: TaskId,
        page: PageRequest,
    ) -> DomainResult<Page<Attachment>> {
        let mut conn = self.conn().await?;
        thread_of(&conn, team, run, task_id, false).await?;
        let of_task = || {
            task_attachments::table
                .filter(task_attachments::team_id.eq(team.as_uuid()))
                .filter(task_attachments::run_id.eq(run.as_uuid()))
                .filter(task_attachments::task_id.eq(task_id.as_uuid()))
                .into_boxed()
        };
        let mut query = of_task();
        if let Some(cursor) = page.cursor {
            let known: Option<Uuid> = of_task()
                .filter(task_attachments::id.eq(cursor.id()))
                .select(task_attachments::id)
                .first(&mut conn)
                .await
                .optional()
                .map_err(db_error)?;
            let after = known.ok_or_else(Cursor::unknown)?;
            query = query.filter(task_attachments::id.gt(after));
        }
        let rows: Vec<AttachmentRow> = query
            .order(task_attachments::id)
            .limit(rows_to_fetch(page.limit))
            .select(AttachmentRow::as_select())
            .load(&mut conn)
            .await
            .map_err(db_error)?;
        let found = rows
            .into_iter()
            .map(AttachmentRow::into_domain)
            .collect::<DomainResult<Vec<_>>>()?;
        Ok(Page::from_fetched(found, page.limit, |a| a.id.as_uuid()))
    }

    async fn latest_run_attachments(
        &self,
        team: TeamId,
        run: RunId,
        limit: usize,
    ) -> DomainResult<Vec<Attachment>> {
        let mut conn = self.conn().await?;
        // Newest first through the index of a task's files (team, run, ...), then turned
        // oldest first.
        let rows: Vec<AttachmentRow> = task_attachments::table
            .filter(task_attachments::team_id.eq(team.as_uuid()))
            .filter(task_attachments::run_id.eq(run.as_uuid()))
            .order(task_attachments::id.desc())
            .limit(i64::try_from(limit).unwrap_or(i64::MAX))
            .select(AttachmentRow::as_select())
            .load(&mut conn)
            .await
            .map_err(db_error)?;
        rows.into_iter()
            .rev()
            .map(AttachmentRow::into_domain)
            .collect()
    }

    async fn get_attachment(&self, team: TeamId, id: AttachmentId) -> DomainResult<Attachment> {
        let conn = self.conn().await?;
        find(&conn, team, &[id.as_uuid()])
            .await?
            .pop()
            .ok_or(not_found(Resource::Attachment))
    }

    async fn find_attachments(
        &self,
        team: TeamId,
        ids: &[AttachmentId],
    ) -> DomainResult<Vec<Attachment>> {
        let conn = self.conn().await?;
        let ids: Vec<Uuid> = ids.iter().map(|id| id.as_uuid()).collect();
        find(&conn, team, &ids).await
    }

    async fn delete_attachment(&self, team: TeamId, id: AttachmentId) -> DomainResult<Attachment> {
        let mut conn = self.conn().await?;
        let row: AttachmentRow = diesel::delete(
            task_attachments::table
                .filter(task_attachments::team_id.eq(team.as_uuid()))
                .filter(task_attachments::id.eq(id.as_uuid())),
        )
        .returning(AttachmentRow::as_returning())
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(db_error)?
        .ok_or(not_found(Resource::Attachment))?;
        row.into_domain()
    }
}
