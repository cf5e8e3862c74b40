//! A task's custom elements as a store holds them, not parsed.

use super::CustomElement;

/// A task's custom elements as a JSON array in [`CustomElement`]'s serde form (spec 2.7's
/// element), as a store read them and not parsed. Listings carry their tasks' elements so and
/// their answer copies the text: a page of 50 tasks holds 150 elements, which it would
/// otherwise build one by one only to write them out again (two fifths of such a request's
/// instructions). The key order and spacing are the store's (PostgreSQL's `jsonb` writes its
/// own).
///
/// ```
/// use procflow_domain::element::{CustomElement, ElementType, StoredElements};
/// use procflow_domain::ids::ElementId;
///
/// let element = CustomElement {
///     id: ElementId::from_uuid(uuid::Uuid::nil()),
///     reference: None,
///     element_type: ElementType::ShortText,
///     label: "Name".to_owned(),
///     required: true,
///     value: None,
///     options: None,
///     file_url: None,
/// };
/// let stored = StoredElements::of(std::slice::from_ref(&element))?;
/// assert_eq!(stored.parse()?, vec![element]);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StoredElements(String);

impl StoredElements {
    /// Elements as a store read them. Not checked here: [`StoredElements::parse`] and the
    /// views that write them say when the text is not what a store writes.
    #[must_use]
    pub fn from_json(text: String) -> Self {
        Self(text)
    }

    /// Elements as a store writes them.
    ///
    /// # Errors
    /// Never for elements that came out of this crate (serde_json refuses only maps with
    /// keys that are not strings, which no element holds).
    pub fn of(elements: &[CustomElement]) -> Result<Self, serde_json::Error> {
        serde_json::to_string(elements).map(Self)
    }

    /// The JSON text.
    #[must_use]
    pub fn as_json(&self) -> &str {
        &self.0
    }

    /// Whether the text is in the form [`CustomElement`] is written in now, spec 2.7's element
    /// (as opposed to the form written before 2026-11-27, which [`StoredElements::parse`]
    /// reads too, and which has no `display_only`). Only an element object can hold the key
    /// `display_only` followed by a colon: inside a JSON string its quotes would be escaped,
    /// and no element value is an object; a task's elements are always written together.
    ///
    /// ```
    /// use procflow_domain::element::StoredElements;
    ///
    /// let now = r#"[{"id": "x", "label": "\"display_only\": true", "display_only": false}]"#;
    /// let before = r#"[{"id": "x", "label": "\"display_only\": true", "required": true}]"#;
    /// assert!(StoredElements::from_json(now.to_owned()).in_api_form());
    /// assert!(!StoredElements::from_json(before.to_owned()).in_api_form());
    /// ```
    #[must_use]
    pub fn in_api_form(&self) -> bool {
        self.0 == "[]" || self.0.contains("\"display_only\":")
    }

    /// The elements, parsed.
    ///
    /// # Errors
    /// When the text is not a JSON array of elements.
    pub fn parse(&self) -> Result<Vec<CustomElement>, serde_json::Error> {
        serde_json::from_str(&self.0)
    }
}
