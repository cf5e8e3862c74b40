//! Use cases on schedules (API contract 13.1) and the scheduler's tick: each due occurrence
//! starts one run through the same checks as Create a Run, written with the schedule's move in
//! one transaction.

use std::sync::Arc;

use futures_util::StreamExt as _;
use futures_util::stream;
use time::OffsetDateTime;

use super::{CreateRun, Procflow};
use crate::error::{DomainError, DomainResult, ValidationError};
use crate::etag::IfMatch;
use crate::event::{Event, EventPayload};
use crate::ids::{EventId, RunId, ScheduleId, TemplateId};
use crate::ports::{Occurrence, ScheduleFilter, ScheduleStore, Settlement};
use crate::run::Prefill;
use crate::schedule::{Recurrence, Schedule, ScheduleFailure, ScheduledRun, Timezone, check_name};
use crate::team::Team;
use crate::values::{Page, PageRequest};

/// Create a schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct NewSchedule {
    /// The template each run starts from.
    pub template_id: TemplateId,
    /// A name for people.
    pub name: Option<String>,
    /// The recurrence text (`DTSTART:...\nRRULE:...`).
    pub recurrence: String,
    /// IANA zone of its local times; the team's when `None`.
    pub timezone: Option<String>,
    /// Whether it starts runs; `true` when `None`.
    pub enabled: Option<bool>,
    /// What each run gets.
    pub run: ScheduledRun,
}

/// Change a schedule; `None` leaves a field as it is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SchedulePatch {
    /// `Some(None)` removes the name.
    pub name: Option<Option<String>>,
    /// A new recurrence text.
    pub recurrence: Option<String>,
    /// A new timezone.
    pub timezone: Option<String>,
    /// Turn it on or off.
    pub enabled: Option<bool>,
    /// What each run gets, as a whole.
    pub run: Option<ScheduledRun>,
    /// Applies only when the schedule's current tag matches.
    pub if_match: Option<IfMatch>,
}

/// What one tick of the scheduler did.
#[derive(Debug, Default)]
pub struct Tick {
    /// Runs started: (schedule, run).
    pub started: Vec<(ScheduleId, RunId)>,
    /// Occurrences that started nothing, with the reason recorded in `last_error`.
    pub failed: Vec<(ScheduleId, ScheduleFailure)>,
    /// Occurrences another instance settled first.
    pub lost: usize,
    /// Schedules left for the next tick because the store failed, and guest invitations of
    /// started runs that failed (the run stands): for the log.
    pub errors: Vec<(ScheduleId, DomainError)>,
}

/// How one due schedule was settled.
enum Settled {
    /// Its occurrence started a run; the guest invitation's failure, if one was asked for.
    Started(RunId, Option<DomainError>),
    /// Its occurrence started nothing, for the reason recorded.
    Failed(ScheduleFailure),
    /// Another instance settled it first.
    Lost,
}

impl Tick {
    fn record(&mut self, schedule: ScheduleId, settled: DomainResult<Settled>) {
        match settled {
            Ok(Settled::Started(run, invite)) => {
                self.started.push((schedule, run));
                if let Some(error) = invite {
                    self.errors.push((schedule, error));
                }
            }
            Ok(Settled::Failed(failure)) => self.failed.push((schedule, failure)),
            Ok(Settled::Lost) => self.lost += 1,
            Err(error) => self.errors.push((schedule, error)),
        }
    }
}

/// Occurrences a tick settles at once when the service is not told otherwise.
///
/// A run of a large template costs a few milliseconds of PostgreSQL's time and as much again
/// of waiting on it: settled one after the other, 10,000 schedules due in the same minute
/// would not all start within it (issue "Runs that start themselves").
const DEFAULT_PARALLEL: usize = 4;

/// The schedules service: the API's use cases and the scheduler.
#[derive(Clone)]
pub struct Schedules {
    procflow: Procflow,
    store: Arc<dyn ScheduleStore>,
    parallel: usize,
}

impl Schedules {
    /// A service over the run use cases and a schedule store, whose ticks settle four
    /// occurrences at once ([`Self::with_parallel`] changes it).
    #[must_use]
    pub fn new(procflow: Procflow, store: Arc<dyn ScheduleStore>) -> Self {
        Self {
            procflow,
            store,
            parallel: DEFAULT_PARALLEL,
        }
    }

    /// The same service, settling up to `parallel` occurrences at once in a tick (at least
    /// one): each holds a database connection while it settles, so keep it below the pool's
    /// size.
    #[must_use]
    pub fn with_parallel(mut self, parallel: usize) -> Self {
        self.parallel = parallel.max(1);
        self
    }

    /// Creates a schedule; its first occurrence is the first at or after now.
    ///
    /// # Errors
    /// `NotFound(Template)`; a validation error naming the field (the recurrence's part, the
    /// timezone, the name, the run's pre-fill).
    pub async fn create(&self, team: &Team, request: NewSchedule) -> DomainResult<Schedule> {
        let timezone = self.timezone(team, request.timezone.as_deref())?;
        let recurrence = Recurrence::parse(&request.recurrence, timezone)?;
        let name = check_name(request.name)?;
        self.check_run(team, request.template_id, &request.run)
            .await?;
        let now = self.procflow.now();
        let enabled = request.enabled.unwrap_or(true);
        let schedule = Schedule {
            name,
            enabled,
            ..Schedule::new(
                ScheduleId::from_uuid(self.procflow.ports.ids.new_id()),
                team.id,
                request.template_id,
                recurrence,
                request.run,
                now,
            )
        };
        self.store.insert_schedule(&schedule).await?;
        Ok(schedule)
    }

    /// A schedule of the team.
    ///
    /// # Errors
    /// `NotFound(Schedule)`.
    pub async fn get(&self, team: &Team, id: ScheduleId) -> DomainResult<Schedule> {
        self.store.get_schedule(team.id, id).await
    }

    /// The team's schedules, oldest first.
    ///
    /// # Errors
    /// A store failure, or an unknown cursor.
    pub async fn list(
        &self,
        team: &Team,
        filter: ScheduleFilter,
        page: PageRequest,
    ) -> DomainResult<Page<Schedule>> {
        self.store.list_schedules(team.id, filter, page).await
    }

    /// Changes a schedule. A new recurrence or timezone, or turning it on, starts counting
    /// from now (occurrences before are not run).
    ///
    /// # Errors
    /// `NotFound(Schedule)`, `PreconditionFailed`, or a validation error naming the field.
    pub async fn update(
        &self,
        team: &Team,
        id: ScheduleId,
        patch: SchedulePatch,
    ) -> DomainResult<Schedule> {
        // The scheduler moves a schedule on without a lock; a write that lost to it reads the
        // schedule again and applies the patch to what is there now.
        loop {
            let current = self.store.get_schedule(team.id, id).await?;
            if let Some(condition) = &patch.if_match {
                condition.check(&current)?;
            }
            let changed = self.patched(team, current.clone(), patch.clone()).await?;
            if self
                .store
                .replace_schedule(&changed, current.revision)
                .await?
            {
                return Ok(changed);
            }
            if patch.if_match.is_some() {
                return Err(DomainError::PreconditionFailed);
            }
        }
    }

    async fn patched(
        &self,
        team: &Team,
        mut schedule: Schedule,
        patch: SchedulePatch,
    ) -> DomainResult<Schedule> {
        let now = self.procflow.now();
        let mut restart = false;
        if let Some(name) = patch.name {
            schedule.name = check_name(name)?;
        }
        if patch.recurrence.is_some() || patch.timezone.is_some() {
            let timezone = match patch.timezone.as_deref() {
                Some(name) => Timezone::parse(name)?,
                None => schedule.recurrence.timezone(),
            };
            let text = patch
                .recurrence
                .unwrap_or_else(|| schedule.recurrence.as_str().to_owned());
            schedule.recurrence = Recurrence::parse(&text, timezone)?;
            restart = true;
        }
        if let Some(enabled) = patch.enabled {
            restart |= enabled && !schedule.enabled;
            schedule.enabled = enabled;
        }
        if let Some(run) = patch.run {
            self.check_run(team, schedule.template_id, &run).await?;
            schedule.run = run;
        }
        if restart {
            schedule.next_run_at = schedule.recurrence.first_from(now);
        }
        schedule.revision += 1;
        schedule.updated_at = now;
        Ok(schedule)
    }

    /// Deletes a schedule; runs it started stay.
    ///
    /// # Errors
    /// `NotFound(Schedule)`.
    pub async fn delete(&self, team: &Team, id: ScheduleId) -> DomainResult<()> {
        self.store.delete_schedule(team.id, id).await
    }

    /// Starts the runs of up to `limit` due schedules, up to the service's parallelism at
    /// once: for each, the latest due occurrence starts one run (older missed ones are
    /// counted), or records why it could not.
    ///
    /// # Errors
    /// Only when the due schedules cannot be read; a failure on one schedule leaves it for the
    /// next tick and is reported in [`Tick::errors`].
    pub async fn tick(&self, limit: usize) -> DomainResult<Tick> {
        let now = self.procflow.now();
        let due = self.store.due_schedules(now, limit).await?;
        // Each schedule is settled on its own (its own transaction, its own conditional move),
        // so they may go at once; the order within a tick does not matter.
        let settled: Vec<(ScheduleId, DomainResult<Settled>)> = stream::iter(due)
            .map(|schedule| async move { (schedule.id, self.settle(schedule, now).await) })
            .buffer_unordered(self.parallel)
            .collect()
            .await;
        let mut tick = Tick::default();
        for (schedule, outcome) in settled {
            tick.record(schedule, outcome);
        }
        Ok(tick)
    }

    async fn settle(&self, schedule: Schedule, now: OffsetDateTime) -> DomainResult<Settled> {
        let Some(seen) = schedule.next_run_at else {
            return Ok(Settled::Lost);
        };
        let catch_up = schedule.recurrence.catch_up(seen, now);
        let at = catch_up.occurrence;
        let team = self.procflow.ports.teams.get_team(schedule.team_id).await?;
        let date = schedule.recurrence.timezone().local_date(at);
        let request = CreateRun {
            template_id: schedule.template_id,
            name: schedule.run.title(date),
            due_date: schedule
                .run
                .due_in
                .as_ref()
                .map(|due_in| at + due_in.duration()),
            actor_email: schedule.run.actor_email.clone(),
            custom_elements: schedule
                .run
                .custom_elements
                .iter()
                .map(Prefill::from)
                .collect(),
        };
        let occurrence = match self.procflow.prepare_run(&team, request).await {
            Ok(new_run) => Occurrence::Started(Box::new(new_run)),
            Err(error @ DomainError::Store(_)) => return Err(error),
            Err(error) => {
                let failure = ScheduleFailure {
                    code: error.code().as_str().to_owned(),
                    message: error.to_string(),
                    at,
                };
                // Written with `last_error` in the settling transaction: the webhook, the
                // feed and the admins' email come from this one event.
                let event = Event {
                    id: EventId::from_uuid(self.procflow.ports.ids.new_id()),
                    team_id: schedule.team_id,
                    occurred_at: now,
                    payload: EventPayload::ScheduleFailed {
                        schedule_id: schedule.id,
                        schedule_name: schedule.name.clone(),
                        template_id: schedule.template_id,
                        occurrence_at: at,
                        code: failure.code.clone(),
                        message: failure.message.clone(),
                    },
                };
                Occurrence::Failed {
                    failure,
                    events: vec![event],
                }
            }
        };
        let settlement = Settlement {
            team_id: schedule.team_id,
            schedule_id: schedule.id,
            seen,
            occurrence_at: at,
            next_run_at: catch_up.next,
            missed: i64::try_from(catch_up.missed).unwrap_or(i64::MAX),
            occurrence,
        };
        if !self.store.settle_occurrence(&settlement).await? {
            return Ok(Settled::Lost);
        }
        match settlement.occurrence {
            Occurrence::Started(new_run) => {
                let run = new_run.run.id;
                let invite = match &schedule.run.invite {
                    Some(invite) => self
                        .procflow
                        .invite_guest(&team, run, invite.into())
                        .await
                        .err(),
                    None => None,
                };
                Ok(Settled::Started(run, invite))
            }
            Occurrence::Failed { failure, .. } => Ok(Settled::Failed(failure)),
        }
    }

    fn timezone(&self, team: &Team, name: Option<&str>) -> Result<Timezone, ValidationError> {
        match name {
            Some(name) => Timezone::parse(name),
            None => Ok(Timezone::parse(&team.timezone).unwrap_or(Timezone::UTC)),
        }
    }

    /// Checks what each run gets against the template as it is now: it must exist, and when
    /// it is published the pre-fill and the title must fit it (as Create a Run checks them).
    async fn check_run(
        &self,
        team: &Team,
        template: TemplateId,
        run: &ScheduledRun,
    ) -> DomainResult<()> {
        let found = self
            .procflow
            .ports
            .templates
            .get_template(team.id, template)
            .await?;
        if !found.is_published {
            return Ok(());
        }
        let request = CreateRun {
            template_id: template,
            name: run.title(self.procflow.now().date()),
            due_date: None,
            actor_email: run.actor_email.clone(),
            custom_elements: run.custom_elements.iter().map(Prefill::from).collect(),
        };
        // The request is the schedule's `run`: its refusals name the field there.
        self.procflow
            .prepare_run(team, request)
            .await
            .map(drop)
            .map_err(|error| match error {
                DomainError::Validation(ValidationError::Field { field, message }) => {
                    ValidationError::field(format!("run.{field}"), message).into()
                }
                other => other,
            })
    }
}
