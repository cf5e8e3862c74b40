//! Custom elements (form fields): their 14 types and the one validator for written values.

mod validate;

pub use validate::is_web_url;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ids::ElementId;
use crate::names::named;

named! {
    /// The 14 types of a custom element (spec 2.7), written in camelCase; the last five are
    /// display only.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    pub enum ElementType as "element type" {
        /// Single-line text; accepts a string.
        ShortText = "shortText",
        /// Multi-line text; accepts a string.
        LongText = "longText",
        /// Numeric input; accepts a JSON number.
        Number = "number",
        /// An email address; accepts a string that is one.
        Email = "email",
        /// A URL; accepts an absolute `http` or `https` URL.
        Website = "website",
        /// A date; accepts an ISO 8601 calendar date, `YYYY-MM-DD`.
        Date = "date",
        /// A boolean.
        Checkbox = "checkbox",
        /// Single select; accepts one of the element's options.
        Dropdown = "dropdown",
        /// Multi select; accepts an array of the element's options.
        Multichoice = "multichoice",
        /// A rich text / HTML block; display only.
        Text = "text",
        /// An embedded image; display only.
        Image = "image",
        /// An embedded video; display only.
        Video = "video",
        /// A file attachment; display only.
        File = "file",
        /// A visual separator; display only.
        LineBreak = "lineBreak",
    }
}

impl ElementType {
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
        // Every type named, here and in the predicates below, so that a new type is a compile
        // error until someone decides its answer.
        match self {
            Self::ShortText
            | Self::LongText
            | Self::Number
            | Self::Email
            | Self::Website
            | Self::Date
            | Self::Checkbox
            | Self::Dropdown
            | Self::Multichoice => false,
            Self::Text | Self::Image | Self::Video | Self::File | Self::LineBreak => true,
        }
    }

    /// Whether elements of this type carry `options`.
    #[must_use]
    pub const fn has_options(self) -> bool {
        match self {
            Self::Dropdown | Self::Multichoice => true,
            Self::ShortText
            | Self::LongText
            | Self::Number
            | Self::Email
            | Self::Website
            | Self::Date
            | Self::Checkbox
            | Self::Text
            | Self::Image
            | Self::Video
            | Self::File
            | Self::LineBreak => false,
        }
    }

    /// Whether elements of this type carry a `file_url`.
    ///
    /// ```
    /// use procflow_domain::element::ElementType;
    ///
    /// assert!(ElementType::File.has_file_url());
    /// assert!(!ElementType::Image.has_file_url());
    /// ```
    #[must_use]
    pub const fn has_file_url(self) -> bool {
        match self {
            Self::File => true,
            Self::ShortText
            | Self::LongText
            | Self::Number
            | Self::Email
            | Self::Website
            | Self::Date
            | Self::Checkbox
            | Self::Dropdown
            | Self::Multichoice
            | Self::Text
            | Self::Image
            | Self::Video
            | Self::LineBreak => false,
        }
    }
}

/// A form field of a template task or a run task.
///
/// On an input element `value` is the current value (`None` when unset); on a display-only one
/// it is the content shown (HTML for `text`, a URL for `image` and `video`).
#[derive(Clone, Debug, PartialEq, Hash, Serialize, Deserialize)]
pub struct CustomElement {
    /// Unique within its task; runs keep the template's element ids.
    pub id: ElementId,
    /// Its document-local name, if any (API contract 12.1); runs keep it.
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<crate::template::Ref>,
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
