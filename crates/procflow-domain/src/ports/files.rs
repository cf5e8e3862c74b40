//! Where the bytes of attachments live (API contract 14.2): outside the database, behind one
//! port, so that a local directory and an S3-compatible bucket are interchangeable adapters.

use std::fmt;

use async_trait::async_trait;

use crate::error::{DomainResult, ValidationError};
use crate::ids::TeamId;

/// A storage key: ours, never a client's filename. Lower-case ASCII letters, digits, `-`, `.`
/// and `/` between non-empty segments, at most 512 bytes, so that it is a path on every
/// adapter and can name nothing outside the store.
///
/// ```
/// use procflow_domain::ports::files::StorageKey;
///
/// assert!(StorageKey::parse("teams/a1/attachments/b2").is_ok());
/// assert!(StorageKey::parse("../etc/passwd").is_err());
/// assert!(StorageKey::parse("a//b").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StorageKey(String);

impl StorageKey {
    /// Checks a key.
    ///
    /// # Errors
    /// A validation error on `key` when it breaks the grammar.
    pub fn parse(text: &str) -> Result<Self, ValidationError> {
        let good_segment = |segment: &str| {
            !segment.is_empty()
                && segment != "."
                && segment != ".."
                && segment
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-.".contains(&b))
        };
        if text.len() > 512 || !text.split('/').all(good_segment) {
            return Err(ValidationError::field(
                "key",
                format!("{} is not a storage key", crate::quote::quote(text)),
            ));
        }
        Ok(Self(text.to_owned()))
    }

    /// The key of an attachment's bytes: `teams/<team>/files/<id>`.
    ///
    /// ```
    /// use procflow_domain::ids::TeamId;
    /// use procflow_domain::ports::files::StorageKey;
    ///
    /// let team = TeamId::from_uuid(uuid::Uuid::nil());
    /// let key = StorageKey::of_file(team, uuid::Uuid::nil());
    /// assert!(key.as_str().starts_with("teams/00000000-"));
    /// ```
    #[must_use]
    pub fn of_file(team: TeamId, id: uuid::Uuid) -> Self {
        Self(format!("teams/{team}/files/{id}"))
    }

    /// The key as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for StorageKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a source of bytes stopped before its end: the client went away, or the body broke a
/// limit. A store that is given it keeps nothing of the object.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SourceError(pub String);

/// Bytes read one chunk at a time: an upload's body, or a stored object being read back.
/// Neither side holds the whole object in memory. A chunk is a [`bytes::Bytes`], the buffer
/// type of the HTTP server and of the object store: a chunk passes from one to the other
/// without a copy.
#[async_trait]
pub trait ByteSource: Send {
    /// The next chunk; `None` at the end.
    ///
    /// # Errors
    /// When the bytes cannot all be read: the object is then incomplete.
    async fn next_chunk(&mut self) -> Result<Option<bytes::Bytes>, SourceError>;
}

/// What a completed `put` stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredObject {
    /// Its size in bytes.
    pub size: u64,
    /// The SHA-256 of its bytes.
    pub sha256: [u8; 32],
}

/// An object of the store, as a sweep sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedObject {
    /// Its key.
    pub key: StorageKey,
    /// When it was written.
    pub written_at: time::OffsetDateTime,
}

/// Objects by key. Every call is independent of every other instance's: several server
/// instances may share one store (a bucket).
#[async_trait]
pub trait FileStore: Send + Sync {
    /// Stores `body` under `key`, chunk by chunk, never holding the whole of it. All or
    /// nothing: when `body` fails (or the store does) nothing is left under `key`, and an
    /// object already there is left as it was.
    ///
    /// # Errors
    /// `Validation` carrying the source's reason when `body` fails; a store failure otherwise.
    async fn put(&self, key: &StorageKey, body: &mut dyn ByteSource) -> DomainResult<StoredObject>;

    /// The object's bytes, read as they are asked for.
    ///
    /// # Errors
    /// `NotFound(File)` for a key that holds nothing; a store failure otherwise.
    async fn get(&self, key: &StorageKey) -> DomainResult<Box<dyn ByteSource>>;

    /// Removes the object; a key that holds nothing is not an error.
    ///
    /// # Errors
    /// Store failures.
    async fn delete(&self, key: &StorageKey) -> DomainResult<()>;

    /// The objects whose key starts with `prefix` (a whole segment: `teams/<id>`), in no
    /// particular order: what a sweep compares with the rows.
    ///
    /// # Errors
    /// Store failures.
    async fn list(&self, prefix: &str) -> DomainResult<Vec<ListedObject>>;

    /// Removes what uploads that never ended left behind, last written before `before`: a
    /// process killed mid-upload cannot abort its own (on disk, a staged file `<key>#<n>`).
    /// Returns what it removed, for the log. A store whose unfinished uploads are invisible
    /// (a failed one leaves nothing) or expire on their own (a bucket's lifecycle rule) keeps
    /// this default, which removes nothing.
    ///
    /// # Errors
    /// Store failures.
    async fn remove_abandoned_uploads(
        &self,
        before: time::OffsetDateTime,
    ) -> DomainResult<Vec<String>> {
        let _ = before;
        Ok(Vec::new())
    }
}
