//! The rolling window at one-second resolution: exact to the second, rolling rather than
//! resetting, refusals counted nowhere, state bounded by the window's seconds.

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

fn secs(s: f64) -> OffsetDateTime {
    T0 + Duration::seconds_f64(s)
}

fn one(counts: &mut SecondCounts, limit: u32, at: f64) -> RateDecision {
    admit(&mut [counts], &limits(&[limit]), secs(at), MINUTE).decision
}

#[test]
fn an_event_is_admitted_only_when_every_limit_has_room() {
    let limits = limits(&[3, 1]);
    let (mut a, mut b) = (SecondCounts::default(), SecondCounts::default());
    a.record(secs(0.0), MINUTE);
    let first = admit(&mut [&mut a, &mut b], &limits, secs(1.0), MINUTE);
    assert!(first.decision.allowed);
    assert_eq!(first.decision.remaining, 0);
    assert_eq!(first.full_until, [None, None]);
    assert_eq!((a.total(), b.total()), (2, 1));
    let second = admit(&mut [&mut a, &mut b], &limits, secs(2.0), MINUTE);
    assert!(!second.decision.allowed);
    assert_eq!(
        (a.total(), b.total()),
        (2, 1),
        "a refusal is counted nowhere"
    );
    assert_eq!(
        second.decision.reset_at,
        secs(61.0),
        "when the full limit frees a slot"
    );
    assert_eq!(
        second.full_until,
        [None, Some(secs(61.0))],
        "only b was full"
    );
}

#[test]
fn a_refusal_lasts_until_every_full_limit_has_room() {
    let limits = limits(&[1, 1]);
    let (mut a, mut b) = (SecondCounts::default(), SecondCounts::default());
    a.record(secs(0.0), MINUTE);
    b.record(secs(30.0), MINUTE);
    let refused = admit(&mut [&mut a, &mut b], &limits, secs(40.0), MINUTE);
    assert!(!refused.decision.allowed);
    assert_eq!(refused.decision.reset_at, secs(90.0));
    assert_eq!(refused.full_until, [Some(secs(60.0)), Some(secs(90.0))]);
    assert!(
        !admit(&mut [&mut a, &mut b], &limits, secs(89.9), MINUTE)
            .decision
            .allowed
    );
    assert!(
        admit(&mut [&mut a, &mut b], &limits, secs(90.0), MINUTE)
            .decision
            .allowed
    );
}

#[test]
fn an_event_counts_in_its_whole_second_and_leaves_when_the_window_passes_it() {
    let mut counts = SecondCounts::default();
    assert!(one(&mut counts, 1, 2.999).allowed);
    // Counted in second 2: refused until second 62 begins, to the second.
    let refused = one(&mut counts, 1, 61.999);
    assert_eq!(refused.reset_at, secs(62.0));
    assert!(!refused.allowed);
    let admitted = one(&mut counts, 1, 62.0);
    assert!(admitted.allowed);
    assert_eq!(admitted.reset_at, secs(122.0));
}

#[test]
fn the_window_rolls_rather_than_resetting_and_state_stays_one_counter_a_second() {
    let mut counts = SecondCounts::default();
    for _ in 0..3 {
        assert!(one(&mut counts, 5, 0.0).allowed);
    }
    assert!(one(&mut counts, 5, 30.0).allowed);
    assert!(one(&mut counts, 5, 30.5).allowed);
    assert!(!one(&mut counts, 5, 31.0).allowed);
    // At 61 s the three events of second 0 have left; the two of second 30 still count.
    for remaining in [2, 1, 0] {
        assert_eq!(one(&mut counts, 5, 61.0).remaining, remaining);
    }
    assert_eq!(one(&mut counts, 5, 61.0).reset_at, secs(90.0));
    for second in 0..10_000 {
        one(&mut counts, 100_000, f64::from(second) * 0.01);
    }
    assert_eq!(
        counts.counts.len(),
        60,
        "bounded by the window, not the traffic"
    );
}

#[test]
fn a_lowered_limit_applies_at_once() {
    let mut counts = SecondCounts::default();
    for second in 0..300 {
        one(&mut counts, 5, f64::from(second));
    }
    // Events of 240..=244 s count. With a limit of 2 the key is refused until the second
    // newest of them (243 s) leaves the window.
    assert_eq!(one(&mut counts, 2, 299.0).reset_at, secs(303.0));
    let admitted = one(&mut counts, 2, 303.0);
    assert!(admitted.allowed);
    assert_eq!((admitted.remaining, admitted.reset_at), (0, secs(304.0)));
}

#[test]
fn a_limit_of_zero_admits_nothing() {
    let mut counts = SecondCounts::default();
    let refused = one(&mut counts, 0, 0.0);
    assert!(!refused.allowed);
    assert_eq!(refused.reset_at, T0 + MINUTE);
    assert_eq!(counts.total(), 0);
}

#[test]
fn a_caller_whose_clock_lags_is_counted_and_decides_on_the_newest_window() {
    let mut counts = SecondCounts::default();
    counts.record(secs(10.0), MINUTE);
    assert!(
        one(&mut counts, 5, 0.0).allowed,
        "an event older than the newest"
    );
    assert_eq!(counts.total(), 2);
    assert_eq!(counts.newest, second_of(secs(10.0)));
    // Older than the whole window: counted in its oldest second.
    counts.record(secs(-100.0), MINUTE);
    assert_eq!(counts.total(), 3);
    assert_eq!(counts.counts[0], 1);
}

#[test]
fn counts_since_a_second_leave_out_the_older_ones() {
    let mut counts = SecondCounts::default();
    for at in [0.0, 0.5, 1.0, 59.0] {
        counts.record(secs(at), MINUTE);
    }
    assert_eq!(counts.total(), 4);
    assert_eq!(counts.total_since(second_of(secs(1.0))), 2);
    assert_eq!(counts.total_since(second_of(secs(59.0))), 1);
    assert_eq!(counts.frees_at(3, MINUTE), Some(secs(61.0)));
    assert_eq!(counts.frees_at(5, MINUTE), None);
}

#[test]
fn counts_since_any_second_are_those_of_the_seconds_from_it_on() {
    let counts = SecondCounts {
        newest: 1_000,
        counts: (1..=60).collect(),
    };
    // counts[i] is second 941 + i.
    for since in [i64::MIN, 0, 940, 941, 942, 970, 1_000, 1_001, i64::MAX] {
        let by_second: u32 = (941..=1_000)
            .zip(&counts.counts)
            .filter(|(second, _)| *second >= since)
            .map(|(_, count)| *count)
            .sum();
        assert_eq!(counts.total_since(since), by_second, "since {since}");
    }
    assert_eq!(counts.total(), 1_830);
    assert_eq!(SecondCounts::default().total_since(0), 0);
}

#[test]
fn totals_stop_at_the_largest_count() {
    let counts = SecondCounts {
        newest: 10,
        counts: vec![u32::MAX, 2, u32::MAX],
    };
    assert_eq!(counts.total(), u32::MAX);
    assert_eq!(counts.total_since(9), u32::MAX);
    assert_eq!(counts.total_since(10), u32::MAX);
}

#[test]
fn a_decision_from_the_counts_after_it_matches_admit() {
    let limits = limits(&[2, 3]);
    let (mut a, mut b) = (SecondCounts::default(), SecondCounts::default());
    for at in [0.0, 1.0, 2.0, 61.5] {
        let decided = admit(&mut [&mut a, &mut b], &limits, secs(at), MINUTE);
        let again = decide(
            &[&a, &b],
            decided.decision.allowed,
            &limits,
            secs(at),
            MINUTE,
        );
        assert_eq!(decided, again, "at {at} s");
    }
}

proptest::proptest! {
    /// Rolling a full window in place moves its counters as rebuilding it does, whatever the
    /// step: none (the same second), a few seconds, more than the window, or back in time.
    #[test]
    fn a_full_window_rolls_in_place_as_it_is_rebuilt(
        counts in proptest::collection::vec(0_u32..1000, 60),
        newest in -200_i64..200,
        step in -100_i64..200,
    ) {
        let start = SecondCounts { newest: second_of(T0) + newest, counts };
        let now = T0 + Duration::seconds(newest + step) + Duration::milliseconds(300);
        let mut in_place = start.clone();
        in_place.roll(now, MINUTE);
        let mut rebuilt = start;
        rebuilt.rebuild(rebuilt.newest.max(second_of(now)), 60);
        proptest::prop_assert_eq!(in_place, rebuilt);
    }
}
