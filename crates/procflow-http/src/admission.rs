//! The in-process gate in front of every shared limiter (API keys, guest posts per run and per
//! address): what this instance knows for certain, so that a client that is only being refused
//! is refused from memory, without a database connection or a row lock (API contract 3).
//!
//! The limit itself is decided by the store, exactly, across instances. The gate never
//! decides in its place; it only refuses what the store would certainly refuse, from two facts:
//!
//! - **A refusal the store gave, until its end.** The store refuses until enough counted
//!   requests leave the window; refused requests are not counted and counted ones only leave
//!   by time, so every request before that moment would be refused too, by any instance.
//! - **What this instance alone had admitted.** The store counts every request it admits, so
//!   when this instance's own admitted requests in the window (counted to the second, as the
//!   store counts them) reach the limit, the store holds at least as many. The oldest second
//!   of the window is left out of this count, so that instances whose clocks differ by less
//!   than a second never see it refuse what the store would admit.
//!
//! Nothing else is refused here, and every request not refused here is decided by the store,
//! which counts it: the store's count never misses a request it must count.
//!
//! While a request of a name is being decided by the store, at most [`IN_FLIGHT`] of that name
//! are, from this instance: the others wait here (holding nothing), then look again at what the
//! store answered meanwhile. A flood of one name thus puts a few requests on its row lock, not
//! hundreds on the pool; past [`IN_FLIGHT_WAIT`] a waiting request goes to the store anyway,
//! so a slow store slows it no more than it would have without the gate.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};

use procflow_domain::window::{self, SecondCounts};
use time::{Duration, OffsetDateTime};
use tokio::sync::{Semaphore, SemaphorePermit};

/// Requests of one name this instance lets the store decide at once.
pub const IN_FLIGHT: usize = 4;

/// The longest a request waits for its turn before it goes to the store regardless.
pub const IN_FLIGHT_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// The memory is swept of names with nothing worth remembering when it reaches this size (or
/// twice its size after the last sweep, whichever is larger).
const MIN_SWEEP_LEN: usize = 1024;

/// What this instance knows about the names of one limiter.
pub struct LocalGate<K> {
    names: Mutex<Names<K>>,
}

struct Names<K> {
    slots: HashMap<K, Arc<Slot>>,
    sweep_at_len: usize,
}

/// What this instance knows about one name, and its turns at the store.
pub struct Slot {
    known: Mutex<Known>,
    turns: Semaphore,
}

#[derive(Default)]
struct Known {
    /// The end of the store's latest refusal.
    refused_until: Option<OffsetDateTime>,
    /// The requests the store admitted from this instance, per second of the window.
    admitted: SecondCounts,
}

impl<K: Eq + Hash + Clone> std::fmt::Debug for LocalGate<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalGate")
            .field("names", &self.len())
            .finish_non_exhaustive()
    }
}

impl<K: Eq + Hash + Clone> Default for LocalGate<K> {
    fn default() -> Self {
        Self {
            names: Mutex::new(Names {
                slots: HashMap::new(),
                sweep_at_len: MIN_SWEEP_LEN,
            }),
        }
    }
}

impl<K: Eq + Hash + Clone> LocalGate<K> {
    /// The slot of `name`, made when it has none; names with nothing worth remembering at
    /// `now` are swept as the memory grows.
    pub fn slot(&self, name: &K, now: OffsetDateTime, window: Duration) -> Arc<Slot> {
        let mut names = self.names.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(slot) = names.slots.get(name) {
            return Arc::clone(slot);
        }
        if names.slots.len() >= names.sweep_at_len {
            names
                .slots
                .retain(|_, slot| Arc::strong_count(slot) > 1 || slot.remembers(now, window));
            names.sweep_at_len = MIN_SWEEP_LEN.max(2 * names.slots.len());
        }
        let slot = Arc::new(Slot {
            known: Mutex::new(Known::default()),
            turns: Semaphore::new(IN_FLIGHT),
        });
        names.slots.insert(name.clone(), Arc::clone(&slot));
        slot
    }

    /// The slot of `name` if it has one.
    pub fn existing(&self, name: &K) -> Option<Arc<Slot>> {
        let names = self.names.lock().unwrap_or_else(PoisonError::into_inner);
        names.slots.get(name).cloned()
    }

    /// Forgets what is known about `name`.
    pub fn forget(&self, name: &K) {
        if let Some(slot) = self.existing(name) {
            slot.forget();
        }
    }

    /// Forgets what is known about every name.
    pub fn forget_all(&self) {
        let names = self.names.lock().unwrap_or_else(PoisonError::into_inner);
        for slot in names.slots.values() {
            slot.forget();
        }
    }

    /// Names in memory.
    pub fn len(&self) -> usize {
        self.names
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .slots
            .len()
    }

    /// Whether no name is in memory.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Slot {
    /// Until when the store would certainly refuse a request of this name at `now` under
    /// `limit`; `None` when only the store can tell.
    pub fn certain_refusal(
        &self,
        now: OffsetDateTime,
        limit: u32,
        window: Duration,
    ) -> Option<OffsetDateTime> {
        let mut known = self.known();
        if let Some(until) = known.refused_until.filter(|until| *until > now) {
            return Some(until);
        }
        known.admitted.roll(now, window);
        let seconds = i64::try_from(window::seconds_of(window)).unwrap_or(60);
        // The oldest second of the window is left out (clocks of instances may differ).
        let sure = known
            .admitted
            .total_since(window::second_of(now) - seconds + 2);
        // Nothing admitted: nothing known (the name may not even exist, as an unknown key).
        if sure == 0 || sure < limit {
            return None;
        }
        let total = known.admitted.total();
        let until = known
            .admitted
            .frees_at(total - limit + 1, window)
            .unwrap_or(now + window);
        Some(until.max(now))
    }

    /// Waits for this name's turn at the store, at most [`IN_FLIGHT_WAIT`]; `None` when the
    /// wait ran out (the request goes to the store regardless).
    pub async fn turn(&self) -> Option<SemaphorePermit<'_>> {
        tokio::time::timeout(IN_FLIGHT_WAIT, self.turns.acquire())
            .await
            .ok()
            .and_then(Result::ok)
    }

    /// Whether a request of this name would have its turn at the store now, without waiting
    /// behind others of the name.
    pub fn turn_free(&self) -> bool {
        self.turns.available_permits() > 0
    }

    /// The store admitted (and counted) a request of this name decided at `now`.
    pub fn admitted(&self, now: OffsetDateTime, window: Duration) {
        self.known().admitted.record(now, window);
    }

    /// The store refused a request of this name until `until`.
    pub fn refused(&self, until: OffsetDateTime) {
        let mut known = self.known();
        known.refused_until = Some(known.refused_until.map_or(until, |t| t.max(until)));
    }

    fn forget(&self) {
        *self.known() = Known::default();
    }

    /// Whether anything known still matters at `now`.
    fn remembers(&self, now: OffsetDateTime, window: Duration) -> bool {
        let mut known = self.known();
        if known.refused_until.is_some_and(|until| until > now) {
            return true;
        }
        known.admitted.roll(now, window);
        known.admitted.total() > 0
    }

    fn known(&self) -> std::sync::MutexGuard<'_, Known> {
        self.known.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests;
