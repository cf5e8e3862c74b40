//! Task updates beside their admission: the write's reads go to the database while the
//! admission is asked, and its writes wait for the answer (`docs/decisions.md`, "A task update
//! runs beside its admission too").
//!
//! A read beside its admission (`super::read_beside_admission`) may run to the end and have its
//! answer dropped; a write may not write before its caller is admitted. Its use case takes a
//! [`Clearance`] that the store awaits after its reads and before its first write: cleared when
//! the admission admits the caller that was guessed, refused otherwise, so that a refused
//! request, or one admitted as another caller, writes nothing, and its transaction rolls back.
//! The body is read whole first (a small one: see [`BODY_MAX`]), so that the request can run
//! again as the admitted caller.

use std::ops::Deref;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use async_trait::async_trait;
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use futures_util::future::{Ready, join, ready};
use procflow_domain::error::{DomainError, DomainResult};
use procflow_domain::ports::{Clearance, Cleared};
use tokio::sync::watch;

use super::{Caller, Settled, record, settle};
use crate::rate_limit::{Admitted, Refusal};

/// The largest body a write beside its admission reads whole before it runs; a larger one (or
/// one of unknown length) waits for its admission as other writes do.
pub(crate) const BODY_MAX: usize = 64 * 1024;

/// Whether a write of a route whose handler passes its [`CallerClearance`] on may run beside
/// its admission: the request has no `Idempotency-Key` (whose record is written before the
/// handler runs) and a body of declared length of at most [`BODY_MAX`].
pub(super) fn may_run_beside(request: &ServiceRequest) -> bool {
    let headers = request.headers();
    !headers.contains_key(crate::idempotency::HEADER)
        && !headers.contains_key(header::TRANSFER_ENCODING)
        && headers
            .get(header::CONTENT_LENGTH)
            .and_then(|length| length.to_str().ok()?.parse::<usize>().ok())
            .is_some_and(|length| length <= BODY_MAX)
}

/// The clearance a handler passes to its use case (it dereferences to one): the pending
/// admission's, or [`Cleared`] when the request was admitted before it ran.
#[derive(Clone)]
pub struct CallerClearance(Option<Pending>);

impl FromRequest for CallerClearance {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, actix_web::Error>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Ok(Self(request.extensions().get::<Pending>().cloned())))
    }
}

impl Deref for CallerClearance {
    type Target = dyn Clearance;

    fn deref(&self) -> &Self::Target {
        match &self.0 {
            Some(pending) => pending,
            None => &Cleared,
        }
    }
}

/// The answer of an admission under way: `None` until it comes, then whether it admitted the
/// caller the write runs as.
#[derive(Clone)]
struct Pending(watch::Receiver<Option<bool>>);

#[async_trait]
impl Clearance for Pending {
    async fn cleared(&self) -> DomainResult<()> {
        let mut answer = self.0.clone();
        let cleared = answer
            .wait_for(Option::is_some)
            .await
            .ok()
            .and_then(|answer| *answer);
        if cleared == Some(true) {
            return Ok(());
        }
        // The middleware answers the admission's refusal, or runs the request again as the
        // caller it admitted.
        Err(DomainError::NotCleared)
    }
}

/// Runs a write beside its `admission` as the `guess`ed caller (see the module's
/// documentation); the admission alone decides, as for a read.
pub(super) async fn write_beside_admission<B: MessageBody + 'static>(
    mut request: ServiceRequest,
    next: Next<B>,
    admission: impl Future<Output = Result<Admitted, Refusal>>,
    guess: Caller,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let (answer, pending) = watch::channel(None);
    let admission = async {
        // The caller made once: the clearance and the settling below both compare it.
        let admitted = admission.await.map(super::caller_of);
        let cleared = matches!(&admitted, Ok((caller, _)) if *caller == guess);
        answer.send_replace(Some(cleared));
        admitted
    };
    let write = async {
        let body = read_whole(&mut request).await;
        request.set_payload(payload_of(&body));
        {
            let mut extensions = request.extensions_mut();
            extensions.insert(guess.clone());
            extensions.insert(Pending(pending));
        }
        (next.call(request).await, body)
    };
    let (admitted, (written, body)) = join(admission, write).await;
    let (request, caller, quota) = match settle(admitted, written, &guess) {
        Settled::Answer(answer) => return answer,
        Settled::Again(request, caller, quota) => (request, caller, quota),
    };
    // Its store refused to write: run it again, body and all, as the admitted caller.
    request.extensions_mut().remove::<Pending>();
    let mut request = ServiceRequest::from_request(request);
    request.set_payload(payload_of(&body));
    record(&request, caller.clone(), quota);
    if let Err(error) = super::check_scope(&caller, true, &request) {
        return Ok(request.error_response(error));
    }
    next.call(request)
        .await
        .map(ServiceResponse::map_into_boxed_body)
}

/// The request's body, read whole (its declared length is at most [`BODY_MAX`]); `None` when
/// it could not be read.
async fn read_whole(request: &mut ServiceRequest) -> Option<Bytes> {
    let mut payload = request.take_payload();
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        body.extend_from_slice(&chunk.ok()?);
        if body.len() > BODY_MAX {
            return None;
        }
    }
    Some(body.freeze())
}

/// A payload of `body`, or one that fails as an unreadable body does (the transport's guard
/// says why, as for any request: `crate::bodies::json_error`).
fn payload_of(body: &Option<Bytes>) -> Payload {
    match body {
        Some(body) => Payload::from(body.clone()),
        None => {
            let failed: actix_http::BoxedPayloadStream = Box::pin(futures_util::stream::once(
                ready(Err(PayloadError::Incomplete(None))),
            ));
            Payload::from(failed)
        }
    }
}
