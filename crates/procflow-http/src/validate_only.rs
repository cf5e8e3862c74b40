//! `?validate_only=true` (API contract 15.2): a dry run of a write. The handler runs the use
//! case on [`Procflow::dry_run`] (every check and the decision, nothing written), the
//! idempotency guard lets it through without claiming or recording its key, and the answer is
//! 200 with the representation the write would produce (with the `ETag` that representation
//! would have) and `Procflow-Validate-Only: true`. The rate limit counts it as any request, as
//! the authentication runs first.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::{HeaderName, HeaderValue};
use procflow_domain::service::Procflow;
use serde::Deserialize;

use crate::AppState;
use crate::error::ApiError;
use procflow_domain::quote::quote;

/// The header of a dry run's answer.
pub const HEADER: &str = "Procflow-Validate-Only";

/// The query of an operation that can be dry-run.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ValidateOnly {
    /// `true`: run every check and the decision, write nothing (no row, no event, no
    /// idempotency record, no email), and answer 200 with what the request would produce and
    /// `Procflow-Validate-Only: true`, or the error it would get. Counts toward the rate
    /// limit.
    #[param(value_type = Option<bool>)]
    validate_only: Option<String>,
}

impl ValidateOnly {
    /// Whether a dry run is asked for.
    ///
    /// # Errors
    /// 400 naming `validate_only` for anything but `true` or `false`.
    pub fn dry(&self) -> Result<bool, ApiError> {
        match self.validate_only.as_deref() {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(other) => Err(ApiError::invalid_field(
                "validate_only",
                format!("{} is neither true nor false", quote(other)),
            )),
        }
    }

    /// The service to run the request on: the real one, or its dry run.
    #[must_use]
    pub fn service(dry: bool, state: &AppState) -> Procflow {
        if dry {
            state.procflow().dry_run()
        } else {
            state.procflow().clone()
        }
    }
}

/// Whether a request's query asks for a dry run (for the idempotency guard, which runs
/// before the handler's extractors).
#[must_use]
pub fn requested(query: &str) -> bool {
    query.split('&').any(|pair| pair == "validate_only=true")
}

/// The handler's answer, made a dry run's when `dry`: 200 and the header.
#[must_use]
pub fn answer(mut response: HttpResponse, dry: bool) -> HttpResponse {
    if dry {
        *response.status_mut() = StatusCode::OK;
        response.headers_mut().insert(
            HeaderName::from_static("procflow-validate-only"),
            HeaderValue::from_static("true"),
        );
    }
    response
}
