//! The plans of runs' logic, kept by the process: a plan is frozen when its run starts, so a
//! copy never goes stale, and a change of a run with logic reads it from here rather than from
//! the row (about 10 kB of JSON for 50 tasks, 20 rules and 20 dependencies, that PostgreSQL
//! would decompress and print, and the server parse, on every change). Bounded; a miss reads the
//! row's plan once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use procflow_domain::error::{DomainResult, Resource};
use procflow_domain::ids::{RunId, TeamId};
use procflow_domain::run::LogicPlan;
use uuid::Uuid;

use super::not_found;
use crate::error::{corrupt, db_error};
use crate::rows::json::Json;
use crate::schema::runs;

/// How many plans a process keeps: the runs being changed at one time, with room to spare
/// (a plan of 50 tasks is tens of kilobytes in memory).
const CAPACITY: usize = 1_024;

/// Plans by (team, run).
#[derive(Default)]
pub(crate) struct Plans(Mutex<HashMap<(Uuid, Uuid), Arc<LogicPlan>>>);

impl Plans {
    /// Keeps the plan of a run (a new run's, say, so that its first change finds it).
    pub(crate) fn keep(&self, team: TeamId, run: RunId, plan: Arc<LogicPlan>) {
        let mut plans = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if plans.len() >= CAPACITY {
            // Any one goes: a miss costs one read of its row.
            if let Some(key) = plans.keys().next().copied() {
                plans.remove(&key);
            }
        }
        plans.insert((team.as_uuid(), run.as_uuid()), plan);
    }

    /// The plan of a run that has logic: kept, else read from its row (and kept).
    pub(crate) async fn of(
        &self,
        mut conn: &AsyncPgConnection,
        team: TeamId,
        run: RunId,
    ) -> DomainResult<Arc<LogicPlan>> {
        let key = (team.as_uuid(), run.as_uuid());
        if let Some(plan) = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            return Ok(plan.clone());
        }
        let stored: Option<Json<LogicPlan>> = runs::table
            .filter(runs::team_id.eq(key.0))
            .filter(runs::id.eq(key.1))
            .select(runs::logic)
            .first(&mut conn)
            .await
            .optional()
            .map_err(db_error)?
            .ok_or(not_found(Resource::Run))?;
        let plan = Arc::new(
            stored
                .ok_or_else(|| corrupt("run logic", "a state without its plan"))?
                .0,
        );
        self.keep(team, run, plan.clone());
        Ok(plan)
    }
}
