//! A moment as a JSON string in RFC 3339, a UTC one assembled from a table of two-digit numbers.
//!
//! `time`'s RFC 3339 formatter writes each component into the answer on its own (a dozen
//! appends, each checking the room left); every moment procflow stores comes back from
//! PostgreSQL in UTC, so those are assembled on the stack and appended once, and any other
//! offset still goes through `time` (`docs/performance.md`, "Rows read column by column; ids
//! and moments written from tables").

use serde::ser::Error as _;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Each number below 100 as two digits.
const PAIRS: [[u8; 2]; 100] = {
    let mut table = [[0; 2]; 100];
    let mut n = 0;
    while n < 100 {
        // Both digits are below 10: the casts cannot truncate.
        table[n] = [b'0' + (n / 10) as u8, b'0' + (n % 10) as u8];
        n += 1;
    }
    table
};

/// `"YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ"`, quoted.
const LONGEST: usize = 32;

/// Appends `at` as `time::serde::rfc3339` writes it: quoted, the fraction of a second without
/// its trailing zeros (none when it is zero), `Z` for UTC.
///
/// # Errors
/// `time`'s, for a moment RFC 3339 cannot write (a year before 0, an offset with seconds);
/// `out` is then as it was.
pub(super) fn write_moment(
    out: &mut Vec<u8>,
    at: &OffsetDateTime,
) -> Result<(), serde_json::Error> {
    let (year, month, day) = at.to_calendar_date();
    let Some(year) = u16::try_from(year).ok().filter(|y| *y < 10_000) else {
        return by_time(out, at);
    };
    if !at.offset().is_utc() {
        return by_time(out, at);
    }
    let (hour, minute, second, nanos) = at.to_hms_nano();
    let mut text = [0; LONGEST];
    text[0] = b'"';
    text[1..3].copy_from_slice(&PAIRS[usize::from(year / 100)]);
    text[3..5].copy_from_slice(&PAIRS[usize::from(year % 100)]);
    text[5] = b'-';
    text[6..8].copy_from_slice(&PAIRS[usize::from(u8::from(month))]);
    text[8] = b'-';
    text[9..11].copy_from_slice(&PAIRS[usize::from(day)]);
    text[11] = b'T';
    text[12..14].copy_from_slice(&PAIRS[usize::from(hour)]);
    text[14] = b':';
    text[15..17].copy_from_slice(&PAIRS[usize::from(minute)]);
    text[17] = b':';
    text[18..20].copy_from_slice(&PAIRS[usize::from(second)]);
    let mut end = 20;
    if nanos != 0 {
        text[20] = b'.';
        let mut rest = nanos;
        for digit in text[21..30].iter_mut().rev() {
            // A remainder by 10 is below 10: the cast cannot truncate.
            *digit = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
        end = 30;
        while text[end - 1] == b'0' {
            end -= 1;
        }
    }
    text[end] = b'Z';
    text[end + 1] = b'"';
    out.extend_from_slice(&text[..end + 2]);
    Ok(())
}

/// `at` written by `time`'s own formatter.
fn by_time(out: &mut Vec<u8>, at: &OffsetDateTime) -> Result<(), serde_json::Error> {
    let start = out.len();
    out.push(b'"');
    if let Err(error) = at.format_into(out, &Rfc3339) {
        out.truncate(start);
        return Err(serde_json::Error::custom(error));
    }
    out.push(b'"');
    Ok(())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde::Serialize;
    use time::macros::{datetime, offset};
    use time::{Duration, UtcOffset};

    use super::*;

    /// How `time::serde::rfc3339` writes a moment, the form the views declare.
    #[derive(Serialize)]
    struct Declared(#[serde(with = "time::serde::rfc3339")] OffsetDateTime);

    fn written(at: OffsetDateTime) -> Result<String, serde_json::Error> {
        let mut out = b"[".to_vec();
        write_moment(&mut out, &at)?;
        Ok(String::from_utf8(out).unwrap())
    }

    fn declared(at: OffsetDateTime) -> Result<String, serde_json::Error> {
        serde_json::to_string(&Declared(at)).map(|text| format!("[{text}"))
    }

    #[test]
    fn writes_what_time_writes_at_the_edges() {
        for at in [
            datetime!(0000-01-01 00:00 UTC),
            datetime!(9999-12-31 23:59:59.999_999_999 UTC),
            datetime!(2024-02-29 12:00:00.5 UTC),
            datetime!(2026-11-29 17:13:33.000_001 UTC),
            datetime!(2026-11-29 17:13:33.100_000_000 UTC),
            datetime!(1970-01-01 00:00:00.000_000_001 UTC),
            datetime!(2026-11-29 17:13:33.123_456 +05:30),
            datetime!(2026-11-29 17:13:33 -08:00),
        ] {
            assert_eq!(written(at).unwrap(), declared(at).unwrap(), "{at}");
        }
    }

    #[test]
    fn a_year_rfc_3339_cannot_write_is_refused_and_nothing_appended() {
        // `time` holds no year past 9999 without its `large-dates` feature.
        for at in [
            datetime!(-0001-12-31 23:59 UTC),
            datetime!(-9999-01-01 00:00 UTC),
        ] {
            let mut out = b"[".to_vec();
            assert!(write_moment(&mut out, &at).is_err(), "{at}");
            assert_eq!(out, b"[");
            assert!(declared(at).is_err());
        }
    }

    #[test]
    fn a_moment_in_another_offset_keeps_it() {
        let at = datetime!(2026-11-29 23:30 UTC).to_offset(offset!(+02:00));
        assert_eq!(written(at).unwrap(), "[\"2026-11-30T01:30:00+02:00\"");
    }

    proptest! {
        #[test]
        fn writes_what_time_writes(
            seconds in 0_i64..253_402_300_800,
            nanos in prop_oneof![
                Just(0_u32),
                (0_u32..1_000_000).prop_map(|micros| micros * 1_000),
                0_u32..1_000_000_000,
            ],
            offset_minutes in prop_oneof![Just(0_i16), -1_439_i16..1_440],
        ) {
            let utc = OffsetDateTime::from_unix_timestamp(seconds).unwrap()
                + Duration::nanoseconds(i64::from(nanos));
            let offset = UtcOffset::from_whole_seconds(i32::from(offset_minutes) * 60).unwrap();
            let at = utc.to_offset(offset);
            prop_assert_eq!(written(at).ok(), declared(at).ok());
        }
    }
}
