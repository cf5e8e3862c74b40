//! The retry schedule (`PROCFLOW_WEBHOOK_RETRY_SCHEDULE`): the waits after attempt 1, 2, ...,
//! each with ±20 % jitter, `Retry-After` honoured up to twice the step.

use std::fmt;
use std::str::FromStr;

use time::Duration;

use crate::duration::{self, DurationRule};

/// The waits between attempts; one more attempt than waits. Shared by every outbound channel.
///
/// ```
/// use procflow_domain::webhook::RetrySchedule;
/// use time::Duration;
///
/// let schedule = RetrySchedule::default();
/// assert_eq!(schedule.to_string(), "5s,5m,30m,2h,5h,10h,10h");
/// assert_eq!(schedule.max_attempts(), 8);
/// // Attempt 1 failed: the next is 5 s later, give or take 20 %.
/// let wait = schedule.wait_after(1, 0.5, None).unwrap();
/// assert_eq!(wait, Duration::seconds(5));
/// assert_eq!(schedule.wait_after(8, 0.5, None), None, "no attempt after the last");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetrySchedule(Vec<Duration>);

/// A schedule that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid retry schedule {text:?}: {reason}")]
pub struct ScheduleError {
    text: String,
    reason: String,
}

impl RetrySchedule {
    /// The schedule unless configured (API contract 8.3): 8 attempts over about a day.
    pub const DEFAULT: &'static str = "5s,5m,30m,2h,5h,10h,10h";
    /// The most waits a schedule may have.
    pub const MAX_STEPS: usize = 30;
    /// The longest wait.
    pub const MAX_STEP: Duration = Duration::days(7);
    /// How one wait is written: the grammar of every duration setting, a unit required (a
    /// bare number here has always been refused), more than 0 and at most [`Self::MAX_STEP`].
    pub const STEP: DurationRule = DurationRule::new(
        std::time::Duration::from_millis(1),
        std::time::Duration::from_secs(7 * 86_400),
    );
    /// How far a wait moves either way, as a fraction.
    pub const JITTER: f64 = 0.2;

    /// Attempts at most: one more than the waits.
    #[must_use]
    pub fn max_attempts(&self) -> u32 {
        u32::try_from(self.0.len()).unwrap_or(u32::MAX - 1) + 1
    }

    /// How long to wait after attempt `attempt` (1-based) failed, `None` when it was the last.
    /// `unit` (in `[0, 1)`, from the caller's random source) places the wait within ±20 % of
    /// the step; a `retry_after` asked for by the receiver (429 or 503) replaces it, up to
    /// twice the step.
    #[must_use]
    pub fn wait_after(
        &self,
        attempt: u32,
        unit: f64,
        retry_after: Option<Duration>,
    ) -> Option<Duration> {
        let index = usize::try_from(attempt.checked_sub(1)?).ok()?;
        let step = *self.0.get(index)?;
        if let Some(asked) = retry_after {
            return Some(asked.clamp(Duration::ZERO, step * 2));
        }
        let unit = if unit.is_finite() {
            unit.clamp(0.0, 1.0)
        } else {
            0.5
        };
        let factor = 1.0 - Self::JITTER + 2.0 * Self::JITTER * unit;
        Some(step * factor)
    }
}

impl Default for RetrySchedule {
    fn default() -> Self {
        Self::DEFAULT
            .parse()
            .unwrap_or_else(|_| Self(vec![Duration::seconds(5)]))
    }
}

impl FromStr for RetrySchedule {
    type Err = ScheduleError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let refuse = |reason: String| ScheduleError {
            text: text.to_owned(),
            reason,
        };
        let steps = text
            .split(',')
            .map(|step| parse_step(step.trim()).map_err(&refuse))
            .collect::<Result<Vec<_>, _>>()?;
        if steps.len() > Self::MAX_STEPS {
            return Err(refuse(format!("at most {} waits", Self::MAX_STEPS)));
        }
        Ok(Self(steps))
    }
}

fn parse_step(step: &str) -> Result<Duration, String> {
    let step = RetrySchedule::STEP
        .parse(step)
        .map_err(|error| error.to_string())?;
    // Within 7 days, so it always fits time's range.
    Duration::try_from(step).map_err(|error| error.to_string())
}

impl fmt::Display for RetrySchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let steps: Vec<String> = self
            .0
            .iter()
            .map(|step| duration::format(step.unsigned_abs()))
            .collect();
        f.write_str(&steps.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_parse_and_refuse_with_reasons() {
        let schedule: RetrySchedule = "1s, 2m,3h,1d".parse().unwrap();
        assert_eq!(schedule.to_string(), "1s,2m,3h,1d");
        assert_eq!(schedule.max_attempts(), 5);
        for bad in ["", "5", "s", "5x", "0s", "-1s", "8d", "5s,,5s", "1.5s"] {
            assert!(bad.parse::<RetrySchedule>().is_err(), "{bad:?} accepted");
        }
        let too_many = vec!["1s"; RetrySchedule::MAX_STEPS + 1].join(",");
        assert!(too_many.parse::<RetrySchedule>().is_err());
    }

    #[test]
    fn waits_take_the_units_of_every_duration_setting() {
        let schedule: RetrySchedule = "500ms,1500ms,90s,7d".parse().unwrap();
        assert_eq!(schedule.to_string(), "500ms,1500ms,90s,7d");
        assert_eq!(
            schedule.wait_after(2, 0.5, None),
            Some(Duration::milliseconds(1_500))
        );
        assert_eq!(
            schedule.wait_after(4, 0.5, None),
            Some(RetrySchedule::MAX_STEP)
        );
        let error = "5s,5x".parse::<RetrySchedule>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid retry schedule \"5s,5x\": \"5x\" has an unknown unit \"x\": \
             write 500ms, 30s, 5m, 2h or 1d, from 1ms to 7d"
        );
    }

    #[test]
    fn jitter_stays_within_twenty_percent() {
        let schedule = RetrySchedule::default();
        let step = Duration::minutes(5);
        assert_eq!(schedule.wait_after(2, 0.0, None), Some(step * 0.8));
        assert_eq!(schedule.wait_after(2, 1.0, None), Some(step * 1.2));
        for i in 0..100 {
            let wait = schedule.wait_after(2, f64::from(i) / 100.0, None).unwrap();
            assert!(wait >= step * 0.8 && wait <= step * 1.2, "{wait}");
        }
        assert_eq!(schedule.wait_after(2, f64::NAN, None), Some(step));
        assert_eq!(schedule.wait_after(0, 0.5, None), None);
    }

    #[test]
    fn retry_after_is_honoured_up_to_twice_the_step() {
        let schedule = RetrySchedule::default();
        let asked = |s| Some(Duration::seconds(s));
        assert_eq!(schedule.wait_after(1, 0.5, asked(7)), asked(7));
        assert_eq!(schedule.wait_after(1, 0.5, asked(60)), asked(10));
        assert_eq!(schedule.wait_after(1, 0.5, asked(-3)), asked(0));
        assert_eq!(schedule.wait_after(8, 0.5, asked(1)), None);
    }
}
