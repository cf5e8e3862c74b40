//! Rows of `schedules`.

use diesel::prelude::*;
use procflow_domain::error::{DomainError, ValidationError};
use procflow_domain::ids::{RunId, ScheduleId, TeamId, TemplateId};
use procflow_domain::schedule::{Recurrence, Schedule, ScheduleFailure, ScheduledRun, Timezone};
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::corrupt;
use crate::schema::schedules;

#[derive(Queryable, Selectable, Insertable, AsChangeset, Debug)]
#[diesel(table_name = schedules, check_for_backend(diesel::pg::Pg))]
// The key is (team_id, id): diesel then leaves both out of an update's SET, which Citus
// requires (the partition value of a row cannot be written, even to itself).
#[diesel(treat_none_as_null = true, primary_key(team_id, id))]
pub(crate) struct ScheduleRow {
    pub team_id: Uuid,
    pub id: Uuid,
    pub template_id: Uuid,
    pub name: Option<String>,
    pub recurrence: String,
    pub timezone: String,
    pub enabled: bool,
    pub run: Value,
    pub next_run_at: Option<OffsetDateTime>,
    pub last_run_at: Option<OffsetDateTime>,
    pub last_run_id: Option<Uuid>,
    pub last_error: Option<Value>,
    pub missed_count: i64,
    pub revision: i64,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// The stored form of a failure; serialising these plain types cannot fail.
pub(crate) fn failure_json(failure: &ScheduleFailure) -> Value {
    serde_json::to_value(failure).unwrap_or(Value::Null)
}

impl ScheduleRow {
    pub(crate) fn from_domain(schedule: &Schedule) -> Self {
        Self {
            team_id: schedule.team_id.as_uuid(),
            id: schedule.id.as_uuid(),
            template_id: schedule.template_id.as_uuid(),
            name: schedule.name.clone(),
            recurrence: schedule.recurrence.as_str().to_owned(),
            timezone: schedule.recurrence.timezone().name().to_owned(),
            enabled: schedule.enabled,
            run: serde_json::to_value(&schedule.run).unwrap_or(Value::Null),
            next_run_at: schedule.next_run_at,
            last_run_at: schedule.last_run_at,
            last_run_id: schedule.last_run_id.map(|id| id.as_uuid()),
            last_error: schedule.last_error.as_ref().map(failure_json),
            missed_count: schedule.missed_count,
            revision: schedule.revision,
            created_at: schedule.created_at,
            updated_at: schedule.updated_at,
        }
    }

    /// The schedule, its recurrence checked by `check` (`Recurrence::parse`, or a store's
    /// kept recurrences).
    pub(crate) fn into_domain(
        self,
        check: impl Fn(&str, Timezone) -> Result<Recurrence, ValidationError>,
    ) -> Result<Schedule, DomainError> {
        let timezone =
            Timezone::parse(&self.timezone).map_err(|e| corrupt("schedule timezone", e))?;
        let recurrence =
            check(&self.recurrence, timezone).map_err(|e| corrupt("schedule recurrence", e))?;
        let run: ScheduledRun =
            serde_json::from_value(self.run).map_err(|e| corrupt("schedule run", e))?;
        let last_error = self
            .last_error
            .map(serde_json::from_value::<ScheduleFailure>)
            .transpose()
            .map_err(|e| corrupt("schedule last_error", e))?;
        Ok(Schedule {
            id: ScheduleId::from_uuid(self.id),
            team_id: TeamId::from_uuid(self.team_id),
            template_id: TemplateId::from_uuid(self.template_id),
            name: self.name,
            recurrence,
            enabled: self.enabled,
            run,
            next_run_at: self.next_run_at,
            last_run_at: self.last_run_at,
            last_run_id: self.last_run_id.map(RunId::from_uuid),
            last_error,
            missed_count: self.missed_count,
            revision: self.revision,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use diesel::pg::Pg;

    use super::*;

    #[test]
    fn an_update_never_writes_the_distribution_column() {
        let row = ScheduleRow {
            team_id: Uuid::nil(),
            id: Uuid::nil(),
            template_id: Uuid::nil(),
            name: None,
            recurrence: String::new(),
            timezone: "UTC".into(),
            enabled: true,
            run: Value::Null,
            next_run_at: None,
            last_run_at: None,
            last_run_id: None,
            last_error: None,
            missed_count: 0,
            revision: 1,
            created_at: OffsetDateTime::UNIX_EPOCH,
            updated_at: OffsetDateTime::UNIX_EPOCH,
        };
        let sql =
            diesel::debug_query::<Pg, _>(&diesel::update(schedules::table).set(&row)).to_string();
        assert!(sql.contains("\"enabled\" = $"), "{sql}");
        assert!(!sql.contains("\"team_id\" ="), "{sql}");
        assert!(!sql.contains("\"id\" ="), "{sql}");
    }
}
