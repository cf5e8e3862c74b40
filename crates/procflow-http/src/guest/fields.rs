//! One element of a task as the page shows it: an input of the kind its type needs (with its
//! current value, or what the guest just sent), or the content of a display-only element.

use procflow_domain::element::{CustomElement, ElementType, is_web_url};
use procflow_domain::error::ValidationError;
use serde_json::Value;

use super::sanitize;

/// An element on the page.
pub(crate) struct FieldView {
    /// The id of its input (and the anchor of its error): short, by positions on the page, as
    /// it is repeated on every input (`f<task>-<element>`).
    pub(crate) dom: String,
    /// The name its input posts under: `el-<element id>`.
    pub(crate) name: String,
    pub(crate) label: String,
    pub(crate) required: bool,
    /// The refusal of what the guest sent, beside the input.
    pub(crate) error: Option<String>,
    /// The current value as text, for a task shown read-only; empty when unset.
    pub(crate) shown: String,
    pub(crate) kind: Kind,
}

/// How an element is shown.
pub(crate) enum Kind {
    /// `<input>` of this type (text, number, email, url, date) and value.
    Line(&'static str, String),
    /// `<textarea>`.
    Lines(String),
    /// A single checkbox, checked or not.
    Checkbox(bool),
    /// `<select>` of the options, one empty choice first.
    Select(Vec<Choice>),
    /// A checkbox per option.
    Choices(Vec<Choice>),
    /// Cleaned HTML.
    Rich(String),
    /// An image at this address.
    Image(String),
    /// A link to this address, to a video or a file.
    Link(String, &'static str),
    /// A rule.
    Rule,
    /// Display-only content with no usable address: the label alone.
    Nothing,
}

/// One option of a select or of multichoice checkboxes.
pub(crate) struct Choice {
    pub(crate) dom: String,
    pub(crate) value: String,
    pub(crate) selected: bool,
}

impl FieldView {
    /// Whether the element takes input (and so has a value to show).
    pub(crate) fn is_input(&self) -> bool {
        matches!(
            self.kind,
            Kind::Line(..)
                | Kind::Lines(_)
                | Kind::Checkbox(_)
                | Kind::Select(_)
                | Kind::Choices(_)
        )
    }

    /// The id of its error message, for `aria-describedby`.
    pub(crate) fn error_id(&self) -> String {
        format!("{}-error", self.dom)
    }
}

/// The element as the page shows it, its input's id `dom`; `sent` is what the guest's refused
/// post held for it (its texts), shown instead of the stored value so that nothing typed is
/// lost.
pub(super) fn field(
    element: &CustomElement,
    dom: String,
    sent: Option<&[String]>,
    error: Option<String>,
) -> FieldView {
    let stored = element.value.as_ref();
    let text = || match sent {
        Some(texts) => texts.first().cloned().unwrap_or_default(),
        None => stored.map(value_text).unwrap_or_default(),
    };
    let chosen = |option: &str| match sent {
        Some(texts) => texts.iter().any(|t| t == option),
        None => match stored {
            Some(Value::String(s)) => s == option,
            Some(Value::Array(items)) => items.iter().any(|i| i.as_str() == Some(option)),
            _ => false,
        },
    };
    let choices = || {
        element
            .options
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, option)| Choice {
                dom: format!("{dom}-{i}"),
                value: option.clone(),
                selected: chosen(option),
            })
            .collect()
    };
    let web = |url: Option<&str>| url.filter(|u| is_web_url(u)).map(str::to_owned);
    let kind = match element.element_type {
        ElementType::ShortText => Kind::Line("text", text()),
        ElementType::Number => Kind::Line("number", text()),
        ElementType::Email => Kind::Line("email", text()),
        ElementType::Website => Kind::Line("url", text()),
        ElementType::Date => Kind::Line("date", text()),
        ElementType::LongText => Kind::Lines(text()),
        ElementType::Checkbox => Kind::Checkbox(match sent {
            Some(texts) => !texts.is_empty(),
            None => stored == Some(&Value::Bool(true)),
        }),
        ElementType::Dropdown => Kind::Select(choices()),
        ElementType::Multichoice => Kind::Choices(choices()),
        ElementType::Text => Kind::Rich(sanitize::clean(
            stored.and_then(Value::as_str).unwrap_or_default(),
        )),
        ElementType::Image => {
            web(stored.and_then(Value::as_str)).map_or(Kind::Nothing, Kind::Image)
        }
        ElementType::Video => web(stored.and_then(Value::as_str))
            .map_or(Kind::Nothing, |url| Kind::Link(url, "video")),
        ElementType::File => {
            web(element.file_url.as_deref()).map_or(Kind::Nothing, |url| Kind::Link(url, "file"))
        }
        ElementType::LineBreak => Kind::Rule,
    };
    FieldView {
        name: format!("el-{}", element.id),
        dom,
        label: element.label.clone(),
        required: element.required && !element.is_display_only(),
        error,
        shown: shown(element),
        kind,
    }
}

/// A stored value as text in an input.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A stored value as a read-only task shows it.
fn shown(element: &CustomElement) -> String {
    match (&element.value, element.element_type) {
        (None, _) => String::new(),
        (Some(Value::Bool(true)), ElementType::Checkbox) => "Yes".to_owned(),
        (Some(Value::Bool(false)), ElementType::Checkbox) => "No".to_owned(),
        (Some(Value::Array(items)), _) => {
            items.iter().map(value_text).collect::<Vec<_>>().join(", ")
        }
        (Some(value), _) => value_text(value),
    }
}

/// What a guest reads about a refused entry.
pub(super) fn message(error: &ValidationError) -> String {
    match error {
        ValidationError::InvalidValue { expected, .. } => format!("Expected {expected}."),
        ValidationError::InvalidOption { value, allowed, .. } => format!(
            "\u{201c}{value}\u{201d} is not one of the options: {}.",
            allowed.join(", ")
        ),
        ValidationError::Field { field, message } if field == "comment" => {
            format!("The comment {message}.")
        }
        ValidationError::Field { message, .. } => capitalise(message),
        ValidationError::DisplayOnly { .. } => "This field cannot be changed.".to_owned(),
        other => capitalise(&other.to_string()),
    }
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect::<String>() + "."
    })
}
