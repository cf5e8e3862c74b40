//! A custom element (spec 2.7): `options` only on dropdown and multichoice, `file_url` only on
//! file elements.

use procflow_domain::element::{CustomElement, ElementType};
use procflow_domain::ids::ElementId;
use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A form field with its current value (spec 2.7). `options` only on dropdown and
/// multichoice elements, `file_url` only on file elements.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = Element)]
pub struct ElementView<'a> {
    #[schema(value_type = String, format = "uuid")]
    pub id: ElementId,
    /// The element's document-local name (API contract 12.1), or null.
    #[serde(rename = "ref", default)]
    #[schema(required = true, pattern = "^[a-z0-9][a-z0-9_-]{0,63}$")]
    pub reference: Option<Cow<'a, str>>,
    #[serde(rename = "type")]
    pub element_type: ElementType,
    pub label: Cow<'a, str>,
    /// The current value, of the element type's kind (a string, number, boolean or array of
    /// strings); the content (HTML or a URL) of display-only `text`, `image` and `video`; null
    /// when unset.
    #[schema(value_type = Value, required = true)]
    pub value: Option<Cow<'a, Value>>,
    pub required: bool,
    /// True for informational elements that accept no input.
    pub display_only: bool,
    /// The choices of a dropdown or multichoice element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Vec<String>)]
    pub options: Option<Cow<'a, [String]>>,
    /// The attachment of a file element.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::nullable::present"
    )]
    #[schema(value_type = Option<String>, format = "uri")]
    pub file_url: Option<Option<Cow<'a, str>>>,
}

impl<'a> From<&'a CustomElement> for ElementView<'a> {
    fn from(element: &'a CustomElement) -> Self {
        Self {
            id: element.id,
            reference: element
                .reference
                .as_ref()
                .map(|r| Cow::Borrowed(r.as_str())),
            element_type: element.element_type,
            label: Cow::Borrowed(&element.label),
            value: element.value.as_ref().map(Cow::Borrowed),
            required: element.required,
            display_only: element.is_display_only(),
            options: element
                .options
                .as_deref()
                .filter(|_| element.element_type.has_options())
                .map(Cow::Borrowed),
            file_url: element
                .element_type
                .has_file_url()
                .then_some(element.file_url.as_deref().map(Cow::Borrowed)),
        }
    }
}

/// Every element of a task.
pub fn elements(elements: &[CustomElement]) -> Vec<ElementView<'_>> {
    elements.iter().map(ElementView::from).collect()
}
