//! A template's run link (API contract 13.2).

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// A template's public start link: `enabled` with its `url` while it is on; `enabled: false`
/// with `url` and `created_at` null while it is off.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = RunLink)]
pub struct RunLinkView {
    /// `{team base_url}/start/<token>`: anyone holding it can start a run of the template
    /// (while it is published) as its guest. Null while the link is off.
    #[schema(format = "uri", required = true)]
    pub url: Option<String>,
    /// Whether the link is on.
    pub enabled: bool,
    /// When the link was turned on; null while it is off.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(required = true)]
    pub created_at: Option<OffsetDateTime>,
}

impl RunLinkView {
    /// The view of a link that is on, at `url`, or of none.
    #[must_use]
    pub fn new(link: Option<(String, OffsetDateTime)>) -> Self {
        match link {
            Some((url, created_at)) => Self {
                url: Some(url),
                enabled: true,
                created_at: Some(created_at),
            },
            None => Self {
                url: None,
                enabled: false,
                created_at: None,
            },
        }
    }
}
