//! A custom element (spec 2.7): `options` only on dropdown and multichoice, `file_url` only on
//! file elements.

use procflow_domain::element::{CustomElement, ElementType};
use procflow_domain::ids::ElementId;
use serde::Serialize;
use serde_json::Value;

/// A form field with its current value.
#[derive(Serialize)]
pub struct ElementView<'a> {
    id: ElementId,
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
            file_url: (element.element_type == ElementType::File)
                .then_some(element.file_url.as_deref()),
        }
    }
}

/// Every element of a task.
pub fn elements(elements: &[CustomElement]) -> Vec<ElementView<'_>> {
    elements.iter().map(ElementView::from).collect()
}
