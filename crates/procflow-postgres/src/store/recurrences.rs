//! Schedules' recurrences kept by the process as they were read: a row's text is checked once
//! per process rather than at every read. Checking one (parsing its `RRULE`, building its rule
//! set, finding its first occurrence) was 43 % of the instructions of a page of 20 schedules
//! (`docs/performance.md`, "A thread's comments and the schedules written field by field").
//! A recurrence is the same whenever its text and timezone are (`Recurrence::parse` depends on
//! nothing else), so a kept one never goes stale. Bounded; a miss checks the text again.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use procflow_domain::error::ValidationError;
use procflow_domain::schedule::{Recurrence, Timezone};

/// How many texts a process keeps: the schedules' distinct rules, with room to spare (a few
/// hundred bytes each).
const CAPACITY: usize = 4_096;

/// Recurrences by text, one per timezone the text was read in.
#[derive(Default)]
pub(crate) struct Recurrences(Mutex<HashMap<String, Vec<Recurrence>>>);

impl Recurrences {
    /// `Recurrence::parse(text, timezone)`, kept.
    pub(crate) fn read(
        &self,
        text: &str,
        timezone: Timezone,
    ) -> Result<Recurrence, ValidationError> {
        if let Some(kept) = self
            .kept()
            .get(text)
            .and_then(|by_zone| by_zone.iter().find(|r| r.timezone() == timezone))
        {
            return Ok(kept.clone());
        }
        // Checked outside the lock; two readers of a new text may both check it.
        let checked = Recurrence::parse(text, timezone)?;
        let mut kept = self.kept();
        if kept.len() >= CAPACITY
            && !kept.contains_key(text)
            && let Some(any) = kept.keys().next().cloned()
        {
            // Any one goes: a miss costs one check.
            kept.remove(&any);
        }
        let by_zone = kept.entry(text.to_owned()).or_default();
        if !by_zone.iter().any(|r| r.timezone() == timezone) {
            by_zone.push(checked.clone());
        }
        Ok(checked)
    }

    fn kept(&self) -> MutexGuard<'_, HashMap<String, Vec<Recurrence>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    #[cfg(test)]
    fn texts(&self) -> usize {
        self.kept().len()
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    const DAILY: &str = "DTSTART:20261201T090000\nRRULE:FREQ=DAILY";

    #[test]
    fn a_kept_recurrence_is_the_one_its_text_and_timezone_parse_to() {
        let kept = Recurrences::default();
        let paris = Timezone::parse("Europe/Paris").unwrap();
        for _ in 0..2 {
            for zone in [Timezone::UTC, paris] {
                let read = kept.read(DAILY, zone).unwrap();
                assert_eq!(read, Recurrence::parse(DAILY, zone).unwrap());
                assert_eq!(read.timezone(), zone);
                let first = datetime!(2026-11-30 00:00 UTC);
                assert_eq!(
                    read.next_after(first),
                    Recurrence::parse(DAILY, zone).unwrap().next_after(first)
                );
            }
        }
        assert_eq!(kept.texts(), 1);
        assert_eq!(kept.kept()[DAILY].len(), 2, "one per timezone");
    }

    #[test]
    fn a_text_that_is_no_recurrence_is_refused_every_time_and_not_kept() {
        let kept = Recurrences::default();
        for _ in 0..2 {
            let error = kept.read("RRULE:FREQ=DAILY", Timezone::UTC).unwrap_err();
            assert_eq!(
                error,
                Recurrence::parse("RRULE:FREQ=DAILY", Timezone::UTC).unwrap_err()
            );
        }
        assert_eq!(kept.texts(), 0);
    }

    #[test]
    fn the_texts_kept_stay_within_the_capacity() {
        let kept = Recurrences::default();
        for n in 0..=CAPACITY {
            let text = format!(
                "DTSTART:20261201T{:02}{:02}00\nRRULE:FREQ=DAILY;COUNT={}",
                n % 24,
                n / 24 % 60,
                n / 1440 + 1
            );
            kept.read(&text, Timezone::UTC).unwrap();
        }
        assert_eq!(kept.texts(), CAPACITY);
    }
}
