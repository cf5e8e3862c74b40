//! What the guard reads of a keyed request before claiming the key: the body.

use actix_web::HttpMessage;
use actix_web::dev::ServiceRequest;
use actix_web::http::header;
use actix_web::web::{Bytes, BytesMut};
use futures_util::StreamExt;

use crate::error::ApiError;

/// Reads the whole body, refusing one over `limit` bytes with 413 as the JSON reader does.
pub(super) async fn read_body(
    request: &mut ServiceRequest,
    limit: usize,
) -> Result<Bytes, ApiError> {
    let too_large = || ApiError::payload_too_large(limit);
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
