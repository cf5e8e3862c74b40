//! The sweep of `Idempotency-Key` records past their lifetime: started by keyed requests
//! themselves, at most once per [`SWEEP_EVERY`] on each instance, on a task of its own, so it
//! needs no scheduler and costs nothing on an instance that sees no keyed request.

use std::sync::{Arc, Mutex, PoisonError};

use procflow_domain::ports::{IdempotencyStore, KeyLifetimes};
use time::{Duration, OffsetDateTime};

/// The least time between two sweeps of one instance.
pub const SWEEP_EVERY: Duration = Duration::minutes(10);

/// When this instance sweeps next.
#[derive(Debug)]
pub struct KeySweep {
    next: Mutex<Option<OffsetDateTime>>,
}

impl Default for KeySweep {
    fn default() -> Self {
        Self::new()
    }
}

impl KeySweep {
    /// A sweep due at the first keyed request.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            next: Mutex::new(None),
        }
    }

    /// Whether a sweep is due at `now`; if so, the next one is due [`SWEEP_EVERY`] later.
    fn take_due(&self, now: OffsetDateTime) -> bool {
        let mut next = self.next.lock().unwrap_or_else(PoisonError::into_inner);
        if next.is_some_and(|next| now < next) {
            return false;
        }
        *next = Some(now + SWEEP_EVERY);
        true
    }

    /// Sweeps on a task of its own when a sweep is due at `now`.
    pub fn start_if_due(
        &self,
        store: &Arc<dyn IdempotencyStore>,
        now: OffsetDateTime,
        lifetimes: KeyLifetimes,
    ) {
        if !self.take_due(now) {
            return;
        }
        let store = store.clone();
        actix_web::rt::spawn(async move {
            match store.sweep_keys(now, lifetimes).await {
                Ok(0) => {}
                Ok(swept) => tracing::info!(swept, "swept idempotency keys past their lifetime"),
                Err(error) => tracing::warn!(%error, "cannot sweep idempotency keys"),
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    #[test]
    fn a_sweep_is_due_at_first_then_once_per_period() {
        let sweep = KeySweep::new();
        let t0 = datetime!(2026-03-01 9:00 UTC);
        assert!(sweep.take_due(t0));
        assert!(!sweep.take_due(t0 + Duration::minutes(9)));
        assert!(sweep.take_due(t0 + SWEEP_EVERY));
        assert!(!sweep.take_due(t0 + SWEEP_EVERY + Duration::seconds(1)));
    }
}
