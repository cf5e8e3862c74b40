//! `Idempotency-Key` on `POST` and `PATCH` (API contract 10 and 11): a middleware that claims
//! the key for the caller's team, runs the request once, keeps its response for 24 hours and
//! replays it to retries; another request with the key is refused (422), one still running too
//! (409).
//!
//! The guard wraps each API route inside [`crate::auth::require`], so it sees only requests
//! of a known route and method that were admitted (401, 403 and 429 come first, before the
//! body is read; unknown routes stay 404 and other methods 405, neither claiming a key): it
//! scopes the key to the admitted caller's team. Every request
//! is counted once, by the admission, replays included, so a replay is no way around the rate
//! limit.

mod intake;
pub mod key;
mod sweep;

use actix_web::body::{self, BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::web::{self, Bytes};
use actix_web::{HttpMessage, HttpResponse};
use procflow_domain::ports::{IdempotencyBegin, KeyLifetimes, StoredResponse};
use procflow_domain::team::Team;
use time::Duration;

use self::intake::read_body;
pub use self::key::IdempotencyKey;
pub use self::sweep::{KeySweep, SWEEP_EVERY};
use crate::AppState;
use crate::auth::Caller;
use crate::error::ApiError;
use crate::request_id::RequestId;

/// The request header.
pub const HEADER: &str = "idempotency-key";

/// The response header marking a replayed response, with the value `true`.
pub const REPLAYED: &str = "idempotency-replayed";

/// How long a key is kept.
pub const TTL: Duration = Duration::hours(24);

/// How long a key whose request has not answered yet stays held: past it, its instance is
/// taken to have died mid-request, and a retry runs. Far longer than a request takes (each
/// waits at most 5 s for a connection and runs a few short statements); a request still
/// running after it could run twice.
pub const IN_FLIGHT_LEASE: Duration = Duration::seconds(60);

/// The lifetimes of the records.
pub const LIFETIMES: KeyLifetimes = KeyLifetimes {
    answered: TTL,
    in_flight: IN_FLIGHT_LEASE,
};

/// Whether requests of `method` may carry an `Idempotency-Key`: `POST` and `PATCH`, whose
/// retries would otherwise do the work again (a batch completing tasks, say). `PUT` and
/// `DELETE` are idempotent by themselves; reads change nothing.
#[must_use]
pub fn guards(method: &Method) -> bool {
    method == Method::POST || method == Method::PATCH
}

/// The middleware: mount it with `.wrap(actix_web::middleware::from_fn(idempotency::guard))`
/// on an API route, inside [`crate::auth::require`]. Requests of other methods than those
/// it [`guards`], and requests without the header, pass untouched.
///
/// # Errors
/// Only the errors of the services inside it; its own refusals are responses.
pub async fn guard(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let state = request.app_data::<web::Data<AppState>>().cloned();
    let (Some(state), true) = (state, guards(request.method())) else {
        return pass(request, next).await;
    };
    if !request.headers().contains_key(HEADER) {
        return pass(request, next).await;
    }
    // A dry run writes nothing, its idempotency record included (API contract 15.2); a key
    // the real request would refuse, it refuses alike.
    if crate::validate_only::requested(request.query_string()) {
        return match the_key(&request) {
            Ok(_) => pass(request, next).await,
            Err(error) => Ok(request.error_response(error)),
        };
    }
    let Some(team) = request.extensions().get::<Caller>().map(|c| c.team.clone()) else {
        tracing::error!("the idempotency guard is mounted outside the authentication");
        return Ok(request.error_response(ApiError::internal()));
    };
    match claim(request, &state, &team).await {
        Claim::Started(request, key) => run(request, next, state, team, key).await,
        Claim::Answered(request, outcome) => Ok(match outcome {
            Ok(response) => request.into_response(response),
            Err(error) => request.error_response(error),
        }),
    }
}

/// Where a keyed request stands after its key was claimed or refused.
enum Claim {
    /// The handler runs it.
    Started(ServiceRequest, IdempotencyKey),
    /// Answered here: a replay, or a refusal.
    Answered(ServiceRequest, Result<HttpResponse, ApiError>),
}

/// The request's one `Idempotency-Key`, valid, or the refusal of it.
fn the_key(request: &ServiceRequest) -> Result<IdempotencyKey, ApiError> {
    let mut values = request.headers().get_all(HEADER);
    match (values.next(), values.next()) {
        (Some(value), None) => IdempotencyKey::parse(value),
        _ => Err(key::invalid()),
    }
}

/// Validates the key, reads the body (re-injected for the handler), and claims the key.
async fn claim(mut request: ServiceRequest, state: &AppState, team: &Team) -> Claim {
    let key = match the_key(&request) {
        Ok(key) => key,
        Err(error) => return Claim::Answered(request, Err(error)),
    };
    // An upload's body is streamed to storage and never held whole (API contract 14.2): its
    // fingerprint is the method, path and precondition alone, and the payload is left as it is.
    let streamed = crate::upload::is_multipart(request.headers());
    let body = if streamed {
        web::Bytes::from_static(b"multipart/form-data")
    } else {
        match read_body(&mut request, state.config.body_limit_bytes).await {
            Ok(body) => body,
            Err(error) => return Claim::Answered(request, Err(error)),
        }
    };
    let path = request
        .uri()
        .path_and_query()
        .map_or_else(|| request.path(), |p| p.as_str());
    // A precondition is part of the request: the same body under another `If-Match` is
    // another request.
    let if_match: Vec<&[u8]> = request
        .headers()
        .get_all(header::IF_MATCH)
        .map(HeaderValue::as_bytes)
        .collect();
    let if_match = (!if_match.is_empty()).then(|| if_match.join(&b", "[..]));
    let hash = key::request_hash(request.method().as_str(), if_match.as_deref(), path, &body);
    if !streamed {
        request.set_payload(Payload::from(body));
    }
    let now = state.services.clock.now();
    state
        .key_sweep
        .start_if_due(&state.services.idempotency, now, LIFETIMES);
    let outcome = match state
        .services
        .idempotency
        .begin(team.id, key.as_str(), &hash, now, LIFETIMES)
        .await
    {
        Ok(IdempotencyBegin::Started) => return Claim::Started(request, key),
        Ok(IdempotencyBegin::Replay(stored)) if streamed => {
            replay_upload(&mut request, &stored, state.config.upload_max_bytes).await
        }
        Ok(IdempotencyBegin::Replay(stored)) => replay(&stored),
        Ok(IdempotencyBegin::InFlight) => Err(ApiError::idempotency_in_flight()),
        Ok(IdempotencyBegin::Mismatch) => Err(ApiError::idempotency_key_reused()),
        Err(error) => Err(error.into()),
    };
    Claim::Answered(request, outcome)
}

/// Runs a started request and keeps its response, or releases the key when the response is
/// not the request's answer. On a task of its own, so that a client hanging up does not leave
/// the key in flight: the request completes and is recorded all the same.
async fn run(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
    state: web::Data<AppState>,
    team: Team,
    key: IdempotencyKey,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    // What the panic path needs: the task owns the rest.
    let (store, team_id, key_text) = (state.services.idempotency.clone(), team.id, key.clone());
    let request_id = request
        .extensions()
        .get::<RequestId>()
        .map(|id| id.0.clone());
    let task = actix_web::rt::spawn(async move {
        let outcome = match next.call(request).await {
            Ok(response) => Ok(buffered(response).await),
            Err(error) => Err(error),
        };
        let store = &state.services.idempotency;
        let kept = match &outcome {
            Ok((response, body)) if is_answer(response.status()) => Some(StoredResponse {
                status: response.status().as_u16(),
                body: body.to_vec(),
            }),
            _ => None,
        };
        let result = match &kept {
            Some(stored) => {
                let now = state.services.clock.now();
                store.finish(team.id, key.as_str(), stored, now).await
            }
            None => store.abandon(team.id, key.as_str()).await,
        };
        if let Err(error) = result {
            // The client still gets its answer; a retry may see the key in flight until the
            // record expires.
            tracing::error!(team.id = %team.id, error = %error, kept = kept.is_some(),
                "could not record an idempotent request's outcome");
        }
        outcome.map(|(response, _)| response)
    });
    match task.await {
        Ok(outcome) => outcome,
        Err(_) => {
            tracing::error!(team.id = %team_id, "a request handler panicked");
            if let Err(error) = store.abandon(team_id, key_text.as_str()).await {
                tracing::error!(team.id = %team_id, error = %error,
                    "could not release an idempotency key after a panic");
            }
            let error = ApiError::internal();
            Err(match request_id {
                Some(id) => error.with_header(HeaderName::from_static("x-request-id"), id),
                None => error,
            }
            .into())
        }
    }
}

/// Whether a response is the request's answer, kept and replayed: every status below 500,
/// except those about the caller rather than the request (401, 403, 429).
fn is_answer(status: StatusCode) -> bool {
    !status.is_server_error()
        && !matches!(
            status,
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN | StatusCode::TOO_MANY_REQUESTS
        )
}

/// The response with its body read into memory (and kept in it), with that body; a body that
/// cannot be read becomes a 500.
async fn buffered(
    response: ServiceResponse<impl MessageBody + 'static>,
) -> (ServiceResponse<BoxBody>, Bytes) {
    let (request, response) = response.into_parts();
    let (head, body) = response.into_parts();
    match body::to_bytes(body).await {
        Ok(bytes) => {
            let response = head.set_body(bytes.clone()).map_into_boxed_body();
            (ServiceResponse::new(request, response), bytes)
        }
        Err(error) => {
            let error: Box<dyn std::error::Error> = error.into();
            tracing::error!(error = %error, "could not read a response body");
            (
                ServiceResponse::from_err(ApiError::internal(), request),
                Bytes::new(),
            )
        }
    }
}

/// The kept response again, marked `Idempotency-Replayed: true`.
fn replay(stored: &StoredResponse) -> Result<HttpResponse, ApiError> {
    let status = StatusCode::from_u16(stored.status).map_err(|_| ApiError::internal())?;
    Ok(HttpResponse::build(status)
        .content_type("application/json")
        .insert_header((
            HeaderName::from_static(REPLAYED),
            HeaderValue::from_static("true"),
        ))
        .body(stored.body.clone()))
}

/// A retried upload is replayed only when it carries the file of the first: its body was not
/// part of the key's fingerprint (an upload is streamed, never held whole), so the file it
/// carries is hashed now, its bytes dropped, and compared with the `sha256` of the attachment
/// the first request stored; another file (or a body that is no upload) is 422
/// `idempotency_key_reused`, as any other request with another body. A first request that
/// stored nothing (refused before its file was read) is replayed whatever the retry carries:
/// there is no file to compare with.
async fn replay_upload(
    request: &mut ServiceRequest,
    stored: &StoredResponse,
    max_bytes: u64,
) -> Result<HttpResponse, ApiError> {
    let Some(first) = stored_sha256(stored) else {
        return replay(stored);
    };
    let (http, payload) = request.parts_mut();
    let body = <web::Payload as actix_web::FromRequest>::from_request(http, payload)
        .await
        .map_err(|_| ApiError::internal())?;
    // Hashed on the request's thread, as it comes: a retry is rare, and its file at most the
    // upload limit.
    let retried = crate::upload::file_sha256(http, body, max_bytes).await;
    if retried.is_some_and(|digest| hex::encode(digest) == first) {
        replay(stored)
    } else {
        Err(ApiError::idempotency_key_reused())
    }
}

/// The `sha256` of the attachment in a stored `201` answer.
fn stored_sha256(stored: &StoredResponse) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Answer {
        data: Stored,
    }
    #[derive(serde::Deserialize)]
    struct Stored {
        sha256: String,
    }
    if stored.status != StatusCode::CREATED.as_u16() {
        return None;
    }
    serde_json::from_slice::<Answer>(&stored.body)
        .ok()
        .map(|answer| answer.data.sha256)
}

async fn pass(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    next.call(request)
        .await
        .map(ServiceResponse::map_into_boxed_body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_below_500_are_kept_except_those_about_the_caller() {
        for kept in [200, 201, 400, 404, 405, 409, 413, 415, 422] {
            assert!(
                is_answer(StatusCode::from_u16(kept).unwrap_or_default()),
                "{kept}"
            );
        }
        for released in [401, 403, 429, 500, 502, 503] {
            let status = StatusCode::from_u16(released).unwrap_or_default();
            assert!(!is_answer(status), "{released}");
        }
    }
}
