//! A single resource with its entity tag: what to send back in `If-Match` to change it only if
//! nobody did since.

use std::ops::Deref;

/// A resource and the `ETag` the server answered with it (templates, runs and tasks have one).
#[derive(Clone, Debug, PartialEq)]
pub struct Tagged<T> {
    /// The resource.
    pub value: T,
    /// The answer's `ETag`, when it had one.
    pub etag: Option<String>,
}

impl<T> Deref for Tagged<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}
