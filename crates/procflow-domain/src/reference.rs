//! Document-local names (`ref`): how a template's tasks and form fields name each other in
//! process logic (API contract 12.1), kept across edits and copied into runs.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The longest `ref`, in characters.
pub const MAX_REF_CHARS: usize = 64;

/// What a `ref` looks like, as a regular expression (also the OpenAPI `pattern`).
pub const REF_PATTERN: &str = "^[a-z0-9][a-z0-9_-]{0,63}$";

/// A document-local name of a task or an element (`^[a-z0-9][a-z0-9_-]{0,63}$`): unique
/// among the template's tasks and among its elements, kept across edits like an id, and
/// copied into runs.
///
/// ```
/// use procflow_domain::reference::Ref;
///
/// let name: Ref = "git-access".parse().unwrap();
/// assert_eq!(name.as_str(), "git-access");
/// assert!("Git access".parse::<Ref>().is_err());
/// assert!("-dash-first".parse::<Ref>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Ref(String);

impl Ref {
    /// The name.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Ref {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut chars = text.chars();
        let first_fits = chars
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
        let rest_fits =
            chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
        if first_fits && rest_fits && text.len() <= MAX_REF_CHARS {
            Ok(Self(text.to_owned()))
        } else {
            Err(format!(
                "{text:?} is not a ref: 1 to {MAX_REF_CHARS} lowercase letters, digits, `_` \
                 and `-`, starting with a letter or a digit"
            ))
        }
    }
}

impl TryFrom<String> for Ref {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<Ref> for String {
    fn from(name: Ref) -> Self {
        name.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_follow_their_pattern() {
        for good in ["a", "0", "git-access", "a_b-c9", &"x".repeat(MAX_REF_CHARS)] {
            assert!(good.parse::<Ref>().is_ok(), "{good}");
        }
        for bad in [
            "",
            "A",
            "-a",
            "_a",
            "a b",
            "é",
            "a.b",
            &"x".repeat(MAX_REF_CHARS + 1),
        ] {
            assert!(bad.parse::<Ref>().is_err(), "{bad}");
        }
    }
}
