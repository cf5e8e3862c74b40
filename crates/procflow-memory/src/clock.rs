//! A clock that moves only when told to.

use std::sync::{Mutex, PoisonError};

use time::{Duration, OffsetDateTime};

use procflow_domain::ports::Clock;

/// A [`Clock`] standing still at a set moment (2026-01-01T00:00:00Z by default).
///
/// ```
/// use procflow_memory::FixedClock;
/// use procflow_domain::ports::Clock;
///
/// let clock = FixedClock::default();
/// let before = clock.now();
/// clock.advance(time::Duration::minutes(5));
/// assert_eq!(clock.now() - before, time::Duration::minutes(5));
/// ```
#[derive(Debug)]
pub struct FixedClock(Mutex<OffsetDateTime>);

impl FixedClock {
    /// A clock at `now`.
    #[must_use]
    pub fn at(now: OffsetDateTime) -> Self {
        Self(Mutex::new(now))
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        let mut now = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        *now += by;
    }
}

impl Default for FixedClock {
    fn default() -> Self {
        Self::at(time::macros::datetime!(2026-01-01 0:00 UTC))
    }
}

impl Clock for FixedClock {
    fn now(&self) -> OffsetDateTime {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
