//! `ScheduleStore` on PostgreSQL. The scheduler never locks across teams: it reads the due
//! schedules through the partial index `schedules_due`, then settles each occurrence in a
//! transaction of that schedule's team alone, with a conditional UPDATE on the `next_run_at`
//! it read (whoever updates first wins; the others find it moved and write nothing) and the
//! run behind a unique key on (team, schedule, occurrence).

use async_trait::async_trait;
use diesel::dsl::exists;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use procflow_domain::error::{DomainError, DomainResult, Resource};
use procflow_domain::ids::{ScheduleId, TeamId};
use procflow_domain::ports::{Occurrence, ScheduleFilter, ScheduleStore, Settlement};
use procflow_domain::schedule::Schedule;
use procflow_domain::values::{Cursor, Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::page_rows::{collect_page, rows_to_fetch};
use super::recurrences::Recurrences;
use super::runs::insert_run;
use super::schedule_page::FirstSchedules;
use super::{PgStore, append_events, not_found};
use crate::error::{Failure, db_error};
use crate::rows::schedule::{ScheduleRow, failure_json};
use crate::schema::{schedule_occurrences, schedules};

fn rows_into_domain(rows: Vec<ScheduleRow>, kept: &Recurrences) -> DomainResult<Vec<Schedule>> {
    rows.into_iter()
        .map(|row| row.into_domain(|text, zone| kept.read(text, zone)))
        .collect()
}

async fn get_schedule_on(
    mut conn: &AsyncPgConnection,
    kept: &Recurrences,
    team: TeamId,
    id: ScheduleId,
) -> DomainResult<Schedule> {
    schedules::table
        .filter(schedules::team_id.eq(team.as_uuid()))
        .filter(schedules::id.eq(id.as_uuid()))
        .select(ScheduleRow::as_select())
        .first(&mut conn)
        .await
        .optional()
        .map_err(db_error)?
        .ok_or(not_found(Resource::Schedule))?
        .into_domain(|text, zone| kept.read(text, zone))
}

/// The team's schedules that pass `filter`, boxed to be narrowed further.
fn filtered(
    team: TeamId,
    filter: ScheduleFilter,
) -> schedules::BoxedQuery<'static, diesel::pg::Pg> {
    let mut query = schedules::table
        .filter(schedules::team_id.eq(team.as_uuid()))
        .into_boxed();
    if let Some(template) = filter.template_id {
        query = query.filter(schedules::template_id.eq(template.as_uuid()));
    }
    if let Some(enabled) = filter.enabled {
        query = query.filter(schedules::enabled.eq(enabled));
    }
    query
}

/// A page of the team's schedules in one statement, the cursor's existence checked in it (as
/// a page of runs does); only an empty page after a cursor asks whether the cursor is known.
/// A cursor must name a schedule of the filtered list (API contract 3), as the runs' does.
async fn list_schedules_on(
    mut conn: &AsyncPgConnection,
    kept: &Recurrences,
    team: TeamId,
    filter: ScheduleFilter,
    page: PageRequest,
) -> DomainResult<Page<Schedule>> {
    let cursor_known = |cursor: Cursor| {
        filtered(team, filter)
            .filter(schedules::id.eq(cursor.id()))
            .select(schedules::id)
    };
    let limit = rows_to_fetch(page.limit);
    let rows: Vec<ScheduleRow> = if filter == ScheduleFilter::default() && page.cursor.is_none() {
        let rows = FirstSchedules::new(team.as_uuid(), limit)
            .load_stream(&mut conn)
            .await;
        collect_page(rows, page.limit).await
    } else {
        let mut query = filtered(team, filter);
        if let Some(cursor) = page.cursor {
            query = query
                .filter(schedules::id.gt(cursor.id()))
                .filter(exists(cursor_known(cursor)));
        }
        query
            .order(schedules::id)
            .limit(limit)
            .select(ScheduleRow::as_select())
            .load(&mut conn)
            .await
    }
    .map_err(db_error)?;
    if rows.is_empty()
        && let Some(cursor) = page.cursor
    {
        let known = cursor_known(cursor)
            .first::<Uuid>(&mut conn)
            .await
            .optional()
            .map_err(db_error)?;
        if known.is_none() {
            return Err(Cursor::unknown().into());
        }
    }
    Ok(Page::from_fetched(
        rows_into_domain(rows, kept)?,
        page.limit,
        |s| s.id.as_uuid(),
    ))
}

#[async_trait]
impl ScheduleStore for PgStore {
    async fn insert_schedule(&self, schedule: &Schedule) -> DomainResult<()> {
        let mut conn = self.conn().await?;
        match diesel::insert_into(schedules::table)
            .values(ScheduleRow::from_domain(schedule))
            .execute(&mut conn)
            .await
        {
            Ok(_) => Ok(()),
            // The template of another team (or none) fails the foreign key.
            Err(diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::ForeignKeyViolation,
                _,
            )) => Err(not_found(Resource::Template)),
            Err(e) => Err(db_error(e)),
        }
    }

    async fn get_schedule(&self, team: TeamId, id: ScheduleId) -> DomainResult<Schedule> {
        super::shared::on_shared!(self, |conn| get_schedule_on(
            conn,
            &self.recurrences,
            team,
            id
        ))
    }

    async fn list_schedules(
        &self,
        team: TeamId,
        filter: ScheduleFilter,
        page: PageRequest,
    ) -> DomainResult<Page<Schedule>> {
        super::shared::on_shared!(self, |conn| list_schedules_on(
            conn,
            &self.recurrences,
            team,
            filter,
            page
        ))
    }

    async fn replace_schedule(
        &self,
        schedule: &Schedule,
        seen_revision: i64,
    ) -> DomainResult<bool> {
        let mut conn = self.conn().await?;
        let key = schedules::table
            .filter(schedules::team_id.eq(schedule.team_id.as_uuid()))
            .filter(schedules::id.eq(schedule.id.as_uuid()));
        let updated = diesel::update(key.filter(schedules::revision.eq(seen_revision)))
            .set(ScheduleRow::from_domain(schedule))
            .execute(&mut conn)
            .await
            .map_err(db_error)?;
        if updated == 1 {
            return Ok(true);
        }
        let exists: i64 = key.count().get_result(&mut conn).await.map_err(db_error)?;
        if exists == 0 {
            return Err(not_found(Resource::Schedule));
        }
        Ok(false)
    }

    async fn delete_schedule(&self, team: TeamId, id: ScheduleId) -> DomainResult<()> {
        let mut conn = self.conn().await?;
        let deleted = diesel::delete(
            schedules::table
                .filter(schedules::team_id.eq(team.as_uuid()))
                .filter(schedules::id.eq(id.as_uuid())),
        )
        .execute(&mut conn)
        .await
        .map_err(db_error)?;
        if deleted == 0 {
            return Err(not_found(Resource::Schedule));
        }
        Ok(())
    }

    async fn due_schedules(
        &self,
        now: OffsetDateTime,
        limit: usize,
    ) -> DomainResult<Vec<Schedule>> {
        let mut conn = self.conn().await?;
        // The predicate repeats `schedules_due`'s so the planner can use it.
        let rows: Vec<ScheduleRow> = schedules::table
            .filter(schedules::enabled.eq(true))
            .filter(schedules::next_run_at.is_not_null())
            .filter(schedules::next_run_at.le(now))
            .order((schedules::next_run_at, schedules::id))
            .limit(i64::try_from(limit).unwrap_or(i64::MAX))
            .select(ScheduleRow::as_select())
            .load(&mut conn)
            .await
            .map_err(db_error)?;
        rows_into_domain(rows, &self.recurrences)
    }

    async fn settle_occurrence(&self, settlement: &Settlement) -> DomainResult<bool> {
        let mut conn = self.conn().await?;
        let settled = conn
            .transaction::<_, Failure, _>(async |conn| {
                let key = schedules::table
                    .filter(schedules::team_id.eq(settlement.team_id.as_uuid()))
                    .filter(schedules::id.eq(settlement.schedule_id.as_uuid()))
                    .filter(schedules::enabled.eq(true))
                    .filter(schedules::next_run_at.eq(settlement.seen));
                let moved = diesel::update(key)
                    .set((
                        schedules::next_run_at.eq(settlement.next_run_at),
                        schedules::missed_count.eq(schedules::missed_count + settlement.missed),
                        schedules::revision.eq(schedules::revision + 1),
                    ))
                    .execute(conn)
                    .await?;
                if moved == 0 {
                    return Ok(false);
                }
                let schedule = diesel::update(
                    schedules::table
                        .filter(schedules::team_id.eq(settlement.team_id.as_uuid()))
                        .filter(schedules::id.eq(settlement.schedule_id.as_uuid())),
                );
                match &settlement.occurrence {
                    Occurrence::Started(new_run) => {
                        insert_run(conn, new_run).await?;
                        let claimed = diesel::insert_into(schedule_occurrences::table)
                            .values((
                                schedule_occurrences::team_id.eq(settlement.team_id.as_uuid()),
                                schedule_occurrences::schedule_id
                                    .eq(settlement.schedule_id.as_uuid()),
                                schedule_occurrences::occurrence_at.eq(settlement.occurrence_at),
                                schedule_occurrences::run_id.eq(new_run.run.id.as_uuid()),
                            ))
                            .on_conflict_do_nothing()
                            .execute(conn)
                            .await?;
                        if claimed == 0 {
                            // Started already (a schedule moved back by hand onto a settled
                            // occurrence): the run just written must not stay.
                            return Err(Failure::Db(diesel::result::Error::RollbackTransaction));
                        }
                        schedule
                            .set((
                                schedules::last_run_at.eq(Some(settlement.occurrence_at)),
                                schedules::last_run_id.eq(Some(new_run.run.id.as_uuid())),
                                schedules::last_error.eq(None::<serde_json::Value>),
                            ))
                            .execute(conn)
                            .await?;
                    }
                    Occurrence::Failed { failure, events } => {
                        schedule
                            .set(schedules::last_error.eq(Some(failure_json(failure))))
                            .execute(conn)
                            .await?;
                        append_events(conn, events).await?;
                    }
                }
                Ok(true)
            })
            .await;
        let settled: bool = match settled {
            Err(Failure::Db(diesel::result::Error::RollbackTransaction)) => false,
            other => other.map_err(DomainError::from)?,
        };
        let raised = match &settlement.occurrence {
            Occurrence::Started(new_run) => {
                if let (true, Some(logic)) = (settled, &new_run.run.logic) {
                    let run = &new_run.run;
                    self.plans.keep(run.team_id, run.id, logic.plan.clone());
                }
                !new_run.events.is_empty()
            }
            Occurrence::Failed { events, .. } => !events.is_empty(),
        };
        if settled && raised {
            self.ring();
        }
        Ok(settled)
    }
}
