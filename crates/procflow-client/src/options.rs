//! The headers a write may carry: `Idempotency-Key` (POST and PATCH: the same key with the same
//! body replays the first answer) and `If-Match` (PATCH and PUT of a template, a task: applied
//! only while the resource still has that `ETag`, else 412 `precondition_failed`).

/// Options of a write. `WriteOptions::default()` sends neither header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Sent as `Idempotency-Key`.
    pub idempotency_key: Option<String>,
    /// Sent as `If-Match`: an `ETag` from [`crate::Tagged::etag`], or `*`.
    pub if_match: Option<String>,
}

impl WriteOptions {
    /// With `Idempotency-Key: key`.
    #[must_use]
    pub fn idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into());
        self
    }

    /// With `If-Match: etag`.
    #[must_use]
    pub fn if_match(mut self, etag: impl Into<String>) -> Self {
        self.if_match = Some(etag.into());
        self
    }
}
