//! Custom elements (form fields): their 14 types and the one validator for written values.

mod validate;

pub use validate::{MAX_TEXT_CHARS, is_web_url};

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ids::ElementId;

/// The 14 element types of spec 2.7, written in camelCase (`shortText`, `lineBreak`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ElementType {
    /// Single-line text; accepts a string.
    ShortText,
    /// Multi-line text; accepts a string.
    LongText,
    /// Numeric input; accepts a JSON number.
    Number,
    /// An email address; accepts a string that is one.
    Email,
    /// A URL; accepts an absolute `http` or `https` URL.
    Website,
    /// A date; accepts an ISO 8601 calendar date, `YYYY-MM-DD`.
    Date,
    /// A boolean.
    Checkbox,
    /// Single select; accepts one of the element's options.
    Dropdown,
    /// Multi select; accepts an array of the element's options.
    Multichoice,
    /// A rich text / HTML block; display only.
    Text,
    /// An embedded image; display only.
    Image,
    /// An embedded video; display only.
    Video,
    /// A file attachment; display only.
    File,
    /// A visual separator; display only.
    LineBreak,
}

impl ElementType {
    /// Every type, in the order of spec 2.7.
    pub const ALL: [Self; 14] = [
        Self::ShortText,
        Self::LongText,
        Self::Number,
        Self::Email,
        Self::Website,
        Self::Date,
        Self::Checkbox,
        Self::Dropdown,
        Self::Multichoice,
        Self::Text,
        Self::Image,
        Self::Video,
        Self::File,
        Self::LineBreak,
    ];

    /// Informational elements accept no input.
    ///
    /// ```
    /// use procflow_domain::element::ElementType;
    ///
    /// assert!(ElementType::LineBreak.is_display_only());
    /// assert!(!ElementType::Checkbox.is_display_only());
    /// ```
    #[must_use]
    pub const fn is_display_only(self) -> bool {
        matches!(
            self,
            Self::Text | Self::Image | Self::Video | Self::File | Self::LineBreak
        )
    }

    /// Whether elements of this type carry `options`.
    #[must_use]
    pub const fn has_options(self) -> bool {
        matches!(self, Self::Dropdown | Self::Multichoice)
    }

    /// The name used in the API.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ShortText => "shortText",
            Self::LongText => "longText",
            Self::Number => "number",
            Self::Email => "email",
            Self::Website => "website",
            Self::Date => "date",
            Self::Checkbox => "checkbox",
            Self::Dropdown => "dropdown",
            Self::Multichoice => "multichoice",
            Self::Text => "text",
            Self::Image => "image",
            Self::Video => "video",
            Self::File => "file",
            Self::LineBreak => "lineBreak",
        }
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A form field of a template task or a run task.
///
/// On an input element `value` is the current value (`None` when unset); on a display-only one
/// it is the content shown (HTML for `text`, a URL for `image` and `video`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomElement {
    /// Unique within its task; runs keep the template's element ids.
    pub id: ElementId,
    /// What the element is.
    #[serde(rename = "type")]
    pub element_type: ElementType,
    /// The label shown beside it.
    pub label: String,
    /// Reported when empty; does not block completion (API contract 6).
    pub required: bool,
    /// The current value or the display content.
    pub value: Option<Value>,
    /// The choices of a dropdown or multichoice element; `None` on other types.
    pub options: Option<Vec<String>>,
    /// The attachment of a `file` element; `None` on other types.
    pub file_url: Option<String>,
}

impl CustomElement {
    /// Whether the element accepts no input.
    #[must_use]
    pub fn is_display_only(&self) -> bool {
        self.element_type.is_display_only()
    }

    /// How messages name the element: its label and its id.
    #[must_use]
    pub fn name(&self) -> String {
        format!("{:?} ({})", self.label, self.id)
    }

    /// Whether a required input element is still empty.
    #[must_use]
    pub fn is_missing(&self) -> bool {
        self.required && !self.is_display_only() && self.value.is_none()
    }
}
