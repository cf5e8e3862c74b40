//! `ScheduleStore` in memory: schedules, and the occurrences that started a run (one per
//! schedule and occurrence, as PostgreSQL's unique key keeps them).

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::state::paginate;
use crate::store::InMemoryStore;
use procflow_domain::error::{DomainError, DomainResult, Resource};
use procflow_domain::ids::{ScheduleId, TeamId};
use procflow_domain::ports::{Occurrence, ScheduleFilter, ScheduleStore, Settlement};
use procflow_domain::schedule::Schedule;
use procflow_domain::values::{Page, PageRequest};

const NOT_FOUND: DomainError = DomainError::NotFound(Resource::Schedule);

#[async_trait]
impl ScheduleStore for InMemoryStore {
    async fn insert_schedule(&self, schedule: &Schedule) -> DomainResult<()> {
        let mut state = self.state();
        if !state
            .templates
            .iter()
            .any(|(t, _)| t.id == schedule.template_id && t.team_id == schedule.team_id)
        {
            return Err(DomainError::NotFound(Resource::Template));
        }
        state.schedules.push(schedule.clone());
        Ok(())
    }

    async fn get_schedule(&self, team: TeamId, id: ScheduleId) -> DomainResult<Schedule> {
        self.state()
            .schedules
            .iter()
            .find(|s| s.team_id == team && s.id == id)
            .cloned()
            .ok_or(NOT_FOUND)
    }

    async fn list_schedules(
        &self,
        team: TeamId,
        filter: ScheduleFilter,
        page: PageRequest,
    ) -> DomainResult<Page<Schedule>> {
        let state = self.state();
        let mut schedules: Vec<Schedule> = state
            .schedules
            .iter()
            .filter(|s| s.team_id == team)
            .filter(|s| filter.template_id.is_none_or(|t| s.template_id == t))
            .filter(|s| filter.enabled.is_none_or(|e| s.enabled == e))
            .cloned()
            .collect();
        schedules.sort_by_key(|s| s.id);
        paginate(&schedules, page, |s| s.id.as_uuid())
    }

    async fn replace_schedule(
        &self,
        schedule: &Schedule,
        seen_revision: i64,
    ) -> DomainResult<bool> {
        let mut state = self.state();
        let stored = state
            .schedules
            .iter_mut()
            .find(|s| s.team_id == schedule.team_id && s.id == schedule.id)
            .ok_or(NOT_FOUND)?;
        if stored.revision != seen_revision {
            return Ok(false);
        }
        *stored = schedule.clone();
        Ok(true)
    }

    async fn delete_schedule(&self, team: TeamId, id: ScheduleId) -> DomainResult<()> {
        let mut state = self.state();
        let before = state.schedules.len();
        state
            .schedules
            .retain(|s| !(s.team_id == team && s.id == id));
        if state.schedules.len() == before {
            return Err(NOT_FOUND);
        }
        Ok(())
    }

    async fn due_schedules(
        &self,
        now: OffsetDateTime,
        limit: usize,
    ) -> DomainResult<Vec<Schedule>> {
        let mut due: Vec<Schedule> = self
            .state()
            .schedules
            .iter()
            .filter(|s| s.enabled && s.next_run_at.is_some_and(|at| at <= now))
            .cloned()
            .collect();
        due.sort_by_key(|s| (s.next_run_at, s.id));
        due.truncate(limit);
        Ok(due)
    }

    async fn settle_occurrence(&self, settlement: &Settlement) -> DomainResult<bool> {
        let mut state = self.state();
        let key = (
            settlement.team_id,
            settlement.schedule_id,
            settlement.occurrence_at,
        );
        let Some(index) = state.schedules.iter().position(|s| {
            s.team_id == settlement.team_id
                && s.id == settlement.schedule_id
                && s.enabled
                && s.next_run_at == Some(settlement.seen)
        }) else {
            return Ok(false);
        };
        if let Occurrence::Started(new_run) = &settlement.occurrence {
            if state.schedule_occurrences.contains(&key) {
                return Ok(false);
            }
            if !state
                .templates
                .iter()
                .any(|(t, _)| t.id == new_run.run.template_id && t.team_id == new_run.run.team_id)
            {
                return Err(DomainError::NotFound(Resource::Template));
            }
            state.schedule_occurrences.insert(key);
            state.runs.push(new_run.run.clone());
            state
                .tasks
                .insert((new_run.run.team_id, new_run.run.id), new_run.tasks.clone());
            state.append(&new_run.events);
        }
        let schedule = &mut state.schedules[index];
        schedule.next_run_at = settlement.next_run_at;
        schedule.missed_count = schedule.missed_count.saturating_add(settlement.missed);
        schedule.revision += 1;
        let events = match &settlement.occurrence {
            Occurrence::Started(new_run) => {
                schedule.last_run_at = Some(settlement.occurrence_at);
                schedule.last_run_id = Some(new_run.run.id);
                schedule.last_error = None;
                Vec::new()
            }
            Occurrence::Failed { failure, events } => {
                schedule.last_error = Some(failure.clone());
                events.clone()
            }
        };
        state.append(&events);
        Ok(true)
    }
}
