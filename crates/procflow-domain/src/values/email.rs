//! An email address, checked for syntax and kept in lower case.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use validator::ValidateEmail;

use crate::error::ValidationError;
use crate::quote::quote;

/// A syntactically valid email address, lower-cased so that comparisons ignore case.
///
/// ```
/// use procflow_domain::values::Email;
///
/// let email: Email = " Ada@Example.COM ".parse().unwrap();
/// assert_eq!(email.as_str(), "ada@example.com");
/// assert!("not an email".parse::<Email>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Email(String);

impl Email {
    /// The longest address SMTP can carry (RFC 5321).
    pub const MAX_LEN: usize = 254;

    /// The address as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the address is at an IP address (`a@[127.0.0.1]`, RFC 5321's address literal)
    /// rather than at a domain name: valid, and read back as stored, but mail to it is refused
    /// by the servers that would carry it, and it names a host of our own network as readily
    /// as any, so addresses procflow is asked to write to are refused when they are.
    ///
    /// ```
    /// use procflow_domain::values::Email;
    ///
    /// assert!("a@[127.0.0.1]".parse::<Email>().unwrap().is_at_ip_literal());
    /// assert!(!"a@example.org".parse::<Email>().unwrap().is_at_ip_literal());
    /// ```
    #[must_use]
    pub fn is_at_ip_literal(&self) -> bool {
        self.0
            .rsplit_once('@')
            .is_some_and(|(_, domain)| domain.starts_with('['))
    }
}

impl FromStr for Email {
    type Err = ValidationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let trimmed = text.trim();
        if trimmed.len() > Self::MAX_LEN || !trimmed.validate_email() {
            return Err(ValidationError::field(
                "email",
                format!("{} is not a valid email address", quote(trimmed)),
            ));
        }
        Ok(Self(trimmed.to_lowercase()))
    }
}

impl TryFrom<String> for Email {
    type Error = ValidationError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<Email> for String {
    fn from(email: Email) -> Self {
        email.0
    }
}

impl fmt::Display for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_accepted_or_refused_by_syntax() {
        for good in ["a@b.co", "first.last+tag@example.org", "X@Y.Z"] {
            assert!(good.parse::<Email>().is_ok(), "{good} should be accepted");
        }
        let too_long = format!("{}@example.com", "a".repeat(250));
        for bad in [
            "",
            "plain",
            "@example.com",
            "a@",
            "a b@example.com",
            too_long.as_str(),
        ] {
            assert!(bad.parse::<Email>().is_err(), "{bad} should be refused");
        }
    }

    #[test]
    fn equal_addresses_differ_only_in_case() {
        assert_eq!(
            "Ada@Example.com".parse::<Email>().unwrap(),
            "ada@example.COM".parse::<Email>().unwrap()
        );
    }
}
