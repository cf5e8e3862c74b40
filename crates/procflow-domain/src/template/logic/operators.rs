//! The operators of a condition: which fit which element type, what `value` each takes, and
//! whether a condition holds of an element's current value. The one table of the API's
//! operators by type is [`OPERATORS_BY_TYPE`]; the OpenAPI document and `docs/api.md` show it.

use serde_json::Value;
use time::Date;
use time::macros::format_description;

use super::{Condition, Operator};
use crate::element::{CustomElement, ElementType};
use crate::limits::{self, MAX_TITLE_CHARS};

/// Which operators fit each element type, and what their `value` is, as the API documents it
/// (Markdown; a test holds it to [`Operator::of`]). The OpenAPI schema of a condition reads the
/// same file.
pub const OPERATORS_BY_TYPE: &str = include_str!("operators.md");

impl Operator {
    /// The operators that fit an element of type `element_type` (none for display-only types).
    ///
    /// ```
    /// use procflow_domain::element::ElementType;
    /// use procflow_domain::template::Operator;
    ///
    /// assert!(Operator::GreaterThan.fits(ElementType::Date));
    /// assert!(!Operator::Contains.fits(ElementType::Dropdown));
    /// assert!(Operator::of(ElementType::Text).is_empty());
    /// ```
    #[must_use]
    pub const fn of(element_type: ElementType) -> &'static [Self] {
        use Operator::{Contains, Empty, Equal, GreaterThan, LessThan, NotContains, NotEqual, Set};
        match element_type {
            ElementType::ShortText
            | ElementType::LongText
            | ElementType::Email
            | ElementType::Website
            | ElementType::Multichoice => &[Equal, NotEqual, Contains, NotContains, Set, Empty],
            ElementType::Number | ElementType::Date => {
                &[Equal, NotEqual, GreaterThan, LessThan, Set, Empty]
            }
            ElementType::Checkbox | ElementType::Dropdown => &[Equal, NotEqual, Set, Empty],
            ElementType::Text
            | ElementType::Image
            | ElementType::Video
            | ElementType::File
            | ElementType::LineBreak => &[],
        }
    }

    /// Whether the operator fits an element of type `element_type`.
    #[must_use]
    pub fn fits(self, element_type: ElementType) -> bool {
        Self::of(element_type).contains(&self)
    }

    /// Whether the operator compares with a `value` (all but `set` and `empty`).
    #[must_use]
    pub const fn takes_value(self) -> bool {
        !matches!(self, Self::Set | Self::Empty)
    }
}

/// Every element type with the operators that fit it ([`Operator::of`]): what
/// [`OPERATORS_BY_TYPE`] must agree with.
#[must_use]
pub fn operator_table() -> Vec<(ElementType, Vec<Operator>)> {
    ElementType::ALL
        .into_iter()
        .map(|t| (t, Operator::of(t).to_vec()))
        .collect()
}

/// Checks a condition's operator and value against the element it tests: the message says
/// what is wrong (the caller names the rule).
pub(super) fn check(condition: &Condition<String>, element: &CustomElement) -> Result<(), String> {
    let kind = element.element_type;
    if kind.is_display_only() {
        return Err(format!(
            "element {} is display-only: it has no value to test",
            element.name()
        ));
    }
    let is = condition.is;
    if !is.fits(kind) {
        let fitting: Vec<&str> = Operator::of(kind).iter().map(|o| o.as_str()).collect();
        return Err(format!(
            "{is} does not apply to element {} of type {kind}; its operators are {}",
            element.name(),
            fitting.join(", ")
        ));
    }
    let value = condition.value.as_ref().filter(|v| !v.is_null());
    let Some(value) = value else {
        return if is.takes_value() {
            Err(format!("{is} needs a value to compare with"))
        } else {
            Ok(())
        };
    };
    if !is.takes_value() {
        return Err(format!("{is} takes no value"));
    }
    match (is, kind) {
        (Operator::Contains | Operator::NotContains, ElementType::Multichoice) => {
            let allowed = element.options.as_deref().unwrap_or_default();
            match value.as_str() {
                Some(option) if allowed.iter().any(|o| o == option) => Ok(()),
                _ => Err(format!(
                    "{is} on element {} takes one of its options: {}",
                    element.name(),
                    allowed
                        .iter()
                        .map(|o| format!("{o:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            }
        }
        (Operator::Contains | Operator::NotContains, _) => match value.as_str() {
            Some(text) if !text.trim().is_empty() => {
                limits::check_text(text, MAX_TITLE_CHARS).map_err(|m| format!("value {m}"))
            }
            _ => Err(format!("{is} takes a non-empty string")),
        },
        _ => element
            .validate_write(value)
            .map(|_| ())
            .map_err(|e| format!("value: {e}")),
    }
}

impl<E> Condition<E> {
    /// Whether the condition holds of `value`, the current value of its element, of type
    /// `element_type` (`None` when unset). Conditions were checked against their element when
    /// the template was written, so a value of another shape simply does not match.
    ///
    /// ```
    /// use procflow_domain::element::ElementType;
    /// use procflow_domain::template::{Condition, Operator};
    /// use serde_json::json;
    ///
    /// let tags = Condition { element: (), is: Operator::Contains, value: Some(json!("vip")) };
    /// assert!(tags.holds(ElementType::Multichoice, Some(&json!(["new", "vip"]))));
    /// assert!(!tags.holds(ElementType::Multichoice, None));
    /// let after = Condition { element: (), is: Operator::GreaterThan, value: Some(json!("2026-12-01")) };
    /// assert!(after.holds(ElementType::Date, Some(&json!("2027-01-15"))));
    /// ```
    #[must_use]
    pub fn holds(&self, element_type: ElementType, value: Option<&Value>) -> bool {
        holds(self, element_type, value)
    }
}

fn holds<E>(condition: &Condition<E>, element_type: ElementType, value: Option<&Value>) -> bool {
    let value = value.filter(|v| !v.is_null());
    let wanted = condition.value.as_ref();
    match condition.is {
        Operator::Equal => equal(element_type, value, wanted),
        Operator::NotEqual => !equal(element_type, value, wanted),
        Operator::Contains => contains(value, wanted),
        Operator::NotContains => !contains(value, wanted),
        Operator::Set => !is_empty(value),
        Operator::Empty => is_empty(value),
        Operator::GreaterThan => compare(value, wanted) == Some(std::cmp::Ordering::Greater),
        Operator::LessThan => compare(value, wanted) == Some(std::cmp::Ordering::Less),
    }
}

fn is_empty(value: Option<&Value>) -> bool {
    match value {
        None => true,
        Some(Value::String(text)) => text.trim().is_empty(),
        Some(Value::Array(items)) => items.is_empty(),
        Some(_) => false,
    }
}

fn equal(element_type: ElementType, value: Option<&Value>, wanted: Option<&Value>) -> bool {
    let (Some(value), Some(wanted)) = (value, wanted) else {
        return false;
    };
    match (value, wanted) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().all(|item| b.contains(item))
        }
        // Addresses are equal whatever the case of their letters, as members' emails are.
        (Value::String(a), Value::String(b)) if element_type == ElementType::Email => {
            a.eq_ignore_ascii_case(b)
        }
        (a, b) => a == b,
    }
}

fn contains(value: Option<&Value>, wanted: Option<&Value>) -> bool {
    let (Some(value), Some(Value::String(needle))) = (value, wanted) else {
        return false;
    };
    match value {
        Value::String(text) => text.to_lowercase().contains(&needle.to_lowercase()),
        Value::Array(items) => items.iter().any(|item| item.as_str() == Some(needle)),
        _ => false,
    }
}

fn compare(value: Option<&Value>, wanted: Option<&Value>) -> Option<std::cmp::Ordering> {
    match (value?, wanted?) {
        (Value::Number(a), Value::Number(b)) => a.as_f64()?.partial_cmp(&b.as_f64()?),
        (Value::String(a), Value::String(b)) => {
            let format = format_description!("[year]-[month]-[day]");
            let (a, b) = (Date::parse(a, format).ok()?, Date::parse(b, format).ok()?);
            Some(a.cmp(&b))
        }
        _ => None,
    }
}
