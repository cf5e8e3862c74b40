//! The transport guard: what happens between the socket and actix. actix-web answers some
//! requests on its own, before any route or middleware of ours (a head too large, a URI too
//! long, a malformed header, a head too slow), with an empty body, no `X-Request-Id`, and an
//! `ERROR` line any client can trigger; and it has no time limit for reading a body or for
//! writing a response. The guard reads each request head before actix does, with actix's own
//! rules and ours, and hands a refused one to actix as a request for [`REFUSAL_PATH`], whose
//! handler answers the refusal in the JSON envelope like every other error; it ends a body
//! that does not arrive within [`Limits::body_timeout`] (the request then answers 408), and a
//! connection whose client does not take its response within [`Limits::write_timeout`].

mod chunked;
mod head;
mod low_water;
mod stream;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use actix_web::{HttpRequest, HttpResponse, ResponseError};
use procflow_domain::error::ErrorCode;

use self::head::Refusal;
pub use self::head::{MAX_HEAD_BYTES, MAX_HEADERS, MAX_TARGET_BYTES};
pub use self::low_water::LowWater;
pub use self::stream::Guarded;
use crate::error::ApiError;

/// The path of the request the guard hands to actix in place of a refused head. Asked by a
/// client, it is an unknown route (the connection holds no refusal).
pub const REFUSAL_PATH: &str = "/_transport/refusal";

/// The time limits of a connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// From the connection's start (or a later request's first byte) to the end of its head.
    pub head_timeout: Duration,
    /// From the end of a head to the end of its body.
    pub body_timeout: Duration,
    /// How long a response may wait for the client to take it.
    pub write_timeout: Duration,
}

/// What went wrong with a request's body on its way in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyFault {
    /// It did not arrive within this limit.
    TimedOut(Duration),
    /// Its chunked encoding broke the grammar here.
    Malformed(&'static str),
}

/// What the guard learned of one connection, for the requests on it.
#[derive(Debug, Default)]
pub struct Connection {
    refusal: Mutex<Option<Refusal>>,
    fault: Mutex<Option<BodyFault>>,
}

impl Connection {
    fn refuse(&self, refusal: Refusal) {
        *self.refusal.lock().unwrap_or_else(PoisonError::into_inner) = Some(refusal);
    }

    fn fault(&self, fault: BodyFault) {
        *self.fault.lock().unwrap_or_else(PoisonError::into_inner) = Some(fault);
    }

    fn take_refusal(&self) -> Option<Refusal> {
        self.refusal
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    fn body_fault(&self) -> Option<BodyFault> {
        *self.fault.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The answer to a body that failed on its way in, when the guard ended it: 408 for one that
/// did not arrive in time, 400 for a malformed chunked encoding.
#[must_use]
pub fn body_fault(request: &HttpRequest) -> Option<ApiError> {
    let fault = request.conn_data::<Arc<Connection>>()?.body_fault()?;
    Some(match fault {
        BodyFault::TimedOut(limit) => ApiError::new(
            ErrorCode::RequestTimeout,
            format!(
                "the request body did not arrive within {}",
                procflow_domain::duration::format(limit)
            ),
        ),
        BodyFault::Malformed(why) => {
            ApiError::validation(format!("malformed chunked request body: {why}"))
        }
    })
}

/// `GET` [`REFUSAL_PATH`]: the refusal of the head the guard stood in for, in the envelope.
pub async fn answer(request: HttpRequest) -> HttpResponse {
    let refusal = request
        .conn_data::<Arc<Connection>>()
        .and_then(|connection| connection.take_refusal());
    match refusal {
        Some(refusal) => {
            tracing::warn!(
                http.status = refusal.code.http_status(),
                error.code = %refusal.code,
                reason = %refusal.message,
                "refused a request before any route"
            );
            ApiError::new(refusal.code, refusal.message).error_response()
        }
        None => crate::error::no_route(request).await,
    }
}
