//! The `Idempotency-Key` header's value, and the fingerprint of the request it guards.

use actix_web::http::header::HeaderValue;
use sha2::{Digest, Sha256};

use crate::error::ApiError;

/// The longest key accepted, in characters.
pub const MAX_LEN: usize = 255;

/// A valid `Idempotency-Key`: 1 to 255 visible ASCII characters (`!` to `~`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// Reads the header's value.
    ///
    /// # Errors
    /// 400 `validation_error` naming the header when the value is empty, longer than 255
    /// characters, or holds anything but visible ASCII (spaces included).
    pub fn parse(value: &HeaderValue) -> Result<Self, ApiError> {
        value
            .to_str()
            .ok()
            .filter(|text| {
                (1..=MAX_LEN).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_graphic())
            })
            .map(|text| Self(text.to_owned()))
            .ok_or_else(invalid)
    }

    /// The key as sent.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The refusal of a key that is not 1 to 255 visible ASCII characters, or sent twice.
pub(crate) fn invalid() -> ApiError {
    ApiError::validation(format!(
        "Idempotency-Key: must be one header of 1 to {MAX_LEN} visible ASCII characters"
    ))
}

/// SHA-256 of the method (with the `If-Match` value, when sent), the path with its query
/// string, and the body bytes, each part separated by a NUL byte (which the method, header
/// values and path cannot contain), so that two different requests never share the input. The
/// `If-Match` value follows the method after a byte 0x01, which neither can contain either;
/// without it the input is what it was before preconditions existed, so keys recorded then
/// still match.
#[must_use]
pub fn request_hash(
    method: &str,
    if_match: Option<&[u8]>,
    path_and_query: &str,
    body: &[u8],
) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(method.as_bytes());
    if let Some(if_match) = if_match {
        hasher.update([1]);
        hasher.update(if_match);
    }
    hasher.update([0]);
    hasher.update(path_and_query.as_bytes());
    hasher.update([0]);
    hasher.update(body);
    hasher.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(value: &str) -> Result<IdempotencyKey, ApiError> {
        IdempotencyKey::parse(&HeaderValue::from_str(value).map_err(|_| invalid())?)
    }

    #[test]
    fn visible_ascii_keys_of_1_to_255_characters_are_accepted() {
        for key in [
            "a".to_owned(),
            "2f1e9c2a-4c5b-4f7e-9a77-0c8b4d2f1a00".to_owned(),
            "!~{}[]:;\"'/\\".to_owned(),
            "x".repeat(255),
        ] {
            assert_eq!(parse(&key).map(|k| k.as_str().to_owned()).ok(), Some(key));
        }
    }

    #[test]
    fn empty_long_spaced_or_non_ascii_keys_are_refused_with_400() {
        let long = "x".repeat(256);
        for key in ["", long.as_str(), "a b", " a", "a\t", "caf\u{e9}"] {
            let refused = parse(key)
                .err()
                .map(|e| (e.status().as_u16(), e.code().as_str()));
            assert_eq!(refused, Some((400, "validation_error")), "key {key:?}");
        }
        let raw = HeaderValue::from_bytes(b"caf\xe9").ok();
        assert!(raw.is_some_and(|raw| IdempotencyKey::parse(&raw).is_err()));
    }

    #[test]
    fn the_hash_tells_method_precondition_path_and_body_apart() {
        let hash = |method, path, body: &[u8]| request_hash(method, None, path, body);
        let base = hash("POST", "/api/v1/process-runs", b"{}");
        assert_eq!(base, hash("POST", "/api/v1/process-runs", b"{}"));
        assert_ne!(base, hash("PUT", "/api/v1/process-runs", b"{}"));
        assert_ne!(base, hash("POST", "/api/v1/process-runs?x=1", b"{}"));
        assert_ne!(base, hash("POST", "/api/v1/process-runs", b"{ }"));
        assert_ne!(hash("POST", "/a", b"b"), hash("POST", "/a\0b", b""));
        let tagged = |tag: &[u8]| request_hash("PATCH", Some(tag), "/a", b"{}");
        assert_ne!(tagged(b"\"x\""), tagged(b"\"y\""));
        assert_ne!(tagged(b"\"x\""), hash("PATCH", "/a", b"{}"));
        assert_ne!(tagged(b""), hash("PATCH", "/a", b"{}"));
    }

    #[test]
    fn without_a_precondition_the_hash_is_the_one_recorded_before_preconditions_existed() {
        let mut before = Sha256::new();
        before.update(b"POST\0/api/v1/process-runs\0{}");
        let before: [u8; 32] = before.finalize().into();
        assert_eq!(
            request_hash("POST", None, "/api/v1/process-runs", b"{}"),
            before
        );
    }
}
