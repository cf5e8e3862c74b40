//! Signing secrets: `whsec_` + base64 of random bytes (Standard Webhooks), rotated with the
//! previous secret still signing for a day.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use time::{Duration, OffsetDateTime};

use crate::error::ValidationError;

/// How long the secret replaced by a rotation keeps signing beside the new one.
pub const PREVIOUS_SECRET_LIFETIME: Duration = Duration::hours(24);

/// A signing secret as Standard Webhooks writes it: `whsec_` + the base64 of its key bytes.
/// `Debug` does not print it.
///
/// ```
/// use procflow_domain::webhook::WebhookSecret;
///
/// let secret = WebhookSecret::from_key(&[7; 32]);
/// assert!(secret.expose().starts_with("whsec_"));
/// assert_eq!(secret.key(), vec![7; 32]);
/// assert_eq!(format!("{secret:?}"), "WebhookSecret(..)");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret(String);

impl WebhookSecret {
    /// The prefix of every secret.
    pub const PREFIX: &'static str = "whsec_";
    /// Random bytes in a new secret (Standard Webhooks asks for 24 to 64).
    pub const KEY_BYTES: usize = 32;

    /// The secret of these key bytes.
    #[must_use]
    pub fn from_key(key: &[u8]) -> Self {
        Self(format!("{}{}", Self::PREFIX, BASE64.encode(key)))
    }

    /// A secret read back from storage.
    ///
    /// # Errors
    /// When it is not `whsec_` + base64 of at least 24 bytes.
    pub fn parse(text: &str) -> Result<Self, ValidationError> {
        let long_enough = text
            .strip_prefix(Self::PREFIX)
            .and_then(|key| BASE64.decode(key).ok())
            .is_some_and(|key| key.len() >= 24);
        if long_enough {
            Ok(Self(text.to_owned()))
        } else {
            Err(ValidationError::field(
                "secret",
                "is not whsec_ + base64 of at least 24 bytes",
            ))
        }
    }

    /// The secret as shown once to its owner and as stored.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The HMAC key: the bytes the base64 part encodes.
    #[must_use]
    pub fn key(&self) -> Vec<u8> {
        self.0
            .strip_prefix(Self::PREFIX)
            .and_then(|key| BASE64.decode(key).ok())
            .unwrap_or_default()
    }
}

impl fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WebhookSecret(..)")
    }
}

/// The secrets an endpoint's deliveries are signed with: the current one, and for a day after
/// a rotation the one it replaced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SigningSecrets {
    /// Signs every delivery.
    pub current: WebhookSecret,
    /// The secret replaced by the last rotation, and until when it signs too.
    pub previous: Option<(WebhookSecret, OffsetDateTime)>,
}

impl SigningSecrets {
    /// A first secret.
    #[must_use]
    pub fn new(current: WebhookSecret) -> Self {
        Self {
            current,
            previous: None,
        }
    }

    /// The secrets that sign at `now`: the current one first.
    ///
    /// ```
    /// use procflow_domain::webhook::{SigningSecrets, WebhookSecret};
    /// use time::macros::datetime;
    ///
    /// let at = datetime!(2026-01-01 0:00 UTC);
    /// let rotated = SigningSecrets::new(WebhookSecret::from_key(&[1; 32]))
    ///     .rotate(WebhookSecret::from_key(&[2; 32]), at);
    /// assert_eq!(rotated.signing(at).len(), 2);
    /// assert_eq!(rotated.signing(at + time::Duration::hours(24)).len(), 1);
    /// ```
    #[must_use]
    pub fn signing(&self, now: OffsetDateTime) -> Vec<&WebhookSecret> {
        let mut secrets = vec![&self.current];
        if let Some((previous, until)) = &self.previous
            && now < *until
        {
            secrets.push(previous);
        }
        secrets
    }

    /// `next` becomes the current secret; the current one signs beside it for
    /// [`PREVIOUS_SECRET_LIFETIME`]. A secret replaced earlier stops signing at once.
    #[must_use]
    pub fn rotate(self, next: WebhookSecret, now: OffsetDateTime) -> Self {
        Self {
            current: next,
            previous: Some((self.current, now + PREVIOUS_SECRET_LIFETIME)),
        }
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    #[test]
    fn a_secret_reads_back_only_in_its_own_form() {
        let secret = WebhookSecret::from_key(&[9; 24]);
        assert_eq!(WebhookSecret::parse(secret.expose()), Ok(secret));
        assert!(WebhookSecret::parse("whsec_c2hvcnQ=").is_err(), "too short");
        assert!(WebhookSecret::parse("sk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA").is_err());
    }

    #[test]
    fn rotating_twice_drops_the_oldest_secret() {
        let at = datetime!(2026-01-01 0:00 UTC);
        let (a, b, c) = (
            WebhookSecret::from_key(&[1; 32]),
            WebhookSecret::from_key(&[2; 32]),
            WebhookSecret::from_key(&[3; 32]),
        );
        let secrets = SigningSecrets::new(a)
            .rotate(b.clone(), at)
            .rotate(c.clone(), at + Duration::hours(1));
        assert_eq!(secrets.signing(at + Duration::hours(2)), vec![&c, &b]);
        assert_eq!(secrets.signing(at + Duration::hours(25)), vec![&c]);
    }
}
