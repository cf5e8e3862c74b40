//! The due-date rule of a template task, and the ISO 8601 durations it uses.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};

use crate::error::ValidationError;

/// How a run task's due date is worked out (API contract 5).
///
/// ```
/// use procflow_domain::template::DueDateRule;
/// use serde_json::json;
/// use time::macros::datetime;
///
/// let rule: DueDateRule =
///     serde_json::from_value(json!({"type": "relative", "from": "run_start", "offset": "P3D"}))
///         .unwrap();
/// assert_eq!(rule.resolve(datetime!(2026-01-01 9:00 UTC)), datetime!(2026-01-04 9:00 UTC));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    deny_unknown_fields,
    try_from = "WireRule"
)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    schema(
        description = "The due-date rule of a template task: a fixed moment, or a time after the run starts."
    )
)]
pub enum DueDateRule {
    /// Due at a fixed moment.
    // The titles name the alternatives in generated clients (`FixedDueDate`, not
    // `DueDateRuleType0`).
    #[cfg_attr(feature = "openapi", schema(title = "FixedDueDate"))]
    Fixed {
        /// The moment, RFC 3339.
        #[serde(with = "time::serde::rfc3339")]
        at: OffsetDateTime,
    },
    /// Due a fixed time after the run starts.
    #[cfg_attr(feature = "openapi", schema(title = "RelativeDueDate"))]
    Relative {
        /// What the offset counts from.
        from: RelativeTo,
        /// An ISO 8601 duration of weeks, days, hours, minutes and seconds (`P3D`, `PT4H`,
        /// `P1DT12H`); years and months are refused. Each number has at most 3 digits for weeks,
        /// 4 for days, 5 for hours, 7 for minutes and 9 for seconds.
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        offset: IsoDuration,
    },
}

/// The moment a relative due date counts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum RelativeTo {
    /// The run's creation.
    RunStart,
}

/// A rule as it is written, read strictly: serde's internally tagged enums also take a
/// variant's index as its tag (`"type": 0` read as `fixed`), which the API must refuse.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireRule {
    #[serde(rename = "type")]
    kind: RuleKind,
    #[serde(default, with = "time::serde::rfc3339::option")]
    at: Option<OffsetDateTime>,
    #[serde(default)]
    from: Option<RelativeTo>,
    #[serde(default)]
    offset: Option<IsoDuration>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum RuleKind {
    Fixed,
    Relative,
}

impl TryFrom<WireRule> for DueDateRule {
    type Error = &'static str;

    fn try_from(wire: WireRule) -> Result<Self, Self::Error> {
        match (wire.kind, wire.at, wire.from, wire.offset) {
            (RuleKind::Fixed, Some(at), None, None) => Ok(Self::Fixed { at }),
            (RuleKind::Fixed, ..) => Err("a fixed due date takes `at` (RFC 3339) and nothing else"),
            (RuleKind::Relative, None, Some(from), Some(offset)) => {
                Ok(Self::Relative { from, offset })
            }
            (RuleKind::Relative, ..) => {
                Err("a relative due date takes `from` and `offset` and nothing else")
            }
        }
    }
}

impl DueDateRule {
    /// The due moment of a run task in a run started at `run_start`.
    #[must_use]
    pub fn resolve(&self, run_start: OffsetDateTime) -> OffsetDateTime {
        match self {
            Self::Fixed { at } => *at,
            Self::Relative { offset, .. } => run_start.saturating_add(offset.duration()),
        }
    }
}

/// An ISO 8601 duration of weeks, days, hours, minutes and seconds (`P3D`, `PT4H`, `P1W`,
/// `P1DT12H`). Years and months are refused: their length depends on the calendar. Each number
/// has at most the digits its unit allows ([`DATE_UNITS`], [`TIME_UNITS`]): every duration
/// [`IsoDuration::pattern`] matches is taken, and none is longer than about 109 years.
///
/// ```
/// use procflow_domain::template::IsoDuration;
///
/// let d: IsoDuration = "P1DT12H".parse().unwrap();
/// assert_eq!(d.duration(), time::Duration::hours(36));
/// assert!("P1M".parse::<IsoDuration>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct IsoDuration {
    text: String,
    duration: Duration,
}

/// The units of the date part: designator, seconds, most digits (each alone reaches at least
/// ten years: 999 weeks, 9999 days).
pub const DATE_UNITS: [(char, i64, usize); 2] = [('W', 604_800, 3), ('D', 86_400, 4)];

/// The units of the time part, as [`DATE_UNITS`] (99999 hours, 9999999 minutes, 999999999
/// seconds).
pub const TIME_UNITS: [(char, i64, usize); 3] = [('H', 3_600, 5), ('M', 60, 7), ('S', 1, 9)];

impl IsoDuration {
    /// The grammar as an ECMA-262 regular expression (the OpenAPI `pattern`): `P`, then at
    /// least one number with its unit, in the order of [`DATE_UNITS`] and, after `T`,
    /// [`TIME_UNITS`].
    ///
    /// ```
    /// use procflow_domain::template::IsoDuration;
    ///
    /// assert!(IsoDuration::pattern().starts_with("^P("));
    /// ```
    #[must_use]
    pub fn pattern() -> String {
        let time = units_pattern(&TIME_UNITS);
        format!("^P({}(T{time})?|T{time})$", units_pattern(&DATE_UNITS))
    }

    /// The length.
    #[must_use]
    pub fn duration(&self) -> Duration {
        self.duration
    }
}

impl FromStr for IsoDuration {
    type Err = ValidationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let refuse = || {
            ValidationError::field(
                "offset",
                format!(
                    "{text:?} is not an ISO 8601 duration of weeks, days, hours, minutes and seconds, such as P3D or PT4H"
                ),
            )
        };
        let body = text.strip_prefix('P').ok_or_else(refuse)?;
        let (date_part, time_part) = match body.split_once('T') {
            Some((_, "")) => return Err(refuse()),
            Some((date, time)) => (date, Some(time)),
            None => (body, None),
        };
        let mut seconds: i64 = 0;
        let mut any = false;
        let mut add = |part: &str, units: &[(char, i64, usize)]| -> Result<(), ValidationError> {
            let mut rest = part;
            let mut next_unit = 0;
            while !rest.is_empty() {
                let digits = rest
                    .find(|c: char| !c.is_ascii_digit())
                    .ok_or_else(refuse)?;
                if digits == 0 {
                    return Err(refuse());
                }
                let designator = rest[digits..].chars().next().ok_or_else(refuse)?;
                let position = units[next_unit..]
                    .iter()
                    .position(|(unit, _, _)| *unit == designator)
                    .ok_or_else(refuse)?;
                let (_, factor, most_digits) = units[next_unit + position];
                if digits > most_digits {
                    return Err(refuse());
                }
                let amount: i64 = rest[..digits].parse().map_err(|_| refuse())?;
                next_unit += position + 1;
                seconds = amount
                    .checked_mul(factor)
                    .and_then(|s| seconds.checked_add(s))
                    .ok_or_else(refuse)?;
                any = true;
                rest = &rest[digits + designator.len_utf8()..];
            }
            Ok(())
        };
        add(date_part, &DATE_UNITS)?;
        if let Some(time_part) = time_part {
            add(time_part, &TIME_UNITS)?;
        }
        if !any {
            return Err(refuse());
        }
        Ok(Self {
            text: text.to_owned(),
            duration: Duration::seconds(seconds),
        })
    }
}

/// The numbers of `units`, each optional but in order, at least one: `(a(b)?(c)?|b(c)?|c)`.
fn units_pattern(units: &[(char, i64, usize)]) -> String {
    let one = |(unit, _, digits): &(char, i64, usize)| format!("[0-9]{{1,{digits}}}{unit}");
    let alternatives: Vec<String> = (0..units.len())
        .map(|first| {
            let rest: String = units[first + 1..]
                .iter()
                .map(|unit| format!("({})?", one(unit)))
                .collect();
            format!("{}{rest}", one(&units[first]))
        })
        .collect();
    format!("({})", alternatives.join("|"))
}

impl TryFrom<String> for IsoDuration {
    type Error = ValidationError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<IsoDuration> for String {
    fn from(duration: IsoDuration) -> Self {
        duration.text
    }
}

impl fmt::Display for IsoDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_is_read_by_its_type_name_only_with_its_own_fields() {
        use serde_json::json;
        let fixed = json!({"type": "fixed", "at": "2026-01-02T03:04:05Z"});
        let rule: DueDateRule = serde_json::from_value(fixed.clone()).unwrap();
        assert_eq!(
            serde_json::to_value(&rule).unwrap(),
            fixed,
            "written as read"
        );
        let relative = json!({"type": "relative", "from": "run_start", "offset": "P3D"});
        let rule: DueDateRule = serde_json::from_value(relative.clone()).unwrap();
        assert_eq!(serde_json::to_value(&rule).unwrap(), relative);
        for refused in [
            // A variant's index, which serde's tagged enums would take.
            json!({"type": 0, "at": "2026-01-02T03:04:05Z"}),
            json!({"type": 1, "from": "run_start", "offset": "P3D"}),
            json!({"type": "Fixed", "at": "2026-01-02T03:04:05Z"}),
            json!({"at": "2026-01-02T03:04:05Z"}),
            json!({"type": "fixed"}),
            json!({"type": "fixed", "at": "2026-01-02T03:04:05Z", "offset": "P3D"}),
            json!({"type": "relative", "from": "run_start"}),
            json!({"type": "relative", "offset": "P3D", "from": "run_start", "at": "2026-01-02T03:04:05Z"}),
            json!({"type": "relative", "from": "run_start", "offset": "P3D", "extra": 1}),
        ] {
            assert!(
                serde_json::from_value::<DueDateRule>(refused.clone()).is_err(),
                "{refused} was read"
            );
        }
    }

    #[test]
    fn durations_of_weeks_days_and_times_are_read() {
        let cases = [
            ("P3D", 3 * 86_400),
            ("P1W", 604_800),
            ("PT4H", 4 * 3_600),
            ("PT90S", 90),
            ("P1DT2H30M", 86_400 + 2 * 3_600 + 30 * 60),
            ("P0D", 0),
            ("P5000D", 5_000 * 86_400),
            (
                "P999W9999DT99999H9999999M999999999S",
                999 * 604_800 + 9_999 * 86_400 + 99_999 * 3_600 + 9_999_999 * 60 + 999_999_999,
            ),
        ];
        for (text, seconds) in cases {
            let parsed: IsoDuration = text.parse().unwrap();
            assert_eq!(parsed.duration(), Duration::seconds(seconds), "{text}");
            assert_eq!(parsed.to_string(), text);
        }
    }

    #[test]
    fn malformed_and_calendar_durations_are_refused() {
        for bad in [
            "",
            "P",
            "PT",
            "3D",
            "P1Y",
            "P1M",
            "PT1D",
            "P1H",
            "P1D2",
            "P-1D",
            "P1.5D",
            "PD",
            "P1DT",
            "P2D1W",
            "P99999999999999999999D",
            "P10000D",
            "P1000W",
            "PT100000H",
            "PT0000000001S",
            "p3d",
        ] {
            assert!(bad.parse::<IsoDuration>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_pattern_spells_the_digit_bounds_of_each_unit() {
        let pattern = IsoDuration::pattern();
        assert_eq!(
            pattern,
            "^P(([0-9]{1,3}W([0-9]{1,4}D)?|[0-9]{1,4}D)(T([0-9]{1,5}H([0-9]{1,7}M)?([0-9]{1,9}S)?|[0-9]{1,7}M([0-9]{1,9}S)?|[0-9]{1,9}S))?|T([0-9]{1,5}H([0-9]{1,7}M)?([0-9]{1,9}S)?|[0-9]{1,7}M([0-9]{1,9}S)?|[0-9]{1,9}S))$"
        );
    }

    proptest::proptest! {
        /// The document's pattern and the parser take exactly the same durations.
        #[test]
        fn the_pattern_and_the_parser_agree(text in "P?T?([0-9]{0,10}[WDHMST]?){0,6}") {
            let pattern = regex::Regex::new(&IsoDuration::pattern()).unwrap();
            proptest::prop_assert_eq!(
                pattern.is_match(&text),
                text.parse::<IsoDuration>().is_ok(),
                "{}",
                text
            );
        }
    }

    #[test]
    fn rules_read_the_contract_shapes() {
        let fixed: DueDateRule =
            serde_json::from_str(r#"{"type":"fixed","at":"2026-12-01T09:00:00Z"}"#).unwrap();
        assert!(matches!(fixed, DueDateRule::Fixed { .. }));
        for bad in [
            r#"{"type":"fixed"}"#,
            r#"{"type":"fixed","at":"tomorrow"}"#,
            r#"{"type":"relative","from":"run_end","offset":"P1D"}"#,
            r#"{"type":"relative","from":"run_start","offset":"P1M"}"#,
            r#"{"type":"weekly"}"#,
            r#"{"type":"fixed","at":"2026-12-01T09:00:00Z","extra":1}"#,
        ] {
            assert!(serde_json::from_str::<DueDateRule>(bad).is_err(), "{bad}");
        }
    }
}
