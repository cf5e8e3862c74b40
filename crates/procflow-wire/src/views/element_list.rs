//! A task's elements in a run task's view: views of parsed elements, or a listing's elements
//! written straight from the store's JSON.

use procflow_domain::element::{CustomElement, StoredElements};
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use super::element::{ElementView, elements};

mod earlier;

/// A run task's custom elements (spec 2.7).
///
/// A client reads [`Views`](Self::Views), and the server writes them for a single task. A
/// listing's tasks carry their elements as the store holds them ([`StoredElements`]), which is
/// the JSON [`ElementView`] writes (keys in the store's order and spacing): that text is copied
/// into the answer as it is, without building each element (parsing a page of 50 tasks'
/// elements and writing them again was two fifths of the request's instructions). Elements
/// stored in the earlier form are written element by element as [`ElementView`] writes them,
/// each value copied as stored.
#[derive(Clone, Debug, PartialEq)]
pub enum ElementList<'a> {
    /// The views of parsed elements.
    Views(Vec<ElementView<'a>>),
    /// A listing's elements, as stored.
    Stored(&'a StoredElements),
}

impl<'a> ElementList<'a> {
    /// The views, which a list read from JSON always has; `None` for a listing's stored
    /// elements.
    #[must_use]
    pub fn views(&self) -> Option<&[ElementView<'a>]> {
        match self {
            Self::Views(views) => Some(views),
            Self::Stored(_) => None,
        }
    }
}

impl Serialize for ElementList<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Views(views) => views.serialize(serializer),
            // Checked as JSON (a scan, no values built), then copied as it is.
            Self::Stored(stored) if stored.in_api_form() => {
                serde_json::from_str::<&RawValue>(stored.as_json())
                    .map_err(|e| S::Error::custom(format!("stored elements: {e}")))?
                    .serialize(serializer)
            }
            Self::Stored(stored) => earlier::serialize(stored, serializer),
        }
    }
}

impl<'de> Deserialize<'de> for ElementList<'_> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::deserialize(deserializer).map(Self::Views)
    }
}

/// A task's elements, in either of the domain's forms, as a view lists them.
pub trait ListElements {
    /// The list.
    fn list(&self) -> ElementList<'_>;
}

impl ListElements for Vec<CustomElement> {
    fn list(&self) -> ElementList<'_> {
        ElementList::Views(elements(self))
    }
}

impl ListElements for StoredElements {
    fn list(&self) -> ElementList<'_> {
        ElementList::Stored(self)
    }
}

#[cfg(test)]
mod tests;
