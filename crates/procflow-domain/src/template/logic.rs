//! Process logic in a template (API contract 12.1): the rules that show and hide tasks from
//! form values, and the operators their conditions use; tasks and elements are named in them
//! by [`crate::reference::Ref`]. The checks that turn a document's rules and dependencies into
//! a template's live in `resolve`; what a condition means for a value, in `operators`.

mod graph;
mod operators;
mod resolve;

pub use operators::{OPERATORS_BY_TYPE, operator_table};
pub(crate) use resolve::{LogicSources, resolve};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ids::{ElementId, TemplateTaskId};
use crate::names::named;

/// The most rules a template may have.
pub const MAX_RULES: usize = 200;

/// The most conditions an `all` or an `any` may hold.
pub const MAX_CONDITIONS: usize = 20;

named! {
    /// How a condition compares an element's current value. Which operators fit which element
    /// type, and what each compares with, is the table of a condition (`OPERATORS_BY_TYPE`).
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    pub enum Operator as "operator" {
        /// The value equals `value` (a multichoice: the same options, in any order).
        Equal = "equal",
        /// The value is unset or differs from `value`.
        NotEqual = "not_equal",
        /// Text: holds `value`, ignoring case; multichoice: `value` is among the options chosen.
        Contains = "contains",
        /// The negation of `contains` (so also true of an unset value).
        NotContains = "not_contains",
        /// The value is set: neither null, blank text nor an empty choice.
        Set = "set",
        /// The value is null, blank text or an empty choice.
        Empty = "empty",
        /// A number or a date after `value`.
        GreaterThan = "greater_than",
        /// A number or a date before `value`.
        LessThan = "less_than",
    }
}

/// One test of one element's current value: `{"element", "is", "value"?}`.
///
/// `E` names the element: a reference (its `ref` or id) in a document, an [`ElementId`] in a
/// template and a run, an index in a run's [`LogicPlan`](crate::run::LogicPlan).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition<E> {
    /// The element whose value is tested.
    pub element: E,
    /// How.
    pub is: Operator,
    /// What it is compared with; absent for `set` and `empty`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
}

/// A rule's `if`: one condition, or `{"all": [...]}`, or `{"any": [...]}` (one level, 1 to
/// [`MAX_CONDITIONS`] conditions).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "WhenParts<E>", into = "WhenParts<E>")]
#[serde(bound(
    serialize = "E: Serialize + Clone",
    deserialize = "E: Deserialize<'de>"
))]
pub enum When<E> {
    /// Holds when the condition does.
    One(Condition<E>),
    /// Holds when every condition does.
    All(Vec<Condition<E>>),
    /// Holds when at least one condition does.
    Any(Vec<Condition<E>>),
}

/// A rule: when `if` holds, the tasks of `show` are shown and those of `hide` hidden.
///
/// A task named in the `show` of some rule is hidden while none of those rules holds; a task
/// named in the `hide` of a rule that holds is hidden. `T` names tasks as `E` names elements.
///
/// ```
/// use procflow_domain::template::{Operator, RuleDocument, When};
/// use serde_json::json;
///
/// let rule: RuleDocument = serde_json::from_value(json!({
///     "if": {"element": "remote", "is": "equal", "value": true},
///     "show": ["ship-laptop"]
/// }))
/// .unwrap();
/// let When::One(condition) = &rule.when else { panic!("one condition") };
/// assert_eq!(condition.is, Operator::Equal);
/// assert!(rule.hide.is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(bound(
    serialize = "T: Serialize, E: Serialize + Clone",
    deserialize = "T: Deserialize<'de>, E: Deserialize<'de>"
))]
pub struct Rule<T, E> {
    /// When the rule holds.
    #[serde(rename = "if")]
    pub when: When<E>,
    /// The tasks shown while it holds (and hidden while no rule showing them holds).
    #[serde(default)]
    pub show: Vec<T>,
    /// The tasks hidden while it holds.
    #[serde(default)]
    pub hide: Vec<T>,
}

/// A rule as an authoring document writes it: tasks and elements named by `ref` or id.
pub type RuleDocument = Rule<String, String>;

/// A rule of a template: tasks and elements named by id.
pub type TemplateRule = Rule<TemplateTaskId, ElementId>;

impl<E> When<E> {
    /// Its conditions, whichever its form.
    #[must_use]
    pub fn conditions(&self) -> &[Condition<E>] {
        match self {
            Self::One(condition) => std::slice::from_ref(condition),
            Self::All(conditions) | Self::Any(conditions) => conditions,
        }
    }

    /// Whether it holds, given whether each of its conditions does.
    pub fn holds_by(&self, mut holds: impl FnMut(&Condition<E>) -> bool) -> bool {
        match self {
            Self::One(condition) => holds(condition),
            Self::All(conditions) => conditions.iter().all(holds),
            Self::Any(conditions) => conditions.iter().any(holds),
        }
    }

    /// The same test with its elements named otherwise.
    ///
    /// # Errors
    /// The first error of `name`.
    pub fn try_map<F, X>(&self, mut name: impl FnMut(&E) -> Result<F, X>) -> Result<When<F>, X> {
        let mut map = |c: &Condition<E>| {
            Ok(Condition {
                element: name(&c.element)?,
                is: c.is,
                value: c.value.clone(),
            })
        };
        Ok(match self {
            Self::One(condition) => When::One(map(condition)?),
            Self::All(conditions) => {
                When::All(conditions.iter().map(map).collect::<Result<_, _>>()?)
            }
            Self::Any(conditions) => {
                When::Any(conditions.iter().map(map).collect::<Result<_, _>>()?)
            }
        })
    }
}

impl<T, E> Rule<T, E> {
    /// The same rule with its tasks and elements named otherwise.
    ///
    /// # Errors
    /// The first error of `task` or `element`.
    pub fn try_map<U, F, X>(
        &self,
        mut task: impl FnMut(&T) -> Result<U, X>,
        element: impl FnMut(&E) -> Result<F, X>,
    ) -> Result<Rule<U, F>, X> {
        Ok(Rule {
            when: self.when.try_map(element)?,
            show: self.show.iter().map(&mut task).collect::<Result<_, _>>()?,
            hide: self.hide.iter().map(&mut task).collect::<Result<_, _>>()?,
        })
    }
}

/// The JSON of a [`When`]: the fields of a condition, or `all`, or `any`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WhenParts<E> {
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    element: Option<E>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    is: Option<Operator>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<Value>,
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    all: Option<Vec<Condition<E>>>,
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    any: Option<Vec<Condition<E>>>,
}

const fn none<T>() -> Option<T> {
    None
}

impl<E> TryFrom<WhenParts<E>> for When<E> {
    type Error = String;

    fn try_from(parts: WhenParts<E>) -> Result<Self, Self::Error> {
        let shape = "is one condition {\"element\", \"is\", \"value\"?}, or {\"all\": [...]}, \
                     or {\"any\": [...]}";
        let count = |conditions: &Vec<Condition<E>>| {
            if (1..=MAX_CONDITIONS).contains(&conditions.len()) {
                Ok(())
            } else {
                Err(format!(
                    "holds 1 to {MAX_CONDITIONS} conditions, not {}",
                    conditions.len()
                ))
            }
        };
        match parts {
            WhenParts {
                element: Some(element),
                is: Some(is),
                value,
                all: None,
                any: None,
            } => Ok(Self::One(Condition { element, is, value })),
            WhenParts {
                element: None,
                is: None,
                value: None,
                all: Some(all),
                any: None,
            } => count(&all).map(|()| Self::All(all)),
            WhenParts {
                element: None,
                is: None,
                value: None,
                all: None,
                any: Some(any),
            } => count(&any).map(|()| Self::Any(any)),
            WhenParts {
                element: Some(_),
                is: None,
                all: None,
                any: None,
                ..
            } => Err("a condition needs `is`, its operator".to_owned()),
            WhenParts {
                element: None,
                is: Some(_),
                all: None,
                any: None,
                ..
            } => Err("a condition needs `element`, the element it tests".to_owned()),
            _ => Err(format!("`if` {shape}")),
        }
    }
}

impl<E> From<When<E>> for WhenParts<E> {
    fn from(when: When<E>) -> Self {
        let mut parts = Self {
            element: None,
            is: None,
            value: None,
            all: None,
            any: None,
        };
        match when {
            When::One(condition) => {
                parts.element = Some(condition.element);
                parts.is = Some(condition.is);
                parts.value = condition.value;
            }
            When::All(all) => parts.all = Some(all),
            When::Any(any) => parts.any = Some(any),
        }
        parts
    }
}

#[cfg(test)]
mod tests;
