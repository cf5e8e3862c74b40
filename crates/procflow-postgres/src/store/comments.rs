//! `CommentStore` on PostgreSQL.

use async_trait::async_trait;
use diesel::dsl::exists;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use futures_util::future::try_join;
use procflow_domain::comment::Comment;
use procflow_domain::error::{DomainError, DomainResult, Resource};
use procflow_domain::ids::{CommentId, RunId, TaskId, TeamId};
use procflow_domain::ports::{CommentDecision, CommentEdit, CommentStore};
use procflow_domain::values::{Cursor, Page, PageRequest};
use uuid::Uuid;

use super::comment_insert::InsertComment;
use super::page_rows::{collect_page, rows_to_fetch};
use super::thread::thread_of;
use super::thread_page::FirstComments;
use super::transaction::Transaction;
use super::{PgStore, append_events, not_found};
use crate::error::{Failure, db_error};
use crate::rows::comment::CommentRow;
use crate::schema::task_comments;

/// The comments of `rows`, with the attachments they name that still exist (one query).
async fn with_attachments(
    conn: &AsyncPgConnection,
    team: TeamId,
    rows: Vec<CommentRow>,
) -> DomainResult<Vec<Comment>> {
    let mut ids: Vec<Uuid> = rows.iter().flat_map(CommentRow::attachment_ids).collect();
    ids.sort_unstable();
    ids.dedup();
    let existing = super::attachments::find(conn, team, &ids).await?;
    rows.into_iter()
        .map(|row| row.into_domain(&existing))
        .collect()
}

async fn insert_comment(mut conn: &AsyncPgConnection, row: CommentRow) -> DomainResult<()> {
    InsertComment(&row)
        .execute(&mut conn)
        .await
        .map(|_| ())
        .map_err(db_error)
}

/// A page of a task's thread: one statement when the page has comments. The cursor's place in
/// the thread is checked in the page's statement; only an empty page asks what is unknown (the
/// run, the task, the cursor), as a run's list of tasks does.
async fn list_comments_on(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    run: RunId,
    task_id: TaskId,
    page: PageRequest,
) -> DomainResult<Page<Comment>> {
    let thread = || {
        task_comments::table
            .filter(task_comments::team_id.eq(team.as_uuid()))
            .filter(task_comments::run_id.eq(run.as_uuid()))
            .filter(task_comments::task_id.eq(task_id.as_uuid()))
            .into_boxed()
    };
    let cursor_in_thread = |cursor: Cursor| {
        thread()
            .filter(task_comments::id.eq(cursor.id()))
            .select(task_comments::id)
    };
    let limit = rows_to_fetch(page.limit);
    let rows: Vec<CommentRow> = match page.cursor {
        None => {
            let rows = FirstComments::new(team.as_uuid(), run.as_uuid(), task_id.as_uuid(), limit)
                .load_stream(&mut conn)
                .await;
            collect_page(rows, page.limit).await
        }
        Some(cursor) => {
            thread()
                .filter(task_comments::id.gt(cursor.id()))
                .filter(exists(cursor_in_thread(cursor)))
                .order(task_comments::id)
                .limit(limit)
                .select(CommentRow::as_select())
                .load(&mut conn)
                .await
        }
    }
    .map_err(db_error)?;
    if rows.is_empty() {
        let cursor_known = match page.cursor {
            Some(cursor) => cursor_in_thread(cursor)
                .first::<Uuid>(&mut conn)
                .await
                .optional()
                .map_err(db_error)?
                .is_some(),
            None => false,
        };
        if !cursor_known {
            thread_of(conn, team, run, task_id, false).await?;
            if page.cursor.is_some() {
                return Err(Cursor::unknown().into());
            }
        }
    }
    let comments = with_attachments(conn, team, rows).await?;
    Ok(Page::from_fetched(comments, page.limit, |c| c.id.as_uuid()))
}

#[async_trait]
impl CommentStore for PgStore {
    async fn add_comment(
        &self,
        team: TeamId,
        run: RunId,
        task_id: TaskId,
        decide: &CommentDecision<'_>,
    ) -> DomainResult<Comment> {
        let mut conn = self.conn().await?;
        // Three round trips: `BEGIN` with both reads, the comment with its events, `COMMIT`.
        let (transaction, (title, current)) = Transaction::begin_with(&mut conn, async |conn| {
            thread_of(conn, team, run, task_id, true).await
        })
        .await
        .map_err(DomainError::from)?;
        let outcome = async {
            let conn = transaction.conn();
            let new = decide(&title, &current.into_domain()?)?;
            try_join(
                insert_comment(conn, CommentRow::from_domain(&new.comment)),
                append_events(conn, &new.events),
            )
            .await?;
            Ok::<_, Failure>(new.comment)
        }
        .await;
        let comment = transaction.end(outcome).await.map_err(DomainError::from)?;
        self.ring();
        Ok(comment)
    }

    async fn list_comments(
        &self,
        team: TeamId,
        run: RunId,
        task_id: TaskId,
        page: PageRequest,
    ) -> DomainResult<Page<Comment>> {
        super::shared::on_shared!(self, |conn| list_comments_on(
            conn, team, run, task_id, page
        ))
    }

    async fn latest_run_comments(
        &self,
        team: TeamId,
        run: RunId,
        limit: usize,
    ) -> DomainResult<Vec<Comment>> {
        let mut conn = self.conn().await?;
        // Newest first through the thread index (team, run, ...), then turned oldest first.
        let rows: Vec<CommentRow> = task_comments::table
            .filter(task_comments::team_id.eq(team.as_uuid()))
            .filter(task_comments::run_id.eq(run.as_uuid()))
            .order(task_comments::id.desc())
            .limit(i64::try_from(limit).unwrap_or(i64::MAX))
            .select(CommentRow::as_select())
            .load(&mut conn)
            .await
            .map_err(db_error)?;
        with_attachments(&conn, team, rows.into_iter().rev().collect()).await
    }

    async fn get_comment(&self, team: TeamId, id: CommentId) -> DomainResult<Comment> {
        let mut conn = self.conn().await?;
        let row = task_comments::table
            .filter(task_comments::team_id.eq(team.as_uuid()))
            .filter(task_comments::id.eq(id.as_uuid()))
            .select(CommentRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(db_error)?
            .ok_or(not_found(Resource::Comment))?;
        with_attachments(&conn, team, vec![row])
            .await?
            .pop()
            .ok_or(not_found(Resource::Comment))
    }

    async fn update_comment(
        &self,
        team: TeamId,
        id: CommentId,
        decide: &CommentEdit<'_>,
    ) -> DomainResult<Comment> {
        let mut conn = self.conn().await?;
        conn.transaction::<_, Failure, _>(async |conn| {
            let key = task_comments::table
                .filter(task_comments::team_id.eq(team.as_uuid()))
                .filter(task_comments::id.eq(id.as_uuid()));
            let row = key
                .select(CommentRow::as_select())
                .for_update()
                .first(conn)
                .await
                .optional()?
                .ok_or(not_found(Resource::Comment))?;
            let current = with_attachments(conn, team, vec![row])
                .await?
                .pop()
                .ok_or(not_found(Resource::Comment))?;
            let next = decide(&current)?;
            if next != current {
                diesel::update(key)
                    .set(CommentRow::from_domain(&next))
                    .execute(conn)
                    .await?;
            }
            Ok(next)
        })
        .await
        .map_err(Into::into)
    }
}
