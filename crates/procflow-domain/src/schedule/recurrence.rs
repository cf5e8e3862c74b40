//! A schedule's recurrence (API contract 13.1): an RFC 5545 `DTSTART` and `RRULE`, evaluated
//! in an IANA timezone by the `rrule` crate, restricted to the parts the contract names and to
//! at most one occurrence per 15 minutes.

use std::fmt;
use std::str::FromStr;

use chrono::{NaiveDate, NaiveDateTime, TimeZone as _};
use time::OffsetDateTime;

use crate::error::ValidationError;

/// The request field every refusal of this module names.
const FIELD: &str = "recurrence";

/// The RRULE parts the contract allows; anything else is refused by name.
const SUPPORTED_PARTS: &[&str] = &[
    "FREQ",
    "INTERVAL",
    "BYDAY",
    "BYMONTHDAY",
    "BYMONTH",
    "BYHOUR",
    "BYMINUTE",
    "COUNT",
    "UNTIL",
];

/// The shortest time between two occurrences, in minutes.
pub const MIN_GAP_MINUTES: u32 = 15;

/// How many occurrences a catch-up walks at most; past that the missed count is a floor.
/// (With the 15-minute floor this is more than a year of downtime.)
const CATCH_UP_LIMIT: u64 = 50_000;

/// An IANA timezone such as `Europe/Paris`.
///
/// ```
/// use procflow_domain::schedule::Timezone;
///
/// assert_eq!(Timezone::parse("Europe/Paris").unwrap().name(), "Europe/Paris");
/// assert!(Timezone::parse("Mars/Olympus").is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Timezone(chrono_tz::Tz);

impl Timezone {
    /// UTC, the default when a team names no timezone.
    pub const UTC: Self = Self(chrono_tz::Tz::UTC);

    /// Reads an IANA name, refused (field `timezone`) when the database does not know it.
    ///
    /// # Errors
    /// A [`ValidationError`] naming `timezone`.
    pub fn parse(name: &str) -> Result<Self, ValidationError> {
        chrono_tz::Tz::from_str(name).map(Self).map_err(|_| {
            ValidationError::field(
                "timezone",
                format!("{name:?} is not an IANA timezone name (such as \"Europe/Paris\")"),
            )
        })
    }

    /// The IANA name.
    #[must_use]
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// The local calendar date of an instant in this zone.
    ///
    /// ```
    /// use procflow_domain::schedule::Timezone;
    /// use time::macros::{date, datetime};
    ///
    /// let tokyo = Timezone::parse("Asia/Tokyo").unwrap();
    /// assert_eq!(tokyo.local_date(datetime!(2026-12-31 20:00 UTC)), date!(2027-01-01));
    /// ```
    #[must_use]
    pub fn local_date(self, at: OffsetDateTime) -> time::Date {
        let local = self.0.timestamp_opt(at.unix_timestamp(), 0).single();
        local
            .and_then(|local| {
                let naive = local.date_naive();
                let month =
                    time::Month::try_from(u8::try_from(chrono::Datelike::month(&naive)).ok()?)
                        .ok()?;
                time::Date::from_calendar_date(
                    chrono::Datelike::year(&naive),
                    month,
                    u8::try_from(chrono::Datelike::day(&naive)).ok()?,
                )
                .ok()
            })
            .unwrap_or_else(|| at.date())
    }
}

impl fmt::Debug for Timezone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Timezone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A checked recurrence: its text as the client wrote it, its timezone, and the rule set that
/// computes its occurrences (shared by its clones: a store may keep the recurrences it read
/// rather than check the same text again).
///
/// ```
/// use procflow_domain::schedule::{Recurrence, Timezone};
/// use time::macros::datetime;
///
/// let paris = Timezone::parse("Europe/Paris").unwrap();
/// let weekly = Recurrence::parse("DTSTART:20261130T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO", paris)
///     .unwrap();
/// // 09:00 in Paris is 08:00 UTC in winter.
/// assert_eq!(
///     weekly.next_after(datetime!(2026-12-01 00:00 UTC)),
///     Some(datetime!(2026-12-07 08:00 UTC))
/// );
/// ```
#[derive(Clone)]
pub struct Recurrence {
    text: String,
    timezone: Timezone,
    set: std::sync::Arc<rrule::RRuleSet>,
}

impl fmt::Debug for Recurrence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recurrence")
            .field("text", &self.text)
            .field("timezone", &self.timezone)
            .finish()
    }
}

impl PartialEq for Recurrence {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text && self.timezone == other.timezone
    }
}

/// What a due schedule does at a tick: the one occurrence it starts, how many older ones it
/// skips, and when it is due next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatchUp {
    /// The latest occurrence at or before now: the one that starts a run.
    pub occurrence: OffsetDateTime,
    /// Occurrences between the one that was due and `occurrence`, skipped after downtime.
    pub missed: u64,
    /// The first occurrence after now, or `None` when the rule has none left.
    pub next: Option<OffsetDateTime>,
}

impl Recurrence {
    /// Checks a recurrence: one `DTSTART` line (a local time in `timezone`, or UTC with `Z`)
    /// and one `RRULE` line with only the parts of API contract 13.1, at most one occurrence
    /// per 15 minutes, `UNTIL` not before `DTSTART`, and at least one occurrence.
    ///
    /// # Errors
    /// A [`ValidationError`] on field `recurrence` whose message names the refused part.
    pub fn parse(text: &str, timezone: Timezone) -> Result<Self, ValidationError> {
        let mut dtstart = None;
        let mut rule = None;
        for line in text.lines().map(str::trim).filter(|line| !line.is_empty()) {
            let (name, value) = line.split_once(':').ok_or_else(|| {
                refuse(format!(
                    "line {line:?} is not NAME:VALUE (DTSTART:... or RRULE:...)"
                ))
            })?;
            match name.to_ascii_uppercase().as_str() {
                "DTSTART" if dtstart.is_none() => dtstart = Some(value),
                "RRULE" if rule.is_none() => rule = Some(value),
                "DTSTART" | "RRULE" => {
                    return Err(refuse(format!("{name} is given more than once")));
                }
                other if other.starts_with("DTSTART;") => {
                    return Err(refuse(format!(
                        "{other} is not supported: write DTSTART as a local time and set the schedule's timezone"
                    )));
                }
                other => {
                    return Err(refuse(format!(
                        "{other} is not supported; a recurrence is one DTSTART and one RRULE line"
                    )));
                }
            }
        }
        let dtstart = dtstart.ok_or_else(|| refuse("DTSTART is missing"))?;
        let rule = rule.ok_or_else(|| refuse("RRULE is missing"))?;
        let start = parse_dtstart(dtstart, timezone)?;
        let parts = Parts::read(rule)?;
        let until = parts
            .until
            .map(|until| parse_until(until, timezone))
            .transpose()?;
        if let Some(until) = until
            && until < start
        {
            return Err(refuse(format!(
                "UNTIL ({}) is before DTSTART ({})",
                parts.until.unwrap_or_default(),
                dtstart
            )));
        }
        parts.check_gap(start.time())?;
        let mut unvalidated: rrule::RRule<rrule::Unvalidated> = parts
            .rest
            .parse()
            .map_err(|e: rrule::RRuleError| refuse(format!("RRULE: {e}")))?;
        if let Some(until) = until {
            unvalidated = unvalidated.until(until.with_timezone(&rrule::Tz::UTC));
        }
        let set = unvalidated
            .build(start)
            .map_err(|e| refuse(format!("RRULE: {e}")))?
            .limit();
        let recurrence = Self {
            text: text.to_owned(),
            timezone,
            set: std::sync::Arc::new(set),
        };
        if recurrence.occurrences().next().is_none() {
            return Err(refuse("RRULE: the rule has no occurrence"));
        }
        Ok(recurrence)
    }

    /// The text as the client wrote it.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The timezone its local times are in.
    #[must_use]
    pub const fn timezone(&self) -> Timezone {
        self.timezone
    }

    /// The first occurrence strictly after `after`, or `None` when none is left.
    #[must_use]
    pub fn next_after(&self, after: OffsetDateTime) -> Option<OffsetDateTime> {
        let after = after.unix_timestamp();
        self.occurrences().find(|at| at.unix_timestamp() > after)
    }

    /// The first occurrence at or after `from`.
    #[must_use]
    pub fn first_from(&self, from: OffsetDateTime) -> Option<OffsetDateTime> {
        let from = from.unix_timestamp();
        self.occurrences().find(|at| at.unix_timestamp() >= from)
    }

    /// For a schedule that was due at `due` (at or before `now`): the latest occurrence at or
    /// before `now` (never before `due`), how many occurrences in between were skipped, and
    /// the next one after `now`.
    ///
    /// ```
    /// use procflow_domain::schedule::{Recurrence, Timezone};
    /// use time::macros::datetime;
    ///
    /// let daily = Recurrence::parse("DTSTART:20261201T090000\nRRULE:FREQ=DAILY", Timezone::UTC)
    ///     .unwrap();
    /// // Down from the 1st to the 4th at noon: only the 4th's run starts, three are missed.
    /// let catch_up = daily.catch_up(datetime!(2026-12-01 09:00 UTC), datetime!(2026-12-04 12:00 UTC));
    /// assert_eq!(catch_up.occurrence, datetime!(2026-12-04 09:00 UTC));
    /// assert_eq!(catch_up.missed, 3);
    /// assert_eq!(catch_up.next, Some(datetime!(2026-12-05 09:00 UTC)));
    /// ```
    #[must_use]
    pub fn catch_up(&self, due: OffsetDateTime, now: OffsetDateTime) -> CatchUp {
        let (due_s, now_s) = (due.unix_timestamp(), now.unix_timestamp());
        let mut latest = None;
        let mut seen: u64 = 0;
        let mut next = None;
        for at in self.occurrences() {
            let s = at.unix_timestamp();
            if s < due_s {
                continue;
            }
            if s > now_s {
                next = Some(at);
                break;
            }
            seen += 1;
            latest = Some(at);
            if seen >= CATCH_UP_LIMIT {
                next = self.next_after(now);
                break;
            }
        }
        CatchUp {
            occurrence: latest.unwrap_or(due),
            missed: seen.saturating_sub(1),
            next,
        }
    }

    fn occurrences(&self) -> impl Iterator<Item = OffsetDateTime> + '_ {
        self.set
            .as_ref()
            .into_iter()
            .filter_map(|at| OffsetDateTime::from_unix_timestamp(at.timestamp()).ok())
    }
}

/// The RRULE split into the parts this module reads itself and the rest for the library.
struct Parts<'a> {
    until: Option<&'a str>,
    by_hour: Option<&'a str>,
    by_minute: Option<&'a str>,
    rest: String,
}

impl<'a> Parts<'a> {
    fn read(rule: &'a str) -> Result<Self, ValidationError> {
        let mut parts = Parts {
            until: None,
            by_hour: None,
            by_minute: None,
            rest: String::new(),
        };
        let mut freq = None;
        let mut seen: Vec<String> = Vec::new();
        for part in rule.split(';').filter(|part| !part.is_empty()) {
            let (name, value) = part
                .split_once('=')
                .ok_or_else(|| refuse(format!("RRULE part {part:?} is not NAME=VALUE")))?;
            let upper = name.trim().to_ascii_uppercase();
            if !SUPPORTED_PARTS.contains(&upper.as_str()) {
                return Err(refuse(format!(
                    "RRULE part {upper} is not supported; the supported parts are {}",
                    SUPPORTED_PARTS.join(", ")
                )));
            }
            if seen.contains(&upper) {
                return Err(refuse(format!(
                    "RRULE part {upper} is given more than once"
                )));
            }
            seen.push(upper.clone());
            match upper.as_str() {
                "UNTIL" => {
                    parts.until = Some(value);
                    continue;
                }
                "FREQ" => freq = Some(value.to_ascii_uppercase()),
                "BYHOUR" => parts.by_hour = Some(value),
                "BYMINUTE" => parts.by_minute = Some(value),
                _ => {}
            }
            if !parts.rest.is_empty() {
                parts.rest.push(';');
            }
            parts.rest.push_str(&upper);
            parts.rest.push('=');
            parts.rest.push_str(value);
        }
        match freq.as_deref() {
            Some("DAILY" | "WEEKLY" | "MONTHLY" | "YEARLY") => Ok(parts),
            Some(other) => Err(refuse(format!(
                "RRULE part FREQ={other} is not supported; FREQ is DAILY, WEEKLY, MONTHLY or YEARLY"
            ))),
            None => Err(refuse("RRULE part FREQ is missing")),
        }
    }

    /// Every supported FREQ is at least daily, so only the times of day can come closer than
    /// the floor: the sorted minutes of the day (BYHOUR × BYMINUTE, DTSTART's where absent),
    /// around the clock, must be at least [`MIN_GAP_MINUTES`] apart.
    fn check_gap(&self, start: chrono::NaiveTime) -> Result<(), ValidationError> {
        use chrono::Timelike as _;
        let hours = numbers(self.by_hour, "BYHOUR", 23)?.unwrap_or_else(|| vec![start.hour()]);
        let minutes =
            numbers(self.by_minute, "BYMINUTE", 59)?.unwrap_or_else(|| vec![start.minute()]);
        let mut times: Vec<u32> = hours
            .iter()
            .flat_map(|h| minutes.iter().map(move |m| h * 60 + m))
            .collect();
        times.sort_unstable();
        times.dedup();
        if times.len() < 2 {
            return Ok(());
        }
        let wrap = 24 * 60 - times[times.len() - 1] + times[0];
        let closest = times
            .windows(2)
            .map(|pair| pair[1] - pair[0])
            .chain(std::iter::once(wrap))
            .min()
            .unwrap_or(u32::MAX);
        if closest < MIN_GAP_MINUTES {
            let part = if minutes.len() > 1 {
                "BYMINUTE"
            } else {
                "BYHOUR"
            };
            return Err(refuse(format!(
                "RRULE part {part} gives occurrences {closest} minutes apart; at most one occurrence per {MIN_GAP_MINUTES} minutes"
            )));
        }
        Ok(())
    }
}

fn numbers(value: Option<&str>, part: &str, max: u32) -> Result<Option<Vec<u32>>, ValidationError> {
    value
        .map(|value| {
            value
                .split(',')
                .map(|n| {
                    n.trim()
                        .parse::<u32>()
                        .ok()
                        .filter(|n| *n <= max)
                        .ok_or_else(|| {
                            refuse(format!(
                                "RRULE part {part}: {n:?} is not a number from 0 to {max}"
                            ))
                        })
                })
                .collect()
        })
        .transpose()
}

/// `YYYYMMDDTHHMMSS` local to `timezone`, or with `Z` in UTC.
fn parse_dtstart(
    value: &str,
    timezone: Timezone,
) -> Result<chrono::DateTime<rrule::Tz>, ValidationError> {
    let tz = rrule::Tz::Tz(timezone.0);
    let bad = || {
        refuse(format!(
            "DTSTART {value:?} is not a date-time such as 20261201T090000 (local to the schedule's timezone)"
        ))
    };
    if let Some(utc) = value.strip_suffix('Z') {
        let naive = NaiveDateTime::parse_from_str(utc, "%Y%m%dT%H%M%S").map_err(|_| bad())?;
        return Ok(chrono::Utc.from_utc_datetime(&naive).with_timezone(&tz));
    }
    let naive = NaiveDateTime::parse_from_str(value, "%Y%m%dT%H%M%S").map_err(|_| bad())?;
    tz.from_local_datetime(&naive).earliest().ok_or_else(|| {
        refuse(format!(
            "DTSTART {value:?} does not exist in {timezone} (the clocks skip it)"
        ))
    })
}

/// `UNTIL` as a date, a local date-time or a UTC date-time (`Z`).
fn parse_until(
    value: &str,
    timezone: Timezone,
) -> Result<chrono::DateTime<rrule::Tz>, ValidationError> {
    let tz = rrule::Tz::Tz(timezone.0);
    let bad = || {
        refuse(format!(
            "RRULE part UNTIL {value:?} is not a date (20270101) or date-time (20270101T000000, or ...Z in UTC)"
        ))
    };
    if let Some(utc) = value.strip_suffix('Z') {
        let naive = NaiveDateTime::parse_from_str(utc, "%Y%m%dT%H%M%S").map_err(|_| bad())?;
        return Ok(chrono::Utc.from_utc_datetime(&naive).with_timezone(&tz));
    }
    let naive = NaiveDateTime::parse_from_str(value, "%Y%m%dT%H%M%S")
        .or_else(|_| {
            NaiveDate::parse_from_str(value, "%Y%m%d")
                .map(|date| date.and_hms_opt(23, 59, 59).unwrap_or_default())
        })
        .map_err(|_| bad())?;
    tz.from_local_datetime(&naive).latest().ok_or_else(bad)
}

fn refuse(message: impl Into<String>) -> ValidationError {
    ValidationError::field(FIELD, message)
}
