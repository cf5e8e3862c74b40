//! What a call can fail with: the API's refusal (its status, `code`, `message` and request id),
//! or no usable answer at all.

use reqwest::StatusCode;

/// A failed call.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The API refused the request with its error envelope: `code` is the stable,
    /// machine-readable code (`validation_error`, `not_found`, `precondition_failed`, ...,
    /// the table in `docs/api.md`), `message` the text for people.
    #[error("{status} {code}: {message}")]
    Api {
        /// The HTTP status.
        status: StatusCode,
        /// The API's error code.
        code: String,
        /// The API's message.
        message: String,
        /// The answer's `X-Request-Id`, to find the request in the server's log.
        request_id: Option<String>,
        /// `Retry-After` in seconds, on 429 and 503.
        retry_after: Option<u64>,
    },
    /// An answer that is not what the operation documents (not the error envelope, or a body
    /// that does not read as the view): a proxy in the way, or a client older than the server.
    #[error("unexpected answer {status}: {detail}")]
    Unexpected {
        /// The HTTP status.
        status: StatusCode,
        /// What did not match.
        detail: String,
    },
    /// Not sent: an option that cannot be a header value (such as an `Idempotency-Key` with a
    /// line break).
    #[error("not sent: {0}")]
    Request(String),
    /// No answer: the connection, TLS, a timeout, or a base URL that is no URL.
    #[error("transport: {0}")]
    Transport(#[from] reqwest::Error),
}

impl Error {
    /// The API's error code, when the API answered one.
    #[must_use]
    pub fn code(&self) -> Option<&str> {
        match self {
            Self::Api { code, .. } => Some(code),
            Self::Unexpected { .. } | Self::Request(_) | Self::Transport(_) => None,
        }
    }

    /// The HTTP status, when there was an answer.
    #[must_use]
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Self::Api { status, .. } | Self::Unexpected { status, .. } => Some(*status),
            Self::Request(_) => None,
            Self::Transport(error) => error.status(),
        }
    }
}
