//! The one place where outcomes become HTTP responses: every error, the framework's own
//! included, is `{"error":{"code","message"}}` with the status of the API contract's table.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, ResponseError};
use procflow_domain::error::{DomainError, ErrorCode, Resource, ValidationError};
use procflow_domain::quote::shorten_quotes;
use procflow_wire::{ErrorBody, ErrorResponse};

/// The longest message of an error answer, in characters (a list of allowed options is cut
/// there).
pub const MAX_MESSAGE_CHARS: usize = 2_000;

/// An error answer: its code (and so its status) from the one table, [`ErrorCode`], a human
/// message, and any extra headers. Build it with the named constructors, or from a
/// [`DomainError`].
#[derive(Debug, Clone)]
pub struct ApiError {
    code: ErrorCode,
    message: String,
    headers: Vec<(HeaderName, String)>,
}

impl ApiError {
    /// An error with this code and message; its status is the code's. What the message
    /// quotes is cut to a short prefix ([`shorten_quotes`]) and the message to
    /// [`MAX_MESSAGE_CHARS`]: a refused input never comes back whole (900 kB in was 900 kB out).
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        let mut message = shorten_quotes(&message.into());
        if let Some((cut, _)) = message.char_indices().nth(MAX_MESSAGE_CHARS) {
            message.truncate(cut);
            message.push('…');
        }
        Self {
            code,
            message,
            headers: Vec::new(),
        }
    }

    /// 400 `validation_error`.
    pub fn validation(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ValidationError, message)
    }

    /// 400 `validation_error` from the domain's refusal.
    #[must_use]
    pub fn from_validation(error: ValidationError) -> Self {
        Self::validation(error.to_string())
    }

    /// 400 `validation_error` naming one request field.
    pub fn invalid_field(field: &str, message: impl Into<String>) -> Self {
        Self::from_validation(ValidationError::field(field, message))
    }

    /// 401 `unauthorized`, with `WWW-Authenticate: Bearer`.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Unauthorized, message).with_header(header::WWW_AUTHENTICATE, "Bearer")
    }

    /// 403 `forbidden`.
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Forbidden, message)
    }

    /// 404 `not_found`.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    /// 404 `not_found` for a resource the request names.
    #[must_use]
    pub fn resource_not_found(resource: Resource) -> Self {
        Self::from(DomainError::NotFound(resource))
    }

    /// 405 `method_not_allowed`, with the `Allow` header listing the methods the path serves.
    pub fn method_not_allowed(method: &str, path: &str, allowed: &str) -> Self {
        Self::new(
            ErrorCode::MethodNotAllowed,
            format!("{method} is not allowed on {path}"),
        )
        .with_header(header::ALLOW, allowed)
    }

    /// 409 `idempotency_in_flight`.
    #[must_use]
    pub fn idempotency_in_flight() -> Self {
        Self::new(
            ErrorCode::IdempotencyInFlight,
            "a request with this Idempotency-Key is still in progress; retry later",
        )
    }

    /// 413 `payload_too_large`.
    #[must_use]
    pub fn payload_too_large(limit: usize) -> Self {
        Self::new(
            ErrorCode::PayloadTooLarge,
            format!("the request body is larger than {limit} bytes"),
        )
    }

    /// 415 `unsupported_media_type`.
    #[must_use]
    pub fn unsupported_media_type() -> Self {
        Self::new(
            ErrorCode::UnsupportedMediaType,
            "the request body must be JSON, sent with Content-Type: application/json",
        )
    }

    /// 422 `idempotency_key_reused`.
    #[must_use]
    pub fn idempotency_key_reused() -> Self {
        Self::new(
            ErrorCode::IdempotencyKeyReused,
            "this Idempotency-Key was used with a different request (method, path or body)",
        )
    }

    /// 429 `rate_limited`, with `Retry-After` and the `RateLimit-*` headers given.
    pub fn rate_limited(headers: impl IntoIterator<Item = (&'static str, String)>) -> Self {
        headers.into_iter().fold(
            Self::new(
                ErrorCode::RateLimited,
                "too many requests for this API key; retry after the time in Retry-After",
            ),
            |error, (name, value)| error.with_header(HeaderName::from_static(name), value),
        )
    }

    /// 500 `internal_error`; the cause goes to the log, never to the client.
    #[must_use]
    pub fn internal() -> Self {
        Self::new(ErrorCode::InternalError, "an internal error occurred")
    }

    /// 503 `unavailable`, with `Retry-After: 1`.
    #[must_use]
    pub fn unavailable() -> Self {
        Self::new(
            ErrorCode::Unavailable,
            "the service is temporarily unavailable; retry later",
        )
        .with_header(header::RETRY_AFTER, "1")
    }

    /// The same error with one more response header.
    #[must_use]
    pub fn with_header(mut self, name: HeaderName, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// The status, from the code.
    #[must_use]
    pub fn status(&self) -> StatusCode {
        StatusCode::from_u16(self.code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    /// The code.
    #[must_use]
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The message.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.code.http_status(),
            self.code,
            self.message
        )
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status()
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status());
        for (name, value) in &self.headers {
            if let Ok(value) = HeaderValue::from_str(value) {
                response.insert_header((name.clone(), value));
            }
        }
        // The wire's envelope, the type procflow-client reads refusals with.
        response.json(ErrorResponse {
            error: ErrorBody {
                code: self.code.as_str().to_owned(),
                message: self.message.clone(),
                request_id: None,
            },
        })
    }
}

impl From<DomainError> for ApiError {
    fn from(error: DomainError) -> Self {
        match (error.code(), &error) {
            // Not the store's failure: the admission's answer replaces it (`auth::beside_write`).
            (_, DomainError::NotCleared) => {
                tracing::debug!("a write's caller was not admitted as it ran; nothing written");
                Self::unavailable()
            }
            (ErrorCode::Unavailable, cause) => {
                tracing::warn!(error.cause = %cause, "store unavailable");
                Self::unavailable()
            }
            (ErrorCode::InternalError, cause) => {
                tracing::error!(error.cause = %cause, "store failure");
                Self::internal()
            }
            (code, _) => Self::new(code, error.to_string()),
        }
    }
}

/// Unknown routes: 404 in the envelope.
pub async fn no_route(request: HttpRequest) -> HttpResponse {
    ApiError::not_found(format!(
        "no route for {} {}",
        request.method(),
        request.path()
    ))
    .error_response()
}
