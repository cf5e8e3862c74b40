//! Rolling-window counting at a resolution of one second, under several limits at once: one
//! event is admitted only when every limit it counts against has room, and is then counted in
//! all of them. The API keys' rate limit (API contract 3) and the guest page's post limits (per
//! run and per client address, API contract 7.1) are decided by this rule, by every store that
//! keeps their counts, and by the HTTP adapter's memory of what it has seen.
//!
//! An event counts in the whole second it happened in (`floor` of its Unix time) and leaves the
//! window when the second `window` seconds later begins. The state of one limit is therefore a
//! fixed number of counters (one per second of the window), whatever the limit and whatever
//! the traffic: admitting an event costs the same at 10 events a minute and at 100,000.

use time::{Duration, OffsetDateTime};

/// One limit an event counts against: a name (a run, a client address) and the events it
/// accepts in any window.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WindowLimit {
    /// What is counted, such as `guest-run:<id>`; counts are kept per name.
    pub name: String,
    /// Events accepted per window.
    pub limit: u32,
}

/// What a rate limiter answers for one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateDecision {
    /// Whether the event is accepted (and counted).
    pub allowed: bool,
    /// Events still accepted in the current window after this one.
    pub remaining: u32,
    /// Until when the window is full, or until the oldest counted event leaves it: the
    /// earliest moment another event would be accepted when `allowed` is false.
    pub reset_at: OffsetDateTime,
}

/// What deciding one event under several limits found: the decision, and which limits were
/// full (what a caller may remember to refuse later events without asking again).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowsDecision {
    /// The event's decision: admitted when every limit had room.
    pub decision: RateDecision,
    /// For each limit, in the order given: when it was full, the moment it alone stops
    /// refusing events (its counted events only leave by time, and refused ones are not
    /// counted, so every event before that moment is refused); `None` when it had room.
    pub full_until: Vec<Option<OffsetDateTime>>,
}

/// The events counted in each second of a rolling window, for one limit: the newest second
/// and one counter per second of the window, oldest first.
///
/// ```
/// use procflow_domain::window::SecondCounts;
/// use time::{Duration, macros::datetime};
///
/// let minute = Duration::minutes(1);
/// let t0 = datetime!(2026-03-01 9:00 UTC);
/// let mut counts = SecondCounts::default();
/// counts.record(t0 + Duration::milliseconds(300), minute);
/// counts.record(t0 + Duration::seconds(30), minute);
/// assert_eq!(counts.total(), 2);
/// // The event of 0.3 s counts in second 0 and leaves the window when second 60 begins.
/// counts.roll(t0 + Duration::seconds(60), minute);
/// assert_eq!(counts.total(), 1);
/// assert_eq!(counts.counts.len(), 60, "one counter per second, whatever the traffic");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SecondCounts {
    /// The newest second counted, in Unix seconds: the last counter's.
    pub newest: i64,
    /// One counter per second of the window, oldest first: `counts[i]` holds the events of
    /// second `newest - counts.len() + 1 + i`. Empty before anything was counted.
    pub counts: Vec<u32>,
}

/// The whole second `at` falls in, in Unix seconds.
#[must_use]
pub fn second_of(at: OffsetDateTime) -> i64 {
    at.unix_timestamp()
}

/// The counters of a window: its whole seconds, at least 1 and at most a day.
#[must_use]
pub fn seconds_of(window: Duration) -> usize {
    usize::try_from(window.whole_seconds().clamp(1, 86_400)).unwrap_or(1)
}

/// The sum of `counts`, `u32::MAX` when it is larger: summed as `u64` (which a window's at
/// most 86,400 counters cannot overflow) so that the loop has no saturating step in it.
fn sum(counts: &[u32]) -> u32 {
    let total: u64 = counts.iter().copied().map(u64::from).sum();
    u32::try_from(total).unwrap_or(u32::MAX)
}

/// The moment second `second` begins; `None` out of the representable range.
fn start_of(second: i64) -> Option<OffsetDateTime> {
    OffsetDateTime::from_unix_timestamp(second).ok()
}

impl SecondCounts {
    /// Moves the window to `now` (to the newest second counted, when `now` is older: callers'
    /// clocks need not agree): counters of seconds that left it are dropped, those of new
    /// seconds start at 0, and there are as many counters as the window has seconds.
    pub fn roll(&mut self, now: OffsetDateTime, window: Duration) {
        let n = seconds_of(window);
        let newest = self.newest.max(second_of(now));
        if self.counts.len() == n {
            // The same window moved forward `shift` seconds: in place, without the new vector
            // of the general case (an admission rolls its key's window three times).
            let shift = usize::try_from(newest.saturating_sub(self.newest))
                .unwrap_or(usize::MAX)
                .min(n);
            self.counts.rotate_left(shift);
            self.counts[n - shift..].fill(0);
            self.newest = newest;
            return;
        }
        self.rebuild(newest, n);
    }

    /// Rolls to `newest` with `n` counters, whatever the counters were before.
    fn rebuild(&mut self, newest: i64, n: usize) {
        let old_len = i64::try_from(self.counts.len()).unwrap_or(i64::MAX);
        let first = newest.saturating_sub(i64::try_from(n).unwrap_or(i64::MAX) - 1);
        let rolled = (0..n)
            .map(|i| {
                let second = first.saturating_add(i64::try_from(i).unwrap_or(i64::MAX));
                // The old index of `second`: old counters cover newest_old - old_len + 1 ..= newest_old.
                let index = second - self.newest + old_len - 1;
                usize::try_from(index)
                    .ok()
                    .and_then(|index| self.counts.get(index))
                    .copied()
                    .unwrap_or(0)
            })
            .collect();
        self.counts = rolled;
        self.newest = newest;
    }

    /// The events counted in the window (as of the last [`roll`](Self::roll)).
    #[must_use]
    pub fn total(&self) -> u32 {
        sum(&self.counts)
    }

    /// The events counted in the seconds from `second` on.
    #[must_use]
    pub fn total_since(&self, second: i64) -> u32 {
        // The counters from `second` on are a tail of the vector: its first index is found
        // once, not tested counter by counter (every admission asks this of its key).
        let skip = usize::try_from(second.saturating_sub(self.first_second()))
            .unwrap_or(0)
            .min(self.counts.len());
        sum(&self.counts[skip..])
    }

    /// Counts one event at `now`, in its second (in the oldest second of the window when
    /// `now` is older than that: a caller whose clock lags is still counted).
    pub fn record(&mut self, now: OffsetDateTime, window: Duration) {
        self.roll(now, window);
        let index = usize::try_from(second_of(now) - self.first_second()).unwrap_or(0);
        if let Some(count) = self.counts.get_mut(index) {
            *count = count.saturating_add(1);
        }
    }

    /// The moment enough of the oldest counted events have left the window that `need` of
    /// them are gone; `None` when fewer than `need` are counted.
    #[must_use]
    pub fn frees_at(&self, need: u32, window: Duration) -> Option<OffsetDateTime> {
        let n = i64::try_from(seconds_of(window)).unwrap_or(i64::MAX);
        let mut gone = 0_u32;
        for (i, count) in self.counts.iter().enumerate() {
            gone = gone.saturating_add(*count);
            if gone >= need && *count > 0 {
                let second = self.first_second() + i64::try_from(i).unwrap_or(i64::MAX);
                return start_of(second.saturating_add(n));
            }
        }
        None
    }

    fn first_second(&self) -> i64 {
        let len = i64::try_from(self.counts.len()).unwrap_or(i64::MAX);
        self.newest.saturating_sub(len - 1)
    }
}

/// Decides one event at `now` against `counts` (one per limit of `limits`, in the same order)
/// and counts it in every one of them when each has room.
///
/// The window rolls to `now` first. The decision's `remaining` is the smallest room left;
/// `reset_at` is, when refused, the first moment at which every limit has room again, and
/// when admitted the moment the oldest counted event of the fullest limit leaves the window.
///
/// ```
/// use procflow_domain::window::{SecondCounts, WindowLimit, admit};
/// use time::{Duration, macros::datetime};
///
/// let now = datetime!(2026-03-01 9:00 UTC);
/// let limits = [
///     WindowLimit { name: "run".into(), limit: 2 },
///     WindowLimit { name: "address".into(), limit: 5 },
/// ];
/// let (mut run, mut address) = (SecondCounts::default(), SecondCounts::default());
/// for _ in 0..2 {
///     let admitted = admit(&mut [&mut run, &mut address], &limits, now, Duration::minutes(1));
///     assert!(admitted.decision.allowed);
/// }
/// let refused = admit(&mut [&mut run, &mut address], &limits, now, Duration::minutes(1));
/// assert!(!refused.decision.allowed);
/// assert_eq!(refused.decision.reset_at, now + Duration::minutes(1));
/// assert_eq!(refused.full_until, [Some(now + Duration::minutes(1)), None]);
/// assert_eq!(address.total(), 2, "a refused event is counted nowhere");
/// ```
pub fn admit(
    counts: &mut [&mut SecondCounts],
    limits: &[WindowLimit],
    now: OffsetDateTime,
    window: Duration,
) -> WindowsDecision {
    for count in counts.iter_mut() {
        count.roll(now, window);
    }
    let allowed = counts
        .iter()
        .zip(limits)
        .all(|(count, limit)| count.total() < limit.limit);
    if allowed {
        for count in counts.iter_mut() {
            count.record(now, window);
        }
    }
    let after: Vec<&SecondCounts> = counts.iter().map(|count| &**count).collect();
    decide(&after, allowed, limits, now, window)
}

/// The decision of an event at `now`, from the counts of its limits after it was decided
/// (rolled to `now`, and counting it when `allowed`): what a store that decides in SQL
/// answers from the rows it wrote.
#[must_use]
pub fn decide(
    after: &[&SecondCounts],
    allowed: bool,
    limits: &[WindowLimit],
    now: OffsetDateTime,
    window: Duration,
) -> WindowsDecision {
    let whole_window = now + window;
    let full_until: Vec<Option<OffsetDateTime>> = after
        .iter()
        .zip(limits)
        .map(|(count, limit)| {
            let total = count.total();
            (!allowed && total >= limit.limit).then(|| {
                // The oldest counted events must leave until one fewer than the limit is
                // counted (none fits at 0).
                count
                    .frees_at(total - limit.limit + 1, window)
                    .unwrap_or(whole_window)
            })
        })
        .collect();
    let mut remaining = u32::MAX;
    let mut reset_of_fullest = None;
    for (count, limit) in after.iter().zip(limits) {
        let room = limit.limit.saturating_sub(count.total());
        if room <= remaining {
            remaining = room;
            reset_of_fullest = count.frees_at(1, window);
        }
    }
    let decision = if allowed {
        RateDecision {
            allowed,
            remaining: if limits.is_empty() { 0 } else { remaining },
            reset_at: reset_of_fullest.unwrap_or(whole_window),
        }
    } else {
        RateDecision {
            allowed,
            remaining: 0,
            reset_at: full_until
                .iter()
                .flatten()
                .max()
                .copied()
                .unwrap_or(whole_window),
        }
    };
    WindowsDecision {
        decision,
        full_until,
    }
}

#[cfg(test)]
mod tests;
