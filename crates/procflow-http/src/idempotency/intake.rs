//! What the guard reads of a keyed request before claiming the key: who asks, and the body.

use actix_web::HttpMessage;
use actix_web::dev::ServiceRequest;
use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::web::{Bytes, BytesMut};
use futures_util::StreamExt;
use procflow_domain::team::{ApiKey, Team};

use crate::AppState;
use crate::error::ApiError;
use crate::keys;

/// The caller's key and team when the `Authorization` header names an active key of an
/// active team not refused by the rate limit; `None` otherwise (the handler answers).
pub(super) async fn identify(
    request: &ServiceRequest,
    state: &AppState,
) -> Result<Option<(ApiKey, Team, [u8; 32])>, ApiError> {
    let Some(bearer) = crate::auth::bearer_token(request.headers()) else {
        return Ok(None);
    };
    let hash = keys::hash(bearer);
    if state.gate.cached_refusal(&hash).is_some() {
        return Ok(None);
    }
    let found = state
        .services
        .procflow
        .ports()
        .teams
        .find_api_key(&hash)
        .await?;
    Ok(found
        .filter(|(_, team)| team.is_active())
        .map(|(key, team)| (key, team, hash)))
}

/// Reads the whole body, refusing one over `limit` bytes with 413 as the JSON reader does.
pub(super) async fn read_body(
    request: &mut ServiceRequest,
    limit: usize,
) -> Result<Bytes, ApiError> {
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!("the request body is larger than {limit} bytes"),
        )
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<usize>().ok());
    if declared.is_some_and(|length| length > limit) {
        return Err(too_large());
    }
    let mut payload = request.take_payload();
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk
            .map_err(|error| ApiError::validation(format!("unreadable request body: {error}")))?;
        if body.len() + chunk.len() > limit {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}
