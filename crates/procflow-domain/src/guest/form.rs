//! The form a guest posts for one task: what each input sent, as text, and the button pressed;
//! read into the values its elements store (an empty field is null, an unchecked checkbox is
//! false) and the patch of the state machine the button stands for.

use serde_json::{Number, Value};

use crate::element::{CustomElement, ElementType};
use crate::error::ValidationError;
use crate::ids::ElementId;
use crate::limits::{self, MAX_COMMENT_CHARS};
use crate::names::named;
use crate::run::{Decision, ElementWrite, RunTask, TaskPatch};

named! {
    /// The button a guest pressed.
    pub enum GuestIntent as "action" {
        /// Store the values.
        Save = "save",
        /// Store the values and complete the task.
        Complete = "complete",
        /// Reopen a completed task; no values are stored.
        Reopen = "reopen",
        /// Store the values and approve an approval task (with an optional comment).
        Approve = "approve",
        /// Store the values and reject an approval task (with an optional comment).
        Reject = "reject",
    }
}

/// One task's form as posted: the button, the texts each element's inputs sent, a comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuestForm {
    /// The button pressed.
    pub intent: GuestIntent,
    /// What the inputs of each element sent, in the order sent: one text for most inputs,
    /// one per checked box of a multichoice, none for an unchecked checkbox. An input element
    /// of the task that sent nothing is an empty field.
    pub entries: Vec<(ElementId, Vec<String>)>,
    /// The comment of an approval decision; used with Approve and Reject only.
    pub comment: Option<String>,
}

/// Where on the form a refusal belongs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FormField {
    /// Beside this element's input.
    Element(ElementId),
    /// Beside the comment.
    Comment,
    /// The form as a whole (a field the task does not have, say).
    Form,
}

/// One refused entry of a form: nothing of the form is stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// Where it belongs.
    pub field: FormField,
    /// Why it is refused.
    pub error: ValidationError,
}

impl GuestForm {
    /// Reads the form against the task it was posted for: the patch its button stands for,
    /// with a value for every input element of the task (on every button but Reopen), each
    /// checked by [`CustomElement::validate_write`].
    ///
    /// # Errors
    /// Every refused entry, each with its field: a value its element refuses, several values
    /// for a one-value input, an entry for no input element of the task, a comment that is too
    /// long or holds NUL.
    pub fn patch_for(&self, task: &RunTask) -> Result<TaskPatch, Vec<FieldError>> {
        let mut errors = Vec::new();
        for (id, _) in &self.entries {
            let known = task
                .custom_elements
                .iter()
                .any(|e| e.id == *id && !e.is_display_only());
            if !known {
                errors.push(FieldError {
                    field: FormField::Form,
                    error: ValidationError::field(
                        "form",
                        format!("task {} has no input element {id}", task.name()),
                    ),
                });
            }
        }
        let decision = match self.intent {
            GuestIntent::Approve => Some(Decision::Approved),
            GuestIntent::Reject => Some(Decision::Rejected),
            GuestIntent::Save | GuestIntent::Complete | GuestIntent::Reopen => None,
        };
        // Checked whatever the button: a comment is stored with a decision only, but text with
        // NUL is refused in every input.
        let given = self
            .comment
            .as_deref()
            .filter(|comment| !comment.trim().is_empty())
            .map(normalise_newlines);
        if let Some(comment) = &given
            && let Err(message) = limits::check_text(comment, MAX_COMMENT_CHARS)
        {
            errors.push(FieldError {
                field: FormField::Comment,
                error: ValidationError::field("comment", message),
            });
        }
        let comment = decision.and(given);
        let mut writes = Vec::new();
        if self.intent != GuestIntent::Reopen {
            for element in task.custom_elements.iter().filter(|e| !e.is_display_only()) {
                let texts = self
                    .entries
                    .iter()
                    .filter(|(id, _)| *id == element.id)
                    .flat_map(|(_, texts)| texts.iter().map(String::as_str))
                    .collect::<Vec<_>>();
                match value_of(element, &texts) {
                    Ok(value) => writes.push(ElementWrite {
                        id: element.id,
                        value,
                    }),
                    Err(error) => errors.push(FieldError {
                        field: FormField::Element(element.id),
                        error,
                    }),
                }
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(TaskPatch {
            completed: match self.intent {
                GuestIntent::Complete => Some(true),
                GuestIntent::Reopen => Some(false),
                GuestIntent::Save | GuestIntent::Approve | GuestIntent::Reject => None,
            },
            custom_elements: writes,
            decision,
            comment,
            ..TaskPatch::default()
        })
    }
}

/// The value an element's inputs sent, as its element stores it: `null` for an empty field.
fn value_of(element: &CustomElement, texts: &[&str]) -> Result<Value, ValidationError> {
    let invalid = |expected: &str| ValidationError::InvalidValue {
        element: element.name(),
        expected: expected.to_owned(),
    };
    // Every other input sends one text, and a blank one is no value.
    let one = || match texts {
        [] => Ok(None),
        [text] => Ok(Some(*text).filter(|t| !t.trim().is_empty())),
        _ => Err(invalid("one value")),
    };
    let value = match element.element_type {
        // A browser sends a checked box's value ("on" unless the page says otherwise) and
        // nothing for an unchecked one.
        ElementType::Checkbox => match texts {
            [] => Value::Bool(false),
            ["true" | "on"] => Value::Bool(true),
            _ => return Err(invalid("a checkbox, checked or not")),
        },
        ElementType::Multichoice if texts.is_empty() => Value::Null,
        ElementType::Multichoice => texts.iter().map(|t| Value::from(*t)).collect(),
        ElementType::Number => match one()? {
            Some(text) => number(text.trim()).ok_or_else(|| invalid("a number"))?,
            None => Value::Null,
        },
        ElementType::ShortText => one()?.map_or(Value::Null, Value::from),
        ElementType::LongText => one()?.map_or(Value::Null, |t| normalise_newlines(t).into()),
        // What browsers strip from these inputs, a forged post may still send.
        ElementType::Email | ElementType::Website | ElementType::Date | ElementType::Dropdown => {
            one()?.map_or(Value::Null, |t| t.trim().into())
        }
        // No input: the form offers none, and `validate_write` refuses any write to them.
        ElementType::Text
        | ElementType::Image
        | ElementType::Video
        | ElementType::File
        | ElementType::LineBreak => Value::Null,
    };
    element.validate_write(&value)?;
    Ok(value)
}

/// A finite number as the number input writes it (`12`, `-0.5`, `1e3`): whole numbers up to
/// 2^53 are kept whole, so that `12` is stored as `12` rather than `12.0`.
fn number(text: &str) -> Option<Value> {
    // Rust reads `+1`, `inf` and `NaN`, which are no numbers of a number input.
    if text.starts_with('+')
        || !text
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | 'e' | 'E' | '+'))
    {
        return None;
    }
    if let Ok(whole) = text.parse::<i64>() {
        return Some(Value::from(whole));
    }
    let float = text.parse::<f64>().ok().filter(|f| f.is_finite())?;
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if float.fract() == 0.0 && float.abs() <= EXACT {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "a whole number within 2^53 converts exactly"
        )]
        return Some(Value::from(float as i64));
    }
    Number::from_f64(float).map(Value::Number)
}

/// Browsers send a textarea's line breaks as CRLF; the API stores what a JSON client would.
fn normalise_newlines(text: &str) -> String {
    text.replace("\r\n", "\n")
}

#[cfg(test)]
mod tests;
