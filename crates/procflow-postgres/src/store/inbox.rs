//! The inbox (API contract 15.1) on PostgreSQL: a team's tasks across runs, served in order by
//! the partial indexes `run_tasks_inbox_by_assignee` and `run_tasks_inbox` (migration
//! `task_inbox`), each row joined to its run by primary key.
//!
//! Both statements are kept prepared under their text ([`ByText`]): the ordering key is SQL
//! text (`sql::<Timestamptz>(KEY)`), which diesel takes for a statement it must prepare afresh
//! at every execution, so PostgreSQL parsed and planned the page's join on every request, with
//! a round trip more, where the floor plans it once (`docs/performance.md`, "The inbox's page
//! kept prepared"). Their texts are a small fixed set, one per combination of filters given and
//! a cursor or none (at most 96 for the page, 48 for the cursor's position): the values are
//! binds.

use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{Bool, Nullable, Timestamptz};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use procflow_domain::error::DomainResult;
use procflow_domain::ids::TeamId;
use procflow_domain::run::{InboxFilter, InboxTask};
use procflow_domain::values::{Cursor, Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::PgStore;
use super::by_text::ByText;
use crate::error::db_error;
use crate::rows::run::ListedTaskRow;
use crate::schema::{run_tasks, runs};

/// The list's order, written as the indexes have it (the planner matches the expression).
const KEY: &str = "COALESCE(run_tasks.due_date, 'infinity'::timestamptz)";

/// The team's tasks that `filter` admits at `now`, joined to their runs, as a boxed query.
macro_rules! admitted {
    ($team:expr, $filter:expr, $now:expr) => {{
        let (team, filter, now): (TeamId, &InboxFilter, OffsetDateTime) = ($team, $filter, $now);
        let mut query = run_tasks::table
            .inner_join(
                runs::table.on(runs::team_id
                    .eq(run_tasks::team_id)
                    .and(runs::id.eq(run_tasks::run_id))),
            )
            .filter(run_tasks::team_id.eq(team.as_uuid()))
            .filter(runs::team_id.eq(team.as_uuid()))
            .filter(run_tasks::hidden.eq(false))
            .filter(run_tasks::state.eq(filter.status.as_str()))
            .filter(runs::status.eq(filter.run_status.as_str()))
            .into_boxed();
        if let Some(assignee) = &filter.assignee {
            query = query.filter(run_tasks::assignee.eq(assignee.to_string()));
        }
        if let Some(template) = filter.template_id {
            query = query.filter(runs::template_id.eq(template.as_uuid()));
        }
        // Bounds on the sort key keep the scan a range of the index; a task without a due date
        // (key +infinity) is never "due before" anything and never overdue.
        if let Some(before) = filter.due_before {
            query = query.filter(sql::<Timestamptz>(KEY).lt(before));
        }
        if let Some(after) = filter.due_after {
            query = query
                .filter(sql::<Timestamptz>(KEY).gt(after))
                .filter(run_tasks::due_date.is_not_null());
        }
        match filter.overdue {
            Some(true) => query = query.filter(sql::<Timestamptz>(KEY).lt(now)),
            Some(false) => query = query.filter(sql::<Timestamptz>(KEY).ge(now)),
            None => {}
        }
        query
    }};
}

pub(super) async fn list(
    store: &PgStore,
    team: TeamId,
    filter: &InboxFilter,
    now: OffsetDateTime,
    page: PageRequest,
) -> DomainResult<Page<InboxTask>> {
    let conn = store.shared_conn().await?;
    conn.settle(list_on(&conn, team, filter, now, page).await)
}

/// The inbox's page (and its cursor's position) on `conn`, each statement committing alone.
async fn list_on(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    filter: &InboxFilter,
    now: OffsetDateTime,
    page: PageRequest,
) -> DomainResult<Page<InboxTask>> {
    let mut query = admitted!(team, filter, now);
    if let Some(cursor) = page.cursor {
        // The cursor must name a task of this very list (as every list's does); its position
        // is its due date and id.
        let position: Option<(Option<OffsetDateTime>, Uuid)> = ByText(
            admitted!(team, filter, now)
                .filter(run_tasks::id.eq(cursor.id()))
                .select((run_tasks::due_date, run_tasks::id))
                .limit(1),
        )
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(db_error)?;
        let (due, id) = position.ok_or_else(Cursor::unknown)?;
        query = query.filter(
            sql::<Bool>(&format!("({KEY}, run_tasks.id) > (COALESCE("))
                .bind::<Nullable<Timestamptz>, _>(due)
                .sql(", 'infinity'::timestamptz), ")
                .bind::<diesel::sql_types::Uuid, _>(id)
                .sql(")"),
        );
    }
    let size = i64::try_from(page.limit.get() + 1).unwrap_or(i64::MAX);
    let rows: Vec<(ListedTaskRow, String)> = ByText(
        query
            .order((sql::<Timestamptz>(KEY).asc(), run_tasks::id.asc()))
            .limit(size)
            .select((ListedTaskRow::as_select(), runs::title)),
    )
    .load(&mut conn)
    .await
    .map_err(db_error)?;
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
