//! How long the worker lets commits gather after a wake-up before it fans them out.
//!
//! Every fan-out costs the same few statements (the outbox's claim in a transaction of its
//! own, the team's endpoints, the dispatched mark), whatever number of events it takes. Woken
//! by each commit and waiting a fixed 20 ms, the worker took batches of about 20 events from
//! a steady stream of completes, and cost that scenario about 8 % of its throughput at 4
//! connections (`docs/performance.md`). A longer fixed wait would delay every lone event's
//! webhook as much. So the wait adapts: short while events come one at a time, doubled after
//! each fan-out that found a stream, back to short after the first that did not.

use std::time::Duration;

/// The worker's gathering delay, adapted to how events come.
#[derive(Debug)]
pub(crate) struct Gather {
    shortest: Duration,
    longest: Duration,
    current: Duration,
}

impl Gather {
    /// Events taken by one fan-out that say a stream is flowing: at the shortest delay (20 ms),
    /// 400 events a second or more; at the longest (200 ms), 40 or more keep it there.
    pub(crate) const STREAM: usize = 8;

    /// The least step up from a zero shortest delay, so that a stream still lengthens it.
    const STEP: Duration = Duration::from_millis(10);

    /// A delay between `shortest` and `longest` (no less than `shortest`), starting short.
    pub(crate) fn new(shortest: Duration, longest: Duration) -> Self {
        Self {
            shortest,
            longest: longest.max(shortest),
            current: shortest,
        }
    }

    /// How long to let commits gather after the next wake-up.
    pub(crate) fn delay(&self) -> Duration {
        self.current
    }

    /// Adapts the delay to a fan-out that took `events`.
    pub(crate) fn fanned_out(&mut self, events: usize) {
        self.current = if events >= Self::STREAM {
            (self.current * 2).max(Self::STEP).min(self.longest)
        } else {
            self.shortest
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHORT: Duration = Duration::from_millis(20);
    const LONG: Duration = Duration::from_millis(200);

    fn delays(gather: &mut Gather, fan_outs: &[usize]) -> Vec<u64> {
        fan_outs
            .iter()
            .map(|&events| {
                gather.fanned_out(events);
                u64::try_from(gather.delay().as_millis()).expect("a short delay")
            })
            .collect()
    }

    #[test]
    fn a_lone_event_is_gathered_for_the_shortest_delay() {
        let mut gather = Gather::new(SHORT, LONG);
        assert_eq!(gather.delay(), SHORT, "it starts short");
        assert_eq!(
            delays(&mut gather, &[1, 0, Gather::STREAM - 1]),
            [20, 20, 20]
        );
    }

    #[test]
    fn a_stream_doubles_the_delay_up_to_the_longest() {
        let mut gather = Gather::new(SHORT, LONG);
        assert_eq!(
            delays(&mut gather, &[Gather::STREAM, 18, 36, 72, 144, 180]),
            [40, 80, 160, 200, 200, 200]
        );
    }

    #[test]
    fn the_first_fan_out_without_a_stream_makes_it_short_again() {
        let mut gather = Gather::new(SHORT, LONG);
        delays(&mut gather, &[50, 50, 50]);
        assert_eq!(delays(&mut gather, &[1, 50]), [20, 40]);
    }

    #[test]
    fn a_zero_shortest_delay_still_lengthens_under_a_stream() {
        let mut gather = Gather::new(Duration::ZERO, LONG);
        assert_eq!(delays(&mut gather, &[9, 9, 0]), [10, 20, 0]);
    }

    #[test]
    fn a_longest_below_the_shortest_pins_the_delay() {
        let mut gather = Gather::new(SHORT, Duration::ZERO);
        assert_eq!(delays(&mut gather, &[100, 100, 1]), [20, 20, 20]);
    }
}
