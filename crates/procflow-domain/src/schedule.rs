//! Runs that start themselves (API contract 13.1): a schedule's recurrence, evaluated in an
//! IANA timezone so that 09:00 stays 09:00 across daylight-saving changes.

mod entity;
mod recurrence;
#[cfg(test)]
mod tests;

pub use entity::{
    MAX_NAME_CHARS, PrefillValue, Schedule, ScheduleFailure, ScheduledInvite, ScheduledRun,
    check_name,
};
pub use recurrence::{CatchUp, MIN_GAP_MINUTES, Recurrence, Timezone};
