//! A custom element (spec 2.7): `options` only on dropdown and multichoice, `file_url` only on
//! file elements.

use procflow_domain::element::{CustomElement, ElementType};
use procflow_domain::ids::ElementId;
use serde::Serialize;
use serde_json::Value;

/// A form field with its current value (spec 2.7). `options` only on dropdown and
/// multichoice elements, `file_url` only on file elements.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = Element)]
pub struct ElementView<'a> {
    #[schema(value_type = String, format = "uuid")]
    id: ElementId,
    #[serde(rename = "type")]
    element_type: ElementType,
    label: &'a str,
    /// The current value, of the element type's kind (a string, number, boolean or array of
    /// strings); the content (HTML or a URL) of display-only `text`, `image` and `video`; null
    /// when unset.
    #[schema(value_type = Value, required = true)]
    value: Option<&'a Value>,
    required: bool,
    /// True for informational elements that accept no input.
    display_only: bool,
    /// The choices of a dropdown or multichoice element.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Vec<String>)]
    options: Option<&'a [String]>,
    /// The attachment of a file element.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = "uri")]
    file_url: Option<Option<&'a str>>,
}

impl<'a> From<&'a CustomElement> for ElementView<'a> {
    fn from(element: &'a CustomElement) -> Self {
        Self {
            id: element.id,
            element_type: element.element_type,
            label: &element.label,
            value: element.value.as_ref(),
            required: element.required,
            display_only: element.is_display_only(),
            options: element
                .options
                .as_deref()
                .filter(|_| element.element_type.has_options()),
            file_url: element
                .element_type
                .has_file_url()
                .then_some(element.file_url.as_deref()),
        }
    }
}

/// Every element of a task.
pub fn elements(elements: &[CustomElement]) -> Vec<ElementView<'_>> {
    elements.iter().map(ElementView::from).collect()
}
