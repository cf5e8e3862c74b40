//! The secret of a share link.

use std::fmt;

/// The capability in a `share_url`: whoever holds it may open the shared run.
///
/// Made by an [`IdGenerator`](crate::ports::IdGenerator) from at least 128 random bits.
/// `Debug` does not print it, so it cannot leak into a log by accident.
///
/// ```
/// use procflow_domain::values::ShareToken;
///
/// let token = ShareToken::new("s3cr3t".into());
/// assert_eq!(token.expose(), "s3cr3t");
/// assert_eq!(format!("{token:?}"), "ShareToken(..)");
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ShareToken(String);

impl ShareToken {
    /// Wraps a token generated or read from storage.
    #[must_use]
    pub fn new(token: String) -> Self {
        Self(token)
    }

    /// The token itself, for the link and for storage only.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ShareToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ShareToken(..)")
    }
}
