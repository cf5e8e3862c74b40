//! The inbox (API contract 15.1) on PostgreSQL: a team's tasks across runs, served in order by
//! the partial indexes `run_tasks_inbox_by_assignee` and `run_tasks_inbox` (migration
//! `task_inbox`), each row joined to its run by primary key.
//!
//! Both statements ([`super::inbox_page`]) are kept prepared under their text: PostgreSQL
//! plans the page's join once per connection and combination of filters, as the floor does
//! (`docs/performance.md`, "The inbox's page kept prepared").

use diesel::OptionalExtension;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use procflow_domain::error::DomainResult;
use procflow_domain::ids::TeamId;
use procflow_domain::run::{InboxFilter, InboxTask};
use procflow_domain::values::{Cursor, Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::PgStore;
use super::inbox_page::{Admitted, InboxPage, InboxPosition};
use super::page_rows::{collect_page, rows_to_fetch};
use crate::error::db_error;
use crate::rows::run::ListedTaskRow;

pub(super) async fn list(
    store: &PgStore,
    team: TeamId,
    filter: &InboxFilter,
    now: OffsetDateTime,
    page: PageRequest,
) -> DomainResult<Page<InboxTask>> {
    super::shared::on_shared!(store, |conn| list_on(conn, team, filter, now, page))
}

/// The inbox's page (and its cursor's position) on `conn`, each statement committing alone.
async fn list_on(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    filter: &InboxFilter,
    now: OffsetDateTime,
    page: PageRequest,
) -> DomainResult<Page<InboxTask>> {
    let admitted = Admitted::new(team, filter, now);
    let after = match page.cursor {
        // The cursor must name a task of this very list (as every list's does); its position
        // is its due date and id.
        Some(cursor) => {
            let position: Option<(Option<OffsetDateTime>, Uuid)> =
                InboxPosition::new(&admitted, cursor.id())
                    .get_result(&mut conn)
                    .await
                    .optional()
                    .map_err(db_error)?;
            Some(position.ok_or_else(Cursor::unknown)?)
        }
        None => None,
    };
    let size = rows_to_fetch(page.limit);
    let rows = InboxPage::new(admitted, after, size)
        .load_stream(&mut conn)
        .await;
    let rows: Vec<(ListedTaskRow, String)> =
        collect_page(rows, page.limit).await.map_err(db_error)?;
    let tasks = rows
        .into_iter()
        .map(|(row, run_title)| {
            Ok(InboxTask {
                task: row.into_domain()?,
                run_title,
            })
        })
        .collect::<DomainResult<Vec<_>>>()?;
    Ok(Page::from_fetched(tasks, page.limit, |t| {
        t.task.id.as_uuid()
    }))
}

#[cfg(test)]
mod tests {
    use procflow_domain::ports::RunStore;
    use procflow_domain::values::{Cursor, Limit};

    use super::*;
    use crate::PoolConfig;
    use crate::store::inbox_page::KEY;
    use crate::testing::{migrated_database, prepared_statements};

    /// The inbox page statements this session holds prepared.
    async fn prepared(store: &PgStore) -> i64 {
        let mut conn = store.conn().await.expect("connection");
        prepared_statements(&mut conn, &format!("%ORDER BY {KEY}%")).await
    }

    #[tokio::test]
    async fn the_inbox_page_is_prepared_once_and_kept() {
        let db = migrated_database().await;
        // One connection: every call below runs on the session `prepared` reads.
        let store = PgStore::new(&PoolConfig {
            max_size: 1,
            ..PoolConfig::new(db.url())
        })
        .expect("pool");
        let team = TeamId::from_uuid(Uuid::new_v4());
        let filter = InboxFilter::default();
        let now = OffsetDateTime::now_utc();
        let first = PageRequest {
            limit: Limit::default(),
            cursor: None,
        };
        for _ in 0..3 {
            let page = store.list_inbox(team, &filter, now, first).await;
            assert_eq!(page.expect("page").items.len(), 0);
        }
        assert_eq!(prepared(&store).await, 1, "one page statement, kept");
        // Another combination of filters is another text, kept beside the first.
        let overdue = InboxFilter {
            overdue: Some(true),
            ..InboxFilter::default()
        };
        for _ in 0..2 {
            store
                .list_inbox(team, &overdue, now, first)
                .await
                .expect("page");
        }
        assert_eq!(prepared(&store).await, 2);
        // A cursor's position is read by a statement kept the same way, SQL text in its
        // filters or not (it names no task here: the answer is the unknown cursor's error).
        let after = PageRequest {
            cursor: Some(Cursor::after(Uuid::new_v4())),
            ..first
        };
        for _ in 0..2 {
            let error = store.list_inbox(team, &overdue, now, after).await;
            assert!(error.is_err(), "{error:?}");
        }
        let mut conn = store.conn().await.expect("connection");
        let positions = prepared_statements(&mut conn, "%\"run_tasks\".\"id\" = $%").await;
        let pages_with_a_cursor = prepared_statements(
            &mut conn,
            &format!("%\"run_tasks\".\"id\" = $%ORDER BY {KEY}%"),
        )
        .await;
        assert_eq!(
            positions - pages_with_a_cursor,
            1,
            "one position statement, kept"
        );
    }
}
