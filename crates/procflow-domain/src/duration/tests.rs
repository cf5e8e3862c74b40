use std::time::Duration;

use super::*;

const SECONDS: DurationRule =
    DurationRule::new(Duration::from_secs(1), Duration::from_secs(86_400)).bare_in(Unit::Seconds);
const MILLIS: DurationRule = DurationRule::new(Duration::from_millis(10), Duration::from_secs(60))
    .bare_in(Unit::Milliseconds);
const WITH_UNIT: DurationRule =
    DurationRule::new(Duration::from_millis(1), Duration::from_secs(7 * 86_400));
const ANY: DurationRule = DurationRule::new(Duration::ZERO, Duration::MAX).bare_in(Unit::Seconds);

fn reason(rule: DurationRule, text: &str) -> Reason {
    match rule.parse(text) {
        Ok(duration) => panic!("{text:?} accepted as {duration:?}"),
        Err(error) => error.reason,
    }
}

#[test]
fn each_unit_is_read() {
    for (text, expected) in [
        ("500ms", Duration::from_millis(500)),
        ("30s", Duration::from_secs(30)),
        ("5m", Duration::from_secs(300)),
        ("2h", Duration::from_secs(7_200)),
        ("1d", Duration::from_secs(86_400)),
        ("1000ms", Duration::from_secs(1)),
        ("007s", Duration::from_secs(7)),
    ] {
        assert_eq!(ANY.parse(text), Ok(expected), "{text}");
        assert_eq!(WITH_UNIT.parse(text), Ok(expected), "{text}");
    }
}

#[test]
fn a_bare_number_is_in_the_rules_unit() {
    assert_eq!(SECONDS.parse("60"), Ok(Duration::from_secs(60)));
    assert_eq!(SECONDS.parse("+60"), Ok(Duration::from_secs(60)));
    assert_eq!(MILLIS.parse("1000"), Ok(Duration::from_secs(1)));
    assert_eq!(MILLIS.parse("50"), Ok(Duration::from_millis(50)));
    assert_eq!(MILLIS.parse("2s"), Ok(Duration::from_secs(2)));
    assert_eq!(reason(WITH_UNIT, "5"), Reason::NoUnit);
}

#[test]
fn surrounding_whitespace_is_ignored_but_not_whitespace_inside() {
    assert_eq!(SECONDS.parse(" 30s\t"), Ok(Duration::from_secs(30)));
    assert_eq!(SECONDS.parse("\n45 "), Ok(Duration::from_secs(45)));
    assert_eq!(
        reason(SECONDS, "30 s"),
        Reason::UnknownUnit(" s".to_owned())
    );
    assert_eq!(
        reason(SECONDS, "3 0s"),
        Reason::UnknownUnit(" 0s".to_owned())
    );
}

#[test]
fn empty_and_malformed_texts_are_refused() {
    assert_eq!(reason(SECONDS, ""), Reason::Empty);
    assert_eq!(reason(SECONDS, "   "), Reason::Empty);
    assert_eq!(reason(SECONDS, "s"), Reason::NoNumber);
    assert_eq!(reason(SECONDS, "+"), Reason::NoNumber);
    assert_eq!(reason(SECONDS, "++5s"), Reason::NoNumber);
    assert_eq!(reason(SECONDS, "-5s"), Reason::Negative);
    assert_eq!(reason(ANY, "-0"), Reason::Negative);
    assert_eq!(
        reason(SECONDS, "1.5s"),
        Reason::UnknownUnit(".5s".to_owned())
    );
    assert_eq!(
        reason(SECONDS, "1m30s"),
        Reason::UnknownUnit("m30s".to_owned())
    );
}

#[test]
fn unknown_units_are_refused() {
    for (text, unit) in [
        ("30x", "x"),
        ("30S", "S"),
        ("5M", "M"),
        ("1w", "w"),
        ("10us", "us"),
        ("30sec", "sec"),
        ("2hours", "hours"),
    ] {
        assert_eq!(
            reason(SECONDS, text),
            Reason::UnknownUnit(unit.to_owned()),
            "{text}"
        );
    }
}

#[test]
fn zero_is_refused_where_the_least_is_more_than_zero() {
    for text in ["0", "0s", "0ms", "0d", "000m"] {
        assert_eq!(reason(SECONDS, text), Reason::Zero, "{text}");
    }
    assert_eq!(reason(WITH_UNIT, "0s"), Reason::Zero);
    assert_eq!(ANY.parse("0"), Ok(Duration::ZERO));
}

#[test]
fn the_bounds_are_inclusive() {
    assert_eq!(SECONDS.parse("1s"), Ok(Duration::from_secs(1)));
    assert_eq!(SECONDS.parse("86400"), Ok(Duration::from_secs(86_400)));
    assert_eq!(reason(SECONDS, "999ms"), Reason::TooShort);
    assert_eq!(reason(SECONDS, "86401s"), Reason::TooLong);
    assert_eq!(MILLIS.parse("10"), Ok(Duration::from_millis(10)));
    assert_eq!(reason(MILLIS, "9"), Reason::TooShort);
    assert_eq!(reason(MILLIS, "60001"), Reason::TooLong);
}

#[test]
fn numbers_that_overflow_are_refused() {
    // u64::MAX milliseconds is the largest that fits; a day more overflows the product, and a
    // number past u64 overflows the parse.
    assert_eq!(
        ANY.parse("18446744073709551615ms"),
        Ok(Duration::from_millis(u64::MAX))
    );
    for text in [
        "18446744073709551616ms",
        "18446744073709551616",
        "213503982335d",
        "99999999999999999999999999999s",
    ] {
        assert_eq!(reason(ANY, text), Reason::TooLong, "{text}");
    }
}

#[test]
fn errors_quote_the_text_and_name_the_accepted_forms() {
    let error = SECONDS.parse("30x").unwrap_err();
    assert_eq!(
        error.to_string(),
        "\"30x\" has an unknown unit \"x\": write 500ms, 30s, 5m, 2h or 1d \
         (a bare number is seconds), from 1s to 1d"
    );
    let error = WITH_UNIT.parse("5").unwrap_err();
    assert_eq!(
        error.to_string(),
        "\"5\" has no unit: write 500ms, 30s, 5m, 2h or 1d, from 1ms to 7d"
    );
    let error = MILLIS.parse(" 61s ").unwrap_err();
    assert_eq!(
        error.to_string(),
        "\"61s\" is too long: write 500ms, 30s, 5m, 2h or 1d \
         (a bare number is milliseconds), from 10ms to 1m"
    );
}

#[test]
fn format_writes_what_parse_reads() {
    for millis in [
        1,
        10,
        999,
        1_000,
        1_500,
        60_000,
        90_000,
        3_600_000,
        86_400_000,
        604_800_000,
    ] {
        let duration = Duration::from_millis(millis);
        assert_eq!(ANY.parse(&format(duration)), Ok(duration), "{duration:?}");
    }
    assert_eq!(format(Duration::from_secs(604_800)), "7d");
    assert_eq!(format(Duration::from_secs(3_600 * 30)), "30h");
    assert_eq!(format(Duration::from_nanos(1_500_000)), "1ms");
}
