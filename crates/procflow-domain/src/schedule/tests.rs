use time::OffsetDateTime;
use time::macros::datetime;

use super::{Recurrence, Timezone};
use crate::error::ValidationError;

fn rule(text: &str, zone: &str) -> Recurrence {
    Recurrence::parse(text, Timezone::parse(zone).unwrap()).unwrap()
}

fn first(recurrence: &Recurrence, from: OffsetDateTime, n: usize) -> Vec<OffsetDateTime> {
    let mut out = Vec::new();
    let mut at = recurrence.first_from(from);
    while let Some(next) = at {
        out.push(next);
        if out.len() == n {
            break;
        }
        at = recurrence.next_after(next);
    }
    out
}

fn refusal(text: &str) -> String {
    match Recurrence::parse(text, Timezone::UTC) {
        Err(ValidationError::Field { field, message }) => {
            assert_eq!(field, "recurrence");
            message
        }
        other => panic!("{text:?} was not refused on recurrence: {other:?}"),
    }
}

#[test]
fn daily_at_nine() {
    let daily = rule("DTSTART:20261201T090000\nRRULE:FREQ=DAILY", "UTC");
    assert_eq!(
        first(&daily, datetime!(2026-11-01 00:00 UTC), 3),
        [
            datetime!(2026-12-01 09:00 UTC),
            datetime!(2026-12-02 09:00 UTC),
            datetime!(2026-12-03 09:00 UTC)
        ]
    );
}

#[test]
fn weekly_with_byday_and_interval() {
    let weekly = rule(
        "DTSTART:20261130T083000\nRRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH",
        "UTC",
    );
    assert_eq!(
        first(&weekly, datetime!(2026-11-30 00:00 UTC), 4),
        [
            datetime!(2026-11-30 08:30 UTC),
            datetime!(2026-12-03 08:30 UTC),
            datetime!(2026-12-14 08:30 UTC),
            datetime!(2026-12-17 08:30 UTC)
        ]
    );
}

#[test]
fn monthly_last_friday() {
    let close = rule(
        "DTSTART:20261201T170000\nRRULE:FREQ=MONTHLY;BYDAY=-1FR",
        "UTC",
    );
    assert_eq!(
        first(&close, datetime!(2026-12-01 00:00 UTC), 3),
        [
            datetime!(2026-12-25 17:00 UTC),
            datetime!(2027-01-29 17:00 UTC),
            datetime!(2027-02-26 17:00 UTC)
        ]
    );
}

#[test]
fn monthly_by_month_day_and_yearly_by_month() {
    let monthly = rule(
        "DTSTART:20261201T060000\nRRULE:FREQ=MONTHLY;BYMONTHDAY=1,15",
        "UTC",
    );
    assert_eq!(
        first(&monthly, datetime!(2026-12-02 00:00 UTC), 2),
        [
            datetime!(2026-12-15 06:00 UTC),
            datetime!(2027-01-01 06:00 UTC)
        ]
    );
    let yearly = rule(
        "DTSTART:20260101T000000\nRRULE:FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=31;BYHOUR=12;BYMINUTE=0",
        "UTC",
    );
    assert_eq!(
        first(&yearly, datetime!(2026-01-01 00:00 UTC), 2),
        [
            datetime!(2026-03-31 12:00 UTC),
            datetime!(2027-03-31 12:00 UTC)
        ]
    );
}

#[test]
fn count_and_until_end_the_rule() {
    let counted = rule("DTSTART:20261201T090000\nRRULE:FREQ=DAILY;COUNT=2", "UTC");
    assert_eq!(
        first(&counted, datetime!(2026-01-01 00:00 UTC), 10).len(),
        2
    );
    assert_eq!(counted.next_after(datetime!(2026-12-02 09:00 UTC)), None);

    let until = rule(
        "DTSTART:20261201T090000\nRRULE:FREQ=DAILY;UNTIL=20261203T090000Z",
        "UTC",
    );
    assert_eq!(
        first(&until, datetime!(2026-01-01 00:00 UTC), 10),
        [
            datetime!(2026-12-01 09:00 UTC),
            datetime!(2026-12-02 09:00 UTC),
            datetime!(2026-12-03 09:00 UTC)
        ]
    );
    // A date-only UNTIL includes its whole (local) day.
    let until_date = rule(
        "DTSTART:20261201T090000\nRRULE:FREQ=DAILY;UNTIL=20261202",
        "Europe/Paris",
    );
    assert_eq!(
        first(&until_date, datetime!(2026-01-01 00:00 UTC), 10).len(),
        2
    );
}

/// Europe/Paris moves from +01:00 to +02:00 on 2027-03-28 and back on 2027-10-31: a Monday
/// 09:00 stays 09:00 local, so its UTC time moves by an hour each way.
#[test]
fn nine_oclock_monday_stays_nine_across_both_dst_transitions() {
    let weekly = rule(
        "DTSTART:20270301T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO",
        "Europe/Paris",
    );
    assert_eq!(
        first(&weekly, datetime!(2027-03-22 00:00 UTC), 2),
        [
            datetime!(2027-03-22 08:00 UTC),
            datetime!(2027-03-29 07:00 UTC)
        ]
    );
    assert_eq!(
        first(&weekly, datetime!(2027-10-25 00:00 UTC), 2),
        [
            datetime!(2027-10-25 07:00 UTC),
            datetime!(2027-11-01 08:00 UTC)
        ]
    );
}

/// A daily 02:30 in New York does not exist on the spring-forward day (the clocks go from
/// 02:00 to 03:00): that day's occurrence is an hour later in local time, never skipped, and
/// the next day is 02:30 again.
#[test]
fn a_local_time_the_clocks_skip_still_occurs_that_day() {
    let daily = rule(
        "DTSTART:20270312T023000\nRRULE:FREQ=DAILY",
        "America/New_York",
    );
    let days = first(&daily, datetime!(2027-03-12 00:00 UTC), 4);
    assert_eq!(days.len(), 4, "{days:?}");
    assert_eq!(days[0], datetime!(2027-03-12 07:30 UTC));
    assert_eq!(days[1], datetime!(2027-03-13 07:30 UTC));
    assert_eq!(days[2], datetime!(2027-03-14 07:30 UTC), "03:30 EDT");
    assert_eq!(days[3], datetime!(2027-03-15 06:30 UTC));
}

#[test]
fn the_fifteen_minute_floor() {
    assert!(
        refusal("DTSTART:20261201T090000\nRRULE:FREQ=DAILY;BYMINUTE=0,10").contains("BYMINUTE")
    );
    // 23:55 and the next day's 00:05 are 10 minutes apart.
    assert!(
        refusal("DTSTART:20261201T090000\nRRULE:FREQ=DAILY;BYHOUR=0,23;BYMINUTE=5,55")
            .contains("BYMINUTE")
    );
    rule(
        "DTSTART:20261201T090000\nRRULE:FREQ=DAILY;BYHOUR=0,23;BYMINUTE=55",
        "UTC",
    );
    // Exactly 15 minutes apart, around the clock too, is allowed.
    rule(
        "DTSTART:20261201T090000\nRRULE:FREQ=DAILY;BYHOUR=9;BYMINUTE=0,15,30,45",
        "UTC",
    );
    rule(
        "DTSTART:20261201T090000\nRRULE:FREQ=DAILY;BYHOUR=9,10;BYMINUTE=0,45",
        "UTC",
    );
}

#[test]
fn until_before_dtstart_is_refused_by_name() {
    let message = refusal("DTSTART:20261201T090000\nRRULE:FREQ=DAILY;UNTIL=20261130T000000Z");
    assert!(
        message.contains("UNTIL") && message.contains("DTSTART"),
        "{message}"
    );
}

#[test]
fn unsupported_parts_are_refused_by_name() {
    for (text, part) in [
        ("DTSTART:20261201T090000\nRRULE:FREQ=HOURLY", "FREQ=HOURLY"),
        (
            "DTSTART:20261201T090000\nRRULE:FREQ=MINUTELY",
            "FREQ=MINUTELY",
        ),
        (
            "DTSTART:20261201T090000\nRRULE:FREQ=MONTHLY;BYSETPOS=-1;BYDAY=MO",
            "BYSETPOS",
        ),
        (
            "DTSTART:20261201T090000\nRRULE:FREQ=YEARLY;BYWEEKNO=1",
            "BYWEEKNO",
        ),
        (
            "DTSTART:20261201T090000\nRRULE:FREQ=DAILY;BYSECOND=1",
            "BYSECOND",
        ),
        (
            "DTSTART:20261201T090000\nRRULE:FREQ=DAILY\nEXDATE:20261202T090000",
            "EXDATE",
        ),
        (
            "DTSTART;TZID=Europe/Paris:20261201T090000\nRRULE:FREQ=DAILY",
            "DTSTART;TZID",
        ),
        ("DTSTART:20261201T090000\nRRULE:INTERVAL=2", "FREQ"),
        ("RRULE:FREQ=DAILY", "DTSTART"),
        ("DTSTART:20261201T090000", "RRULE"),
        ("DTSTART:tomorrow\nRRULE:FREQ=DAILY", "DTSTART"),
        (
            "DTSTART:20261201T090000\nRRULE:FREQ=DAILY;COUNT=many",
            "RRULE",
        ),
        (
            "DTSTART:20261201T090000\nRRULE:FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=2",
            "no occurrence",
        ),
    ] {
        let message = refusal(text);
        assert!(message.contains(part), "{text:?}: {message}");
    }
}

#[test]
fn a_local_dtstart_the_clocks_skip_is_refused() {
    let refused = Recurrence::parse(
        "DTSTART:20270328T023000\nRRULE:FREQ=DAILY",
        Timezone::parse("Europe/Paris").unwrap(),
    );
    assert!(
        matches!(refused, Err(ValidationError::Field { message, .. }) if message.contains("does not exist"))
    );
}

#[test]
fn catch_up_after_downtime_runs_only_the_latest() {
    let quarter = rule(
        "DTSTART:20261201T000000\nRRULE:FREQ=DAILY;BYHOUR=9;BYMINUTE=0,15,30,45",
        "UTC",
    );
    let up = quarter.catch_up(
        datetime!(2026-12-01 09:00 UTC),
        datetime!(2026-12-02 09:20 UTC),
    );
    assert_eq!(up.occurrence, datetime!(2026-12-02 09:15 UTC));
    assert_eq!(up.missed, 5);
    assert_eq!(up.next, Some(datetime!(2026-12-02 09:30 UTC)));
    // On time: nothing missed.
    let on_time = quarter.catch_up(
        datetime!(2026-12-01 09:00 UTC),
        datetime!(2026-12-01 09:00 UTC),
    );
    assert_eq!(
        (on_time.occurrence, on_time.missed),
        (datetime!(2026-12-01 09:00 UTC), 0)
    );
    // The last occurrence of a counted rule leaves nothing next.
    let twice = rule("DTSTART:20261201T090000\nRRULE:FREQ=DAILY;COUNT=2", "UTC");
    assert_eq!(
        twice.catch_up(
            datetime!(2026-12-01 09:00 UTC),
            datetime!(2027-01-01 00:00 UTC)
        ),
        super::CatchUp {
            occurrence: datetime!(2026-12-02 09:00 UTC),
            missed: 1,
            next: None
        }
    );
}

#[test]
fn unknown_timezone_is_refused_on_its_field() {
    assert!(matches!(
        Timezone::parse("Europe/Atlantis"),
        Err(ValidationError::Field { field, .. }) if field == "timezone"
    ));
}
