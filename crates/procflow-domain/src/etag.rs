//! Entity tags (RFC 9110 8.8.3): a strong validator of a resource's state, and the `If-Match`
//! precondition (RFC 9110 13.1.1) that a write compares with it under the store's lock.
//!
//! A resource's tag is a fingerprint of the whole domain value, computed by one function,
//! [`Tagged::etag`]: the single GET's `ETag` header and the check inside the write's decision
//! call the same function on the same value, so they agree by construction, and computing it
//! costs no query. The fingerprint covers every field (through `derive(Hash)`), so a change of
//! anything the representation shows changes the tag; a field added later is covered without
//! anyone remembering to.
//!
//! ```
//! use procflow_domain::etag::{IfMatch, Tagged};
//!
//! #[derive(Hash)]
//! struct Note { text: String }
//! impl Tagged for Note {}
//!
//! let before = Note { text: "draft".into() };
//! let after = Note { text: "final".into() };
//! assert_ne!(before.etag(), after.etag());
//! assert_eq!(before.etag(), Note { text: "draft".into() }.etag());
//!
//! let condition = IfMatch::OneOf(vec![before.etag()]);
//! assert!(condition.check(&before).is_ok());
//! assert!(condition.check(&after).is_err());
//! assert!(IfMatch::Any.check(&after).is_ok());
//! ```

use std::fmt;
use std::hash::{Hash, Hasher};

use sha2::{Digest, Sha256};

use crate::error::{DomainError, DomainResult};

/// A strong entity tag. Tags of resources are 128 bits of SHA-256 of the resource's value, as
/// 32 lower-case hex digits; tags a client sends may be any opaque text.
///
/// `Display` writes it as an `ETag` header value: the opaque text in double quotes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ETag(String);

impl ETag {
    /// The tag of a value: equal values have equal tags, different ones (but for a 2^-128
    /// chance) different tags. Stable for a given build of procflow; a new release may change
    /// every tag (clients then get one 412 or one full answer more).
    #[must_use]
    pub fn of<T: Hash + ?Sized>(value: &T) -> Self {
        let mut hasher = Fingerprint(Sha256::new());
        value.hash(&mut hasher);
        let digest: [u8; 32] = hasher.0.finalize().into();
        let mut hex = String::with_capacity(32);
        for byte in &digest[..16] {
            hex.push(char::from(HEX[usize::from(byte >> 4)]));
            hex.push(char::from(HEX[usize::from(byte & 0x0f)]));
        }
        Self(hex)
    }

    /// A tag as a client sent it: its opaque text, without the quotes (nor a `W/`).
    pub fn from_opaque(opaque: impl Into<String>) -> Self {
        Self(opaque.into())
    }

    /// The opaque text, without quotes.
    #[must_use]
    pub fn opaque(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ETag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.0)
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Feeds what `derive(Hash)` writes into SHA-256: a fingerprint that, unlike std's hashers,
/// is collision resistant and the same in every process of a build.
struct Fingerprint(Sha256);

impl Hasher for Fingerprint {
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    fn finish(&self) -> u64 {
        let digest: [u8; 32] = self.0.clone().finalize().into();
        let mut first = [0; 8];
        first.copy_from_slice(&digest[..8]);
        u64::from_be_bytes(first)
    }
}

/// A resource whose single GET answers an `ETag` and whose writes honour `If-Match`. Its tag
/// is [`ETag::of`] the whole value: implement it, empty, on a type that derives `Hash`.
pub trait Tagged: Hash {
    /// The resource's current tag.
    fn etag(&self) -> ETag {
        ETag::of(self)
    }
}

/// An `If-Match` precondition: the write applies only if the resource's current tag is one of
/// these (strong comparison), or, for `*`, if the resource exists at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IfMatch {
    /// `*`: any current state.
    Any,
    /// Any of these tags; an empty list (only weak tags were sent) matches nothing.
    OneOf(Vec<ETag>),
}

impl IfMatch {
    /// Whether a resource whose current tag is `current` satisfies it.
    #[must_use]
    pub fn matches(&self, current: &ETag) -> bool {
        match self {
            Self::Any => true,
            Self::OneOf(tags) => tags.contains(current),
        }
    }

    /// Refuses the write unless `current` satisfies the condition. Call it where the write
    /// decides, under the store's lock, so that two writers sending the same tag cannot both
    /// pass.
    ///
    /// # Errors
    /// [`DomainError::PreconditionFailed`].
    pub fn check(&self, current: &(impl Tagged + ?Sized)) -> DomainResult<()> {
        if self.matches(&current.etag()) {
            Ok(())
        } else {
            Err(DomainError::PreconditionFailed)
        }
    }

    /// The condition on a resource that has no tag (a list): only `*` is satisfied.
    ///
    /// # Errors
    /// [`DomainError::PreconditionFailed`] for a list of tags.
    pub fn check_untagged(&self) -> DomainResult<()> {
        match self {
            Self::Any => Ok(()),
            Self::OneOf(_) => Err(DomainError::PreconditionFailed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Hash)]
    struct Pair(String, u32);
    impl Tagged for Pair {}

    #[test]
    fn a_tag_is_32_hex_digits_and_its_header_value_is_quoted() {
        let tag = Pair("a".into(), 1).etag();
        assert_eq!(tag.opaque().len(), 32);
        assert!(tag.opaque().bytes().all(|b| HEX.contains(&b)));
        assert_eq!(tag.to_string(), format!("\"{}\"", tag.opaque()));
    }

    #[test]
    fn the_tag_follows_every_field_and_only_them() {
        let tag = Pair("a".into(), 1).etag();
        assert_eq!(tag, Pair("a".into(), 1).etag());
        assert_ne!(tag, Pair("b".into(), 1).etag());
        assert_ne!(tag, Pair("a".into(), 2).etag());
        // Field boundaries are part of what is hashed.
        assert_ne!(
            ETag::of(&("ab".to_owned(), "c".to_owned())),
            ETag::of(&("a".to_owned(), "bc".to_owned()))
        );
    }

    #[test]
    fn only_a_listed_tag_or_a_star_matches() {
        let current = Pair("a".into(), 1);
        let stale = Pair("a".into(), 0).etag();
        assert!(IfMatch::OneOf(vec![stale.clone(), current.etag()]).matches(&current.etag()));
        assert_eq!(
            IfMatch::OneOf(vec![stale]).check(&current),
            Err(DomainError::PreconditionFailed)
        );
        assert_eq!(
            IfMatch::OneOf(Vec::new()).check(&current),
            Err(DomainError::PreconditionFailed)
        );
        assert_eq!(IfMatch::Any.check(&current), Ok(()));
        assert_eq!(IfMatch::Any.check_untagged(), Ok(()));
        assert_eq!(
            IfMatch::OneOf(vec![current.etag()]).check_untagged(),
            Err(DomainError::PreconditionFailed)
        );
    }
}
