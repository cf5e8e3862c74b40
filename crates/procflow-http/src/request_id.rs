//! The id [`crate::middleware::around`] gives each request, for whatever logs on its behalf
//! (the idempotency guard, when a handler panics).

/// The id of one request, in its extensions and in its `X-Request-Id` header.
#[derive(Clone, Debug)]
pub struct RequestId(pub String);
