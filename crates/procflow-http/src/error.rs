//! The one place where outcomes become HTTP responses: every error, the framework's own
//! included, is `{"error":{"code","message"}}` with the status of the API contract's table.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, ResponseError, error as actix_error, web};
use procflow_domain::error::{DomainError, StoreError};
use serde::Serialize;

/// An error answer: status, machine-readable code, human message, and any extra headers.
#[derive(Debug, Clone)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
    headers: Vec<(HeaderName, String)>,
}

#[derive(Serialize)]
struct Envelope<'a> {
    error: Body<'a>,
}

#[derive(Serialize)]
struct Body<'a> {
    code: &'a str,
    message: &'a str,
}

impl ApiError {
    /// An error with this status, code and message.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            headers: Vec::new(),
        }
    }

    /// 400 `validation_error`.
    pub fn validation(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "validation_error", message)
    }

    /// 400 `validation_error` from the domain's refusal.
    #[must_use]
    pub fn from_validation(error: procflow_domain::error::ValidationError) -> Self {
        Self::validation(error.to_string())
    }

    /// 404 `not_found`.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    /// 401 `unauthorized`, with `WWW-Authenticate: Bearer`.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
            .with_header(header::WWW_AUTHENTICATE, "Bearer")
    }

    /// 415 `unsupported_media_type`.
    pub fn unsupported_media_type() -> Self {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "the request body must be JSON, sent with Content-Type: application/json",
        )
    }

    /// 500 `internal_error`; the cause goes to the log, never to the client.
    pub fn internal() -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_error",
            "an internal error occurred",
        )
    }

    /// The same error with one more response header.
    #[must_use]
    pub fn with_header(mut self, name: HeaderName, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// The status.
    #[must_use]
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The code.
    #[must_use]
    pub fn code(&self) -> &'static str {
        self.code
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status.as_u16(),
            self.code,
            self.message
        )
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status);
        for (name, value) in &self.headers {
            if let Ok(value) = HeaderValue::from_str(value) {
                response.insert_header((name.clone(), value));
            }
        }
        response.json(Envelope {
            error: Body {
                code: self.code,
                message: &self.message,
            },
        })
    }
}

impl From<DomainError> for ApiError {
    fn from(error: DomainError) -> Self {
        use StatusCode as S;
        match error {
            DomainError::NotFound(resource) => Self::not_found(format!("{resource} not found")),
            DomainError::Validation(invalid) => Self::validation(invalid.to_string()),
            DomainError::TemplateNotPublished => {
                Self::new(S::CONFLICT, "template_not_published", error.to_string())
            }
            DomainError::RunCompleted => Self::new(S::CONFLICT, "run_completed", error.to_string()),
            DomainError::TemplatePublished => {
                Self::new(S::CONFLICT, "template_published", error.to_string())
            }
            DomainError::GuestIsTeamMember => {
                Self::new(S::CONFLICT, "guest_is_team_member", error.to_string())
            }
            DomainError::GuestAlreadyInvited => {
                Self::new(S::CONFLICT, "guest_already_invited", error.to_string())
            }
            DomainError::Conflict(message) => Self::new(S::CONFLICT, "conflict", message),
            DomainError::Store(StoreError::Unavailable(cause)) => {
                tracing::warn!(error.cause = %cause, "store unavailable");
                Self::new(
                    S::SERVICE_UNAVAILABLE,
                    "unavailable",
                    "the service is temporarily unavailable; retry later",
                )
                .with_header(header::RETRY_AFTER, "1")
            }
            DomainError::Store(StoreError::Other(cause)) => {
                tracing::error!(error.cause = %cause, "store failure");
                Self::internal()
            }
        }
    }
}

/// Bodies: malformed JSON, wrong types and unknown fields are 400; too large 413; not JSON 415.
pub fn json_error(error: actix_error::JsonPayloadError, _: &HttpRequest) -> actix_web::Error {
    use actix_error::JsonPayloadError as E;
    let api = match &error {
        E::ContentType => ApiError::unsupported_media_type(),
        E::OverflowKnownLength { limit, .. } | E::Overflow { limit } => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!("the request body is larger than {limit} bytes"),
        ),
        E::Deserialize(cause) if cause.is_data() => {
            ApiError::validation(format!("invalid request body: {cause}"))
        }
        E::Deserialize(cause) => ApiError::validation(format!("malformed JSON: {cause}")),
        other => ApiError::validation(format!("unreadable request body: {other}")),
    };
    api.into()
}

/// Query strings: a bad value or an unknown parameter is 400.
pub fn query_error(error: actix_error::QueryPayloadError, _: &HttpRequest) -> actix_web::Error {
    ApiError::validation(format!("invalid query: {error}")).into()
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

/// A known route asked with another method: 405 in the envelope.
pub async fn wrong_method(request: HttpRequest) -> HttpResponse {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{} is not allowed on {}", request.method(), request.path()),
    )
    .error_response()
}

/// The JSON body configuration every route shares.
#[must_use]
pub fn json_config(limit: usize) -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(limit)
        .error_handler(json_error)
}

/// The query configuration every route shares.
#[must_use]
pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(query_error)
}
