//! Elements stored in the form written before they took the API's (no `display_only`, `ref`
//! left out when none, `options` and `file_url` on every element), written as [`ElementView`]
//! writes them: each value copied as it is stored, no element built. Rows keep that form until
//! their task is next written.
//!
//! [`ElementView`]: crate::views::ElementView

use procflow_domain::element::{ElementType, StoredElements};
use serde::ser::{Error as _, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

/// Writes `stored`, in the earlier form, as the API's elements.
pub(super) fn serialize<S: Serializer>(
    stored: &StoredElements,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let elements: Vec<Stored<'_>> = serde_json::from_str(stored.as_json())
        .map_err(|e| S::Error::custom(format!("stored elements: {e}")))?;
    let mut seq = serializer.serialize_seq(Some(elements.len()))?;
    for element in &elements {
        seq.serialize_element(&Written::from(element))?;
    }
    seq.end()
}

/// An element as stored in the earlier form, each value left as its JSON text.
#[derive(Deserialize)]
struct Stored<'a> {
    #[serde(borrow)]
    id: &'a RawValue,
    #[serde(rename = "ref", default, borrow)]
    reference: Option<&'a RawValue>,
    #[serde(rename = "type")]
    element_type: ElementType,
    #[serde(borrow)]
    label: &'a RawValue,
    required: bool,
    #[serde(default, borrow)]
    value: Option<&'a RawValue>,
    #[serde(default, borrow)]
    options: Option<&'a RawValue>,
    #[serde(default, borrow)]
    file_url: Option<&'a RawValue>,
}

/// An element as `ElementView` writes it: the same keys, in the same order, present on the
/// same types.
#[derive(Serialize)]
struct Written<'a> {
    id: &'a RawValue,
    #[serde(rename = "ref")]
    reference: Option<&'a RawValue>,
    #[serde(rename = "type")]
    element_type: ElementType,
    label: &'a RawValue,
    value: Option<&'a RawValue>,
    required: bool,
    display_only: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    options: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_url: Option<Option<&'a RawValue>>,
}

impl<'a> From<&Stored<'a>> for Written<'a> {
    fn from(element: &Stored<'a>) -> Self {
        let kind = element.element_type;
        Self {
            id: element.id,
            reference: element.reference,
            element_type: kind,
            label: element.label,
            value: element.value,
            required: element.required,
            display_only: kind.is_display_only(),
            options: element.options.filter(|_| kind.has_options()),
            file_url: kind.has_file_url().then_some(element.file_url),
        }
    }
}
