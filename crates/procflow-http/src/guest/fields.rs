//! One element of a task as the page shows it: an input of the kind its type needs (with its
//! current value, or what the guest just sent), or the content of a display-only element.

use std::borrow::Cow;
use std::fmt;

use askama::filters::HtmlSafe;
use askama::{FastWritable, Values};

use procflow_domain::element::{CustomElement, ElementType, is_web_url};
use procflow_domain::error::ValidationError;
use serde_json::Value;

use super::markup::Markup;
use super::sanitize;

/// An element on the page, borrowing from the run it shows.
pub(crate) struct FieldView<'a> {
    /// The id of its input (and the anchor of its error).
    pub(crate) dom: Dom,
    /// The element's id: its input posts as `el-<element id>`.
    pub(crate) element: Markup,
    pub(crate) label: &'a str,
    pub(crate) required: bool,
    /// The refusal of what the guest sent, beside the input.
    pub(crate) error: Option<String>,
    /// The current value as text, for a task shown read-only; empty when unset.
    pub(crate) shown: Cow<'a, str>,
    pub(crate) kind: Kind<'a>,
}

/// How an element is shown.
pub(crate) enum Kind<'a> {
    /// `<input>` of this type (text, number, email, url, date) and value.
    Line(&'static str, Cow<'a, str>),
    /// `<textarea>`.
    Lines(Cow<'a, str>),
    /// A single checkbox, checked or not.
    Checkbox(bool),
    /// `<select>` of the options, one empty choice first.
    Select(Vec<Choice<'a>>),
    /// A checkbox per option.
    Choices(Vec<Choice<'a>>),
    /// Cleaned HTML.
    Rich(String),
    /// An image at this address.
    Image(&'a str),
    /// A link to this address, to a video or a file.
    Link(&'a str, &'static str),
    /// A rule.
    Rule,
    /// Display-only content with no usable address: the label alone.
    Nothing,
}

/// One option of a select or of multichoice checkboxes.
pub(crate) struct Choice<'a> {
    pub(crate) dom: Dom,
    pub(crate) value: &'a str,
    pub(crate) selected: bool,
}

impl FieldView<'_> {
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

/// The id of an input on the page, by positions: `f<task>-<element>`, and `-<option>` for one
/// of a multichoice's checkboxes. Short, as it is repeated on every input, and written by the
/// template as it is: digits and hyphens, nothing to escape, and no `format!` for each of a
/// page's hundreds (a twentieth of its instructions, callgrind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dom {
    task: u32,
    element: usize,
    option: Option<usize>,
}

impl Dom {
    /// The input of a task's element, by the task's order and the element's position in it.
    pub(crate) fn field(task: u32, element: usize) -> Self {
        Self {
            task,
            element,
            option: None,
        }
    }

    /// The checkbox of one of the field's options, by the option's position.
    fn option(self, option: usize) -> Self {
        Self {
            option: Some(option),
            ..self
        }
    }
}

/// As the template writes it ([`FastWritable`]), for the anchors made outside it.
impl fmt::Display for Dom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_into(f, askama::NO_VALUES)
            .map_err(|_| fmt::Error)
    }
}

/// Digits and hyphens only.
impl HtmlSafe for Dom {}

impl FastWritable for Dom {
    fn write_into(&self, dest: &mut dyn fmt::Write, values: &dyn Values) -> askama::Result<()> {
        dest.write_char('f')?;
        self.task.write_into(dest, values)?;
        dest.write_char('-')?;
        self.element.write_into(dest, values)?;
        if let Some(option) = self.option {
            dest.write_char('-')?;
            option.write_into(dest, values)?;
        }
        Ok(())
    }
}

/// The element as the page shows it, its input's id `dom`; `sent` is what the guest's refused
/// post held for it (its texts), shown instead of the stored value so that nothing typed is
/// lost. `read_only`: the value is shown as text rather than in an input.
pub(super) fn field<'a>(
    element: &'a CustomElement,
    dom: Dom,
    sent: Option<&'a [String]>,
    error: Option<String>,
    read_only: bool,
) -> FieldView<'a> {
    let stored = element.value.as_ref();
    let text = || match sent {
        Some(texts) => Cow::Borrowed(texts.first().map_or("", String::as_str)),
        None => stored.map_or(Cow::Borrowed(""), value_text),
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
                dom: dom.option(i),
                value: option,
                selected: chosen(option),
            })
            .collect()
    };
    let web = |url: Option<&'a str>| url.filter(|u| is_web_url(u));
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
        dom,
        element: Markup::id(element.id.as_uuid()),
        label: &element.label,
        required: element.required && !element.is_display_only(),
        error,
        shown: if read_only {
            shown(element)
        } else {
            Cow::Borrowed("")
        },
        kind,
    }
}

/// A stored value as text in an input.
fn value_text(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(text) => Cow::Borrowed(text),
        Value::Null => Cow::Borrowed(""),
        other => Cow::Owned(other.to_string()),
    }
}

/// A stored value as a read-only task shows it.
fn shown(element: &CustomElement) -> Cow<'_, str> {
    let Some(value) = &element.value else {
        return Cow::Borrowed("");
    };
    // Every type named, so that a new one is a compile error until someone decides how a
    // read-only task shows it.
    match element.element_type {
        ElementType::Checkbox => match value {
            Value::Bool(true) => Cow::Borrowed("Yes"),
            Value::Bool(false) => Cow::Borrowed("No"),
            other => listed(other),
        },
        ElementType::ShortText
        | ElementType::LongText
        | ElementType::Number
        | ElementType::Email
        | ElementType::Website
        | ElementType::Date
        | ElementType::Dropdown
        | ElementType::Multichoice
        | ElementType::Text
        | ElementType::Image
        | ElementType::Video
        | ElementType::File
        | ElementType::LineBreak => listed(value),
    }
}

/// A value as text, the items of an array joined.
fn listed(value: &Value) -> Cow<'_, str> {
    match value {
        Value::Array(items) => {
            Cow::Owned(items.iter().map(value_text).collect::<Vec<_>>().join(", "))
        }
        other => value_text(other),
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

#[cfg(test)]
mod tests {
    use askama::Template;

    use super::Dom;

    #[derive(Template)]
    #[template(source = "<input id=\"{{ dom }}\">", ext = "html")]
    struct Input {
        dom: Dom,
    }

    #[test]
    fn an_input_id_is_written_by_the_template_as_it_is_formatted() {
        for (dom, id) in [
            (Dom::field(3, 1), "f3-1"),
            (Dom::field(12, 0).option(2), "f12-0-2"),
            (Dom::field(u32::MAX, 10).option(0), "f4294967295-10-0"),
        ] {
            assert_eq!(dom.to_string(), id);
            let rendered = Input { dom }.render().expect("rendered");
            assert_eq!(rendered, format!("<input id=\"{id}\">"));
        }
    }
}
