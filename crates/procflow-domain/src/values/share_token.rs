//! The secret of a share link.

use std::fmt;

/// The capability in a `share_url`: whoever holds it may open the shared run.
///
/// Made by an [`IdGenerator`](crate::ports::IdGenerator) from at least 128 random bits, shown
/// once in the link it is made for, and stored only as its [`digest`](Self::digest).
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

    /// The token a link carries, when it can be one: 1 to 128 characters of the URL-safe set
    /// (letters, digits, `-`, `_`, `.`, `~`). Anything else (a NUL byte, say) names no share,
    /// and is refused before any store is asked.
    ///
    /// ```
    /// use procflow_domain::values::ShareToken;
    ///
    /// assert!(ShareToken::from_link("Zm9v-YmFy_42").is_some());
    /// for refused in ["", "a\0b", "a b", "<script>", &"x".repeat(129)] {
    ///     assert!(ShareToken::from_link(refused).is_none(), "{refused:?}");
    /// }
    /// ```
    #[must_use]
    pub fn from_link(text: &str) -> Option<Self> {
        let url_safe = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~');
        ((1..=Self::MAX_LEN).contains(&text.len()) && text.chars().all(url_safe))
            .then(|| Self(text.to_owned()))
    }

    /// The longest token a link may carry.
    pub const MAX_LEN: usize = 128;

    /// The token itself, for the link only: stores keep its [`digest`](Self::digest).
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// What a store keeps of the token, and looks a link up by: the SHA-256 of its text, in
    /// lower-case hexadecimal (as PostgreSQL's `encode(sha256(...), 'hex')` writes it). A
    /// token has at least 128 random bits, so one round of a fast hash suffices, as for API
    /// keys; a copy of the database then opens no shared run.
    ///
    /// ```
    /// use procflow_domain::values::ShareToken;
    ///
    /// let token = ShareToken::new("abc".into());
    /// assert_eq!(
    ///     token.digest(),
    ///     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    /// );
    /// ```
    #[must_use]
    pub fn digest(&self) -> String {
        use sha2::{Digest, Sha256};
        hex::encode(Sha256::digest(self.0.as_bytes()))
    }
}

impl fmt::Debug for ShareToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ShareToken(..)")
    }
}
