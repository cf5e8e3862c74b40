//! The envelopes of spec 2.1 around every answer: `{"data": ...}` and
//! `{"data": [...], "pagination": {...}}`.

use serde::{Deserialize, Serialize};

/// `{ "data": <object> }`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Data<T> {
    /// The resource.
    pub data: T,
}

/// `{ "data": [...], "pagination": { "next_cursor", "has_more" } }`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct List<T> {
    /// The page's items.
    pub data: Vec<T>,
    /// Where the next page starts.
    pub pagination: Pagination,
}

/// The pagination block of a list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Pagination {
    /// The last item's id, to pass back as `cursor`; null on an empty page.
    #[schema(format = "uuid", required = true)]
    pub next_cursor: Option<String>,
    /// Whether more items follow.
    pub has_more: bool,
}
