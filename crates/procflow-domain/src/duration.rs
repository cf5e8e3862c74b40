//! Durations as settings write them, a whole number and a unit (`500ms`, `30s`, `5m`, `2h`,
//! `1d`): the one grammar of every duration setting and of the retry schedule's waits.

use std::fmt;
use std::time::Duration;

/// A unit a duration may be written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// `ms`
    Milliseconds,
    /// `s`
    Seconds,
    /// `m`
    Minutes,
    /// `h`
    Hours,
    /// `d`, 24 hours
    Days,
}

impl Unit {
    /// Every unit, longest first: the order [`format()`] tries them in.
    pub const ALL: [Self; 5] = [
        Self::Days,
        Self::Hours,
        Self::Minutes,
        Self::Seconds,
        Self::Milliseconds,
    ];

    /// How the unit is written after the number.
    #[must_use]
    pub const fn suffix(self) -> &'static str {
        match self {
            Self::Milliseconds => "ms",
            Self::Seconds => "s",
            Self::Minutes => "m",
            Self::Hours => "h",
            Self::Days => "d",
        }
    }

    /// The unit's length in milliseconds.
    #[must_use]
    pub const fn millis(self) -> u64 {
        match self {
            Self::Milliseconds => 1,
            Self::Seconds => 1_000,
            Self::Minutes => 60_000,
            Self::Hours => 3_600_000,
            Self::Days => 86_400_000,
        }
    }

    /// The name of the unit in help texts: "seconds", "milliseconds", ...
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Milliseconds => "milliseconds",
            Self::Seconds => "seconds",
            Self::Minutes => "minutes",
            Self::Hours => "hours",
            Self::Days => "days",
        }
    }

    fn from_suffix(suffix: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|unit| unit.suffix() == suffix)
    }
}

/// How one setting reads a duration: the unit of a bare number (none: a unit is required) and
/// the shortest and longest it accepts. Every duration setting parses through one of these, so
/// they all take the same units.
///
/// Surrounding whitespace is ignored; inside, the number and its unit are written together.
/// Numbers are whole (no `1.5s`; write `1500ms`) and never negative. A leading `+` is allowed
/// because bare numbers have always been read by Rust's integer parser, which allows it.
///
/// ```
/// use std::time::Duration;
/// use procflow_domain::duration::{DurationRule, Unit};
///
/// let rule = DurationRule::new(Duration::from_secs(1), Duration::from_secs(86_400))
///     .bare_in(Unit::Seconds);
/// assert_eq!(rule.parse("30s"), Ok(Duration::from_secs(30)));
/// assert_eq!(rule.parse("2m"), Ok(Duration::from_secs(120)));
/// assert_eq!(rule.parse("1500ms"), Ok(Duration::from_millis(1500)));
/// assert_eq!(rule.parse("45"), Ok(Duration::from_secs(45)), "a bare number is in seconds");
/// let refused = rule.parse("0s").unwrap_err();
/// assert_eq!(
///     refused.to_string(),
///     "\"0s\" is zero: write 500ms, 30s, 5m, 2h or 1d (a bare number is seconds), from 1s to 1d"
/// );
/// assert!(rule.parse("2d").is_err(), "longer than the most");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DurationRule {
    bare: Option<Unit>,
    min: Duration,
    max: Duration,
}

impl DurationRule {
    /// Durations from `min` to `max` (both included), each with its unit.
    #[must_use]
    pub const fn new(min: Duration, max: Duration) -> Self {
        Self {
            bare: None,
            min,
            max,
        }
    }

    /// The same rule, reading a number without a unit in `unit`.
    #[must_use]
    pub const fn bare_in(self, unit: Unit) -> Self {
        Self {
            bare: Some(unit),
            ..self
        }
    }

    /// The duration `text` says.
    ///
    /// # Errors
    /// When `text` is empty, is not a whole number followed by one of the units (or alone,
    /// where a bare number is allowed), does not fit, or lies outside the rule's bounds.
    pub fn parse(&self, text: &str) -> Result<Duration, DurationError> {
        let text = text.trim();
        let refuse = |reason| DurationError {
            text: text.to_owned(),
            reason,
            rule: *self,
        };
        if text.is_empty() {
            return Err(refuse(Reason::Empty));
        }
        if text.starts_with('-') {
            return Err(refuse(Reason::Negative));
        }
        let unsigned = text.strip_prefix('+').unwrap_or(text);
        let (digits, suffix) = unsigned.split_at(
            unsigned
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(unsigned.len()),
        );
        if digits.is_empty() {
            return Err(refuse(Reason::NoNumber));
        }
        let unit = match (suffix, self.bare) {
            ("", Some(bare)) => bare,
            ("", None) => return Err(refuse(Reason::NoUnit)),
            (suffix, _) => Unit::from_suffix(suffix)
                .ok_or_else(|| refuse(Reason::UnknownUnit(suffix.to_owned())))?,
        };
        // Only digits are left, so the one way to fail is a number too large for u64.
        let millis = digits
            .parse::<u64>()
            .ok()
            .and_then(|number| number.checked_mul(unit.millis()))
            .ok_or_else(|| refuse(Reason::TooLong))?;
        let duration = Duration::from_millis(millis);
        if duration.is_zero() && !self.min.is_zero() {
            return Err(refuse(Reason::Zero));
        }
        if duration < self.min {
            return Err(refuse(Reason::TooShort));
        }
        if duration > self.max {
            return Err(refuse(Reason::TooLong));
        }
        Ok(duration)
    }
}

/// The accepted forms and bounds, as error messages and help texts say them.
impl fmt::Display for DurationRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("500ms, 30s, 5m, 2h or 1d")?;
        if let Some(bare) = self.bare {
            write!(f, " (a bare number is {})", bare.name())?;
        }
        write!(f, ", from {} to {}", format(self.min), format(self.max))
    }
}

/// A duration that does not parse under its [`DurationRule`]; says why and what is accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} {reason}: write {rule}")]
pub struct DurationError {
    text: String,
    reason: Reason,
    rule: DurationRule,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum Reason {
    #[error("is empty")]
    Empty,
    #[error("is negative")]
    Negative,
    #[error("does not start with a whole number")]
    NoNumber,
    #[error("has no unit")]
    NoUnit,
    #[error("has an unknown unit {0:?}")]
    UnknownUnit(String),
    #[error("is zero")]
    Zero,
    #[error("is too short")]
    TooShort,
    #[error("is too long")]
    TooLong,
}

/// `duration` in the longest unit that writes it exactly (`90s`, not `1m30s`, which does not
/// parse); parts finer than a millisecond are dropped. [`DurationRule::parse`] reads it back.
///
/// ```
/// use std::time::Duration;
/// use procflow_domain::duration::format;
///
/// assert_eq!(format(Duration::from_secs(7_200)), "2h");
/// assert_eq!(format(Duration::from_secs(90)), "90s");
/// assert_eq!(format(Duration::from_millis(1_500)), "1500ms");
/// assert_eq!(format(Duration::ZERO), "0s");
/// ```
#[must_use]
pub fn format(duration: Duration) -> String {
    let millis = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
    let unit = if millis == 0 {
        Unit::Seconds
    } else {
        Unit::ALL
            .into_iter()
            .find(|unit| millis % unit.millis() == 0)
            .unwrap_or(Unit::Milliseconds)
    };
    format!("{}{}", millis / unit.millis(), unit.suffix())
}

#[cfg(test)]
mod tests;
