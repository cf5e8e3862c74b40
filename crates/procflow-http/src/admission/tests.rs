//! The gate refuses only what the store would certainly refuse.

use procflow_domain::window::{SecondCounts, WindowLimit, admit};
use time::macros::datetime;

use super::*;

const T0: OffsetDateTime = datetime!(2026-03-01 9:00 UTC);
const MINUTE: Duration = Duration::minutes(1);

fn at(seconds: f64) -> OffsetDateTime {
    T0 + Duration::seconds_f64(seconds)
}

#[test]
fn nothing_is_refused_before_the_store_said_anything() {
    let gate = LocalGate::<&str>::default();
    let slot = gate.slot(&"k", at(0.0), MINUTE);
    assert_eq!(
        slot.certain_refusal(at(0.0), 0, MINUTE),
        None,
        "not even at 0"
    );
    assert_eq!(slot.certain_refusal(at(0.0), 5, MINUTE), None);
}

#[test]
fn a_refusal_of_the_store_is_repeated_until_it_ends() {
    let gate = LocalGate::<&str>::default();
    let slot = gate.slot(&"k", at(0.0), MINUTE);
    slot.refused(at(42.0));
    assert_eq!(slot.certain_refusal(at(10.0), 5, MINUTE), Some(at(42.0)));
    assert_eq!(slot.certain_refusal(at(41.999), 5, MINUTE), Some(at(42.0)));
    assert_eq!(slot.certain_refusal(at(42.0), 5, MINUTE), None);
    gate.forget(&"k");
    slot.refused(at(50.0));
    gate.forget_all();
    assert_eq!(slot.certain_refusal(at(43.0), 5, MINUTE), None);
}

#[test]
fn this_instances_own_admissions_refuse_once_they_reach_the_limit() {
    let gate = LocalGate::<&str>::default();
    let slot = gate.slot(&"k", at(0.0), MINUTE);
    for s in [1.0, 2.5, 3.0] {
        assert_eq!(slot.certain_refusal(at(s), 3, MINUTE), None);
        slot.admitted(at(s), MINUTE);
    }
    assert_eq!(slot.certain_refusal(at(4.0), 3, MINUTE), Some(at(61.0)));
    assert_eq!(
        slot.certain_refusal(at(4.0), 4, MINUTE),
        None,
        "room under 4"
    );
    // The oldest second of the window is not relied on: at 60.5 s the admission of second 1
    // is in its last second.
    assert_eq!(slot.certain_refusal(at(60.5), 3, MINUTE), None);
}

/// Whatever the store decides for a stream of requests (here the domain's rule, as the
/// stores decide), the gate refuses none that the store admits, from the store's answers to
/// this instance's requests alone, other instances adding their own.
#[test]
fn the_gate_never_refuses_what_the_store_admits() {
    let limits = [WindowLimit {
        name: "k".into(),
        limit: 7,
    }];
    let gate = LocalGate::<&str>::default();
    let mut store = SecondCounts::default();
    let mut refused_locally = 0;
    // A pseudo-random stream over 5 minutes: this instance's requests, and other instances'.
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut t = 0.0;
    for _ in 0..3_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        t += f64::from(u32::try_from(seed % 200).unwrap()) / 1000.0;
        let now = at(t);
        let ours = !seed.is_multiple_of(3);
        let slot = gate.slot(&"k", now, MINUTE);
        let certain = slot.certain_refusal(now, 7, MINUTE);
        let decided = admit(&mut [&mut store], &limits, now, MINUTE);
        if let Some(until) = certain {
            assert!(
                !decided.decision.allowed,
                "refused from memory at {t} s but the store admits"
            );
            assert!(
                until <= decided.decision.reset_at,
                "Retry-After never later than the store's"
            );
            refused_locally += 1;
            continue;
        }
        if ours {
            if decided.decision.allowed {
                slot.admitted(now, MINUTE);
            } else {
                slot.refused(decided.decision.reset_at);
            }
        }
    }
    assert!(
        refused_locally > 100,
        "the gate did refuse: {refused_locally}"
    );
}

#[test]
fn names_with_nothing_to_remember_are_swept_as_memory_grows() {
    let gate = LocalGate::<u32>::default();
    for n in 0..3_000 {
        gate.slot(&n, at(0.0), MINUTE).refused(at(60.0));
    }
    assert_eq!(gate.len(), 3_000);
    for n in 3_000..6_000 {
        let _ = gate.slot(&n, at(61.0), MINUTE);
    }
    assert!(gate.len() < 6_000, "ended refusals swept: {}", gate.len());
    assert!(gate.existing(&0).is_none());
}

#[tokio::test]
async fn at_most_a_few_requests_of_a_name_are_at_the_store_at_once() {
    let gate = LocalGate::<&str>::default();
    let slot = gate.slot(&"k", at(0.0), MINUTE);
    let mut turns = Vec::new();
    for _ in 0..IN_FLIGHT {
        turns.push(slot.turn().await.unwrap());
    }
    assert!(slot.turns.try_acquire().is_err(), "the next one waits");
    assert!(!slot.turn_free());
    drop(turns.pop());
    assert!(slot.turn_free());
    assert!(slot.turn().await.is_some());
}
