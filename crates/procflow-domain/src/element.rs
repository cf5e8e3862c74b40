//! Custom elements (form fields): their 14 types and the one validator for written values.

mod stored;
mod validate;

pub use stored::StoredElements;
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
///
/// Its serde form, which the stores keep, is the element of spec 2.7 as the API writes it:
/// `ref` null when none, `display_only` from the type, `options` only on dropdown and
/// multichoice elements and `file_url` only on file elements. A listing then passes its tasks'
/// stored elements on as they are ([`StoredElements`]). Reading accepts the form written before
/// (no `display_only`, `ref` left out when none, `options` and `file_url` always there).
///
/// ```
/// use procflow_domain::element::{CustomElement, ElementType};
/// use procflow_domain::ids::ElementId;
///
/// let element = CustomElement {
///     id: ElementId::from_uuid(uuid::Uuid::nil()),
///     reference: None,
///     element_type: ElementType::Checkbox,
///     label: "Signed".to_owned(),
///     required: false,
///     value: Some(serde_json::json!(true)),
///     options: None,
///     file_url: None,
/// };
/// let json = serde_json::to_string(&element)?;
/// assert_eq!(
///     json,
///     r#"{"id":"00000000-0000-0000-0000-000000000000","ref":null,"type":"checkbox","label":"Signed","value":true,"required":false,"display_only":false}"#
/// );
/// assert_eq!(serde_json::from_str::<CustomElement>(&json)?, element);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Hash, Deserialize)]
pub struct CustomElement {
    /// Unique within its task; runs keep the template's element ids.
    pub id: ElementId,
    /// Its document-local name, if any (API contract 12.1); runs keep it.
    #[serde(rename = "ref", default)]
    pub reference: Option<crate::reference::Ref>,
    /// What the element is.
    #[serde(rename = "type")]
    pub element_type: ElementType,
    /// The label shown beside it.
    pub label: String,
    /// Reported when empty; does not block completion (API contract 6).
    pub required: bool,
    /// The current value or the display content.
    #[serde(default)]
    pub value: Option<Value>,
    /// The choices of a dropdown or multichoice element; `None` on other types.
    #[serde(default)]
    pub options: Option<Vec<String>>,
    /// The attachment of a `file` element; `None` on other types.
    #[serde(default)]
    pub file_url: Option<String>,
}

/// [`CustomElement`] as it is written: the keys and order of spec 2.7's element.
#[derive(Serialize)]
struct Written<'a> {
    id: ElementId,
    #[serde(rename = "ref")]
    reference: Option<&'a crate::reference::Ref>,
    #[serde(rename = "type")]
    element_type: ElementType,
    label: &'a str,
    value: Option<&'a Value>,
    required: bool,
    display_only: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    options: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_url: Option<Option<&'a str>>,
}

impl Serialize for CustomElement {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let kind = self.element_type;
        Written {
            id: self.id,
            reference: self.reference.as_ref(),
            element_type: kind,
            label: &self.label,
            value: self.value.as_ref(),
            required: self.required,
            display_only: kind.is_display_only(),
            options: self.options.as_deref().filter(|_| kind.has_options()),
            file_url: kind.has_file_url().then_some(self.file_url.as_deref()),
        }
        .serialize(serializer)
    }
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
