//! What an attempt's outcome makes of any job: done, tried again after the schedule's wait,
//! or failed, with the error.

use time::{Duration, OffsetDateTime};

use crate::webhook::RetrySchedule;

/// What an attempt met, as far as the schedule cares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It worked; final.
    Done,
    /// A failure worth another try, unless that was the last attempt.
    Retry {
        /// Why it failed.
        error: String,
        /// The wait the receiver asked for (honoured up to twice the step).
        retry_after: Option<Duration>,
    },
    /// A failure no retry mends; final.
    Fail(String),
}

/// Where a job stands after an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Done; final.
    Done,
    /// Pending again, due at this time.
    RetryAt(OffsetDateTime),
    /// Failed; final.
    Failed,
}

/// What an attempt makes of a job: its fate, why it failed, when it was attempted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settled {
    /// Done, retried or failed.
    pub fate: Fate,
    /// Why the attempt failed.
    pub error: Option<String>,
    /// When the attempt started.
    pub attempted_at: OffsetDateTime,
}

impl Settled {
    /// What `verdict` on attempt `attempt` (from 1), started `at`, makes of a job: a retry
    /// waits `schedule`'s step (placed by `unit`, in `[0, 1)`), or fails after the last.
    ///
    /// ```
    /// # use procflow_domain::queue::{Fate, Settled, Verdict};
    /// # use procflow_domain::webhook::RetrySchedule;
    /// let at = time::macros::datetime!(2026-01-01 0:00 UTC);
    /// let schedule: RetrySchedule = "5s".parse().unwrap();
    /// let busy = || Verdict::Retry { error: "busy".into(), retry_after: None };
    /// let first = Settled::of(1, at, busy(), &schedule, 0.5);
    /// assert_eq!(first.fate, Fate::RetryAt(at + time::Duration::seconds(5)));
    /// assert_eq!(Settled::of(2, at, busy(), &schedule, 0.5).fate, Fate::Failed);
    /// assert_eq!(Settled::of(1, at, Verdict::Done, &schedule, 0.5).error, None);
    /// ```
    #[must_use]
    pub fn of(
        attempt: u32,
        at: OffsetDateTime,
        verdict: Verdict,
        schedule: &RetrySchedule,
        unit: f64,
    ) -> Self {
        let (fate, error) = match verdict {
            Verdict::Done => (Fate::Done, None),
            Verdict::Fail(error) => (Fate::Failed, Some(error)),
            Verdict::Retry { error, retry_after } => {
                match schedule.wait_after(attempt, unit, retry_after) {
                    Some(wait) => (Fate::RetryAt(at + wait), Some(error)),
                    None => (Fate::Failed, Some(error)),
                }
            }
        };
        Self {
            fate,
            error,
            attempted_at: at,
        }
    }

    /// When the job is due again: only a retry is.
    #[must_use]
    pub fn next_attempt_at(&self) -> Option<OffsetDateTime> {
        match self.fate {
            Fate::RetryAt(at) => Some(at),
            Fate::Done | Fate::Failed => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    const AT: OffsetDateTime = datetime!(2026-01-01 0:00 UTC);

    #[test]
    fn a_permanent_failure_fails_at_once_whatever_the_schedule() {
        let schedule = RetrySchedule::default();
        let settled = Settled::of(1, AT, Verdict::Fail("550".into()), &schedule, 0.5);
        assert_eq!(settled.fate, Fate::Failed);
        assert_eq!(settled.error.as_deref(), Some("550"));
        assert_eq!(settled.next_attempt_at(), None);
    }

    #[test]
    fn a_retry_honours_the_receivers_wait_up_to_twice_the_step() {
        let schedule: RetrySchedule = "5s,5m".parse().unwrap();
        let asked = Verdict::Retry {
            error: "429".into(),
            retry_after: Some(Duration::minutes(1)),
        };
        let settled = Settled::of(1, AT, asked, &schedule, 0.5);
        assert_eq!(settled.next_attempt_at(), Some(AT + Duration::seconds(10)));
        assert_eq!(settled.attempted_at, AT);
    }
}
