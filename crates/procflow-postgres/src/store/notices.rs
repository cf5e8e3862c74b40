//! `NoticeStore` on PostgreSQL: due reminders and overdue tasks marked, each by an `UPDATE`
//! that checks again that it is still due, and turned into outbox events in one transaction,
//! so that of several instances scanning at once each notice is taken by exactly one (no row
//! lock across teams: Citus refuses one).

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use procflow_domain::error::DomainResult;
use procflow_domain::ids::{GuestId, RunId, TeamId};
use procflow_domain::mail::{DueNotice, OVERDUE_REPEAT};
use procflow_domain::ports::{NoticeDecision, NoticeStore};
use procflow_domain::run::RunStatus;
use time::OffsetDateTime;
use uuid::Uuid;

use super::{PgStore, append_events};
use crate::error::{Failure, db_error};
use crate::rows::parse;
use crate::rows::run::RunTaskRow;
use crate::schema::{run_tasks, runs};

#[derive(QueryableByName)]
struct DueReminder {
    #[diesel(sql_type = SqlUuid)]
    team_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    run_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Text)]
    email: String,
    #[diesel(sql_type = Text)]
    title: String,
    #[diesel(sql_type = Text)]
    status: String,
}

impl DueReminder {
    fn into_domain(self) -> DomainResult<DueNotice> {
        Ok(DueNotice::Reminder {
            team_id: TeamId::from_uuid(self.team_id),
            run_id: RunId::from_uuid(self.run_id),
            run_title: self.title,
            run_active: parse::<RunStatus>("run status", &self.status)? == RunStatus::Active,
            guest_id: GuestId::from_uuid(self.id),
            email: parse("guest email", &self.email)?,
        })
    }
}

/// Guests due their reminder, marked reminded. The `invited_at` bound (a day at least) lets
/// the partial index `run_guests_due_reminders` limit the scan. No row lock on the candidates
/// (Citus refuses one across shards): the `UPDATE` checks again that each guest is still
/// unreminded, so of two takers racing for a guest the second finds it reminded and leaves it.
async fn take_reminders(
    conn: &mut AsyncPgConnection,
    now: OffsetDateTime,
    limit: i64,
) -> DomainResult<Vec<DueNotice>> {
    let rows: Vec<DueReminder> = diesel::sql_query(
        "WITH due AS ( \
           SELECT g.team_id, g.run_id FROM run_guests g \
           WHERE g.enable_reminders AND g.engaged_at IS NULL AND g.reminded_at IS NULL \
             AND g.invited_at <= $1 - interval '1 day' \
             AND g.invited_at + make_interval(days => g.reminder_days) <= $1 \
           ORDER BY g.invited_at LIMIT $2) \
         UPDATE run_guests g SET reminded_at = $1 \
         FROM due, runs r \
         WHERE g.team_id = due.team_id AND g.run_id = due.run_id \
           AND g.reminded_at IS NULL AND g.engaged_at IS NULL \
           AND r.team_id = g.team_id AND r.id = g.run_id \
         RETURNING g.team_id, g.run_id, g.id, g.email, r.title, r.status",
    )
    .bind::<Timestamptz, _>(now)
    .bind::<BigInt, _>(limit)
    .load(conn)
    .await
    .map_err(db_error)?;
    rows.into_iter().map(DueReminder::into_domain).collect()
}

/// Open, assigned, visible tasks past their due date and not notified within the last day,
/// their next notice set a day on (each re-checked as it is set). A task hidden by a rule counts as done.
async fn take_overdue(
    conn: &mut AsyncPgConnection,
    now: OffsetDateTime,
    limit: i64,
) -> DomainResult<Vec<DueNotice>> {
    let tasks: Vec<RunTaskRow> = run_tasks::table
        .filter(run_tasks::state.eq("open"))
        .filter(run_tasks::hidden.eq(false))
        .filter(run_tasks::assignee.is_not_null())
        .filter(run_tasks::due_date.le(now))
        .filter(
            run_tasks::overdue_next_at
                .is_null()
                .or(run_tasks::overdue_next_at.le(now)),
        )
        .order(run_tasks::due_date)
        .limit(limit)
        .select(RunTaskRow::as_select())
        .load(conn)
        .await
        .map_err(db_error)?;
    let mut tasks = tasks;
    // Rows are changed in one order by every taker, so two takers never wait on each other.
    tasks.sort_by_key(|row| (row.team_id, row.run_id, row.id));
    let mut notices = Vec::with_capacity(tasks.len());
    for row in tasks {
        let (team, run, id) = (row.team_id, row.run_id, row.id);
        // Taken only if still due as this taker found it: a racing taker that set the next
        // notice first leaves nothing to update (no row lock on the candidates: see above).
        let taken = diesel::update(
            run_tasks::table
                .filter(run_tasks::team_id.eq(team))
                .filter(run_tasks::run_id.eq(run))
                .filter(run_tasks::id.eq(id))
                .filter(run_tasks::state.eq("open"))
                .filter(
                    run_tasks::overdue_next_at
                        .is_null()
                        .or(run_tasks::overdue_next_at.le(now)),
                ),
        )
        .set(run_tasks::overdue_next_at.eq(now + OVERDUE_REPEAT))
        .execute(conn)
        .await
        .map_err(db_error)?;
        if taken == 0 {
            continue;
        }
        let title: String = runs::table
            .filter(runs::team_id.eq(team))
            .filter(runs::id.eq(run))
            .select(runs::title)
            .first(conn)
            .await
            .map_err(db_error)?;
        notices.push(DueNotice::Overdue {
            team_id: TeamId::from_uuid(team),
            run_title: title,
            task: Box::new(row.into_domain()?),
        });
    }
    Ok(notices)
}

#[async_trait]
impl NoticeStore for PgStore {
    async fn take_due_notices(
        &self,
        now: OffsetDateTime,
        limit: usize,
        decide: &NoticeDecision<'_>,
    ) -> DomainResult<usize> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut conn = self.conn().await?;
        let (taken, raised) = conn
            .transaction::<_, Failure, _>(async |conn| {
                let mut notices = take_reminders(conn, now, limit).await?;
                let left = limit - i64::try_from(notices.len()).unwrap_or(limit);
                if left > 0 {
                    notices.extend(take_overdue(conn, now, left).await?);
                }
                let events: Vec<_> = notices.iter().filter_map(decide).collect();
                append_events(conn, &events).await?;
                Ok((notices.len(), !events.is_empty()))
            })
            .await
            .map_err(procflow_domain::error::DomainError::from)?;
        drop(conn);
        if raised {
            self.ring();
        }
        Ok(taken)
    }
}
