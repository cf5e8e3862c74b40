//! Rolling-window counting under several limits at once: one event is admitted only when every
//! limit it counts against has room, and is then counted in all of them. The guest page's post
//! limits (per run and per client address, API contract 7.1) are decided by this rule, by
//! every store that keeps their logs.

use time::{Duration, OffsetDateTime};

use crate::ports::RateDecision;

/// One limit an event counts against: a name (a run, a client address) and the events it
/// accepts in any window.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WindowLimit {
    /// What is counted, such as `guest-run:<id>`; logs are kept per name.
    pub name: String,
    /// Events accepted per window.
    pub limit: u32,
}

/// Decides one event at `now` against `logs` (the accepted events of each limit, oldest first,
/// one log per limit of `limits`, in the same order) and records it in every log when each has
/// room.
///
/// Only the events still in the window count (`> now - window`), and of those only the newest
/// `limit`: a log never holds more, so it stays bounded, and a lowered limit applies at once.
/// Logs are pruned so whether or not the event is admitted.
///
/// The decision's `remaining` is the smallest room left; `reset_at` is, when refused, the
/// first moment at which every limit has room again, and when admitted the moment the oldest
/// counted event of the fullest log leaves the window.
///
/// ```
/// use procflow_domain::window::{WindowLimit, admit};
/// use time::{Duration, macros::datetime};
///
/// let now = datetime!(2026-03-01 9:00 UTC);
/// let limits = [
///     WindowLimit { name: "run".into(), limit: 2 },
///     WindowLimit { name: "address".into(), limit: 5 },
/// ];
/// let (mut run, mut address) = (Vec::new(), Vec::new());
/// for _ in 0..2 {
///     assert!(admit(&mut [&mut run, &mut address], &limits, now, Duration::minutes(1)).allowed);
/// }
/// let refused = admit(&mut [&mut run, &mut address], &limits, now, Duration::minutes(1));
/// assert!(!refused.allowed);
/// assert_eq!(refused.reset_at, now + Duration::minutes(1));
/// assert_eq!(address.len(), 2, "a refused event is counted nowhere");
/// ```
pub fn admit(
    logs: &mut [&mut Vec<OffsetDateTime>],
    limits: &[WindowLimit],
    now: OffsetDateTime,
    window: Duration,
) -> RateDecision {
    let since = now - window;
    let mut allowed = true;
    let mut refused_until = now;
    for (log, limit) in logs.iter_mut().zip(limits) {
        log.retain(|hit| *hit > since);
        let limit = usize::try_from(limit.limit).unwrap_or(usize::MAX);
        let excess = log.len().saturating_sub(limit);
        log.drain(..excess);
        if log.len() >= limit {
            allowed = false;
            // The oldest counted event must leave before one more fits (none fits at 0).
            let frees_at = log.first().map_or(now + window, |oldest| *oldest + window);
            refused_until = refused_until.max(frees_at);
        }
    }
    let mut remaining = u32::MAX;
    let mut oldest_of_fullest: Option<OffsetDateTime> = None;
    for (log, limit) in logs.iter_mut().zip(limits) {
        if allowed {
            // Callers' clocks need not agree: keep the log in order whatever `now` is.
            let at = log.partition_point(|hit| *hit <= now);
            log.insert(at, now);
        }
        let counted = u32::try_from(log.len()).unwrap_or(u32::MAX);
        let room = limit.limit.saturating_sub(counted);
        if room <= remaining {
            remaining = room;
            oldest_of_fullest = log.first().copied();
        }
    }
    RateDecision {
        allowed,
        remaining: if limits.is_empty() { 0 } else { remaining },
        reset_at: if allowed {
            oldest_of_fullest.unwrap_or(now) + window
        } else {
            refused_until
        },
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    const T0: OffsetDateTime = datetime!(2026-03-01 9:00 UTC);
    const MINUTE: Duration = Duration::minutes(1);

    fn limits(of: &[u32]) -> Vec<WindowLimit> {
        of.iter()
            .enumerate()
            .map(|(i, limit)| WindowLimit {
                name: format!("l{i}"),
                limit: *limit,
            })
            .collect()
    }

    fn secs(s: i64) -> OffsetDateTime {
        T0 + Duration::seconds(s)
    }

    #[test]
    fn an_event_is_admitted_only_when_every_limit_has_room() {
        let limits = limits(&[3, 1]);
        let (mut a, mut b) = (vec![secs(0)], Vec::new());
        let first = admit(&mut [&mut a, &mut b], &limits, secs(1), MINUTE);
        assert!(first.allowed);
        assert_eq!(first.remaining, 0);
        assert_eq!((a.len(), b.len()), (2, 1));
        let second = admit(&mut [&mut a, &mut b], &limits, secs(2), MINUTE);
        assert!(!second.allowed);
        assert_eq!((a.len(), b.len()), (2, 1), "a refusal is counted nowhere");
        assert_eq!(
            second.reset_at,
            secs(61),
            "when the full limit frees a slot"
        );
    }

    #[test]
    fn a_refusal_lasts_until_every_full_limit_has_room() {
        let limits = limits(&[1, 1]);
        let (mut a, mut b) = (vec![secs(0)], vec![secs(30)]);
        let refused = admit(&mut [&mut a, &mut b], &limits, secs(40), MINUTE);
        assert!(!refused.allowed);
        assert_eq!(refused.reset_at, secs(90));
        assert!(admit(&mut [&mut a, &mut b], &limits, secs(91), MINUTE).allowed);
    }

    #[test]
    fn events_leave_the_window_and_logs_keep_at_most_their_limit() {
        let limits = limits(&[2]);
        let mut log: Vec<_> = (0..5).map(secs).collect();
        assert!(!admit(&mut [&mut log], &limits, secs(5), MINUTE).allowed);
        assert_eq!(log, [secs(3), secs(4)]);
        assert!(admit(&mut [&mut log], &limits, secs(63), MINUTE).allowed);
        assert_eq!(log, [secs(4), secs(63)]);
    }

    #[test]
    fn a_limit_of_zero_admits_nothing() {
        let limits = limits(&[0]);
        let mut log = Vec::new();
        let refused = admit(&mut [&mut log], &limits, T0, MINUTE);
        assert!(!refused.allowed);
        assert_eq!(refused.reset_at, T0 + MINUTE);
        assert!(log.is_empty());
    }

    #[test]
    fn an_event_older_than_the_others_is_kept_in_order() {
        let limits = limits(&[5]);
        let mut log = vec![secs(10)];
        assert!(admit(&mut [&mut log], &limits, T0, MINUTE).allowed);
        assert_eq!(log, [T0, secs(10)]);
    }
}
