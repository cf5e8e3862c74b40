//! Authentication by `Authorization: Bearer <key>`, the subscription check and the rate limit,
//! as the middleware of the `/api/v1` routes; handlers read the admitted [`Caller`] (a read's
//! handler, the caller its admission is expected to admit: its answer is sent only when it
//! is; a task update's, the same, its writes waiting for the admission's answer).

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::Payload;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderMap};
use actix_web::middleware::Next;
use actix_web::{FromRequest, HttpMessage, HttpRequest, web};
use futures_util::future::{Ready, join, ready};
use procflow_domain::ids::ApiKeyId;
use procflow_domain::ports::RateLimiter;
use procflow_domain::team::{ApiKey, KeyScope, Team};

use crate::AppState;
use crate::error::ApiError;
use crate::keys;
use crate::rate_limit::{Admitted, Quota, RateLimitGate, Refusal, headers};

/// The team and key an admitted request acts for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The key's team: every use case is scoped to it.
    pub team: Team,
    /// The key used.
    pub key: ApiKeyId,
    /// What the key may do.
    pub scope: KeyScope,
}

impl Caller {
    /// The caller acting with `key`, of `team`.
    fn of(key: &ApiKey, team: Team) -> Self {
        Self {
            team,
            key: key.id,
            scope: key.scope,
        }
    }
}

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        // [`require`] admitted the request before any extractor ran; a route without it
        // asking for a caller is a wiring bug.
        ready(
            request
                .extensions()
                .get::<Caller>()
                .cloned()
                .ok_or_else(|| {
                    tracing::error!("a handler outside /api/v1 asked for the caller");
                    ApiError::internal()
                }),
        )
    }
}

/// What a route does, as its admission treats it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// A read (`GET`): changes nothing, runs beside its admission once the key is known.
    Read,
    /// A write: refused to a `read` key, and runs once admitted.
    Write,
    /// A write whose handler passes its [`CallerClearance`] to a use case that awaits it before
    /// writing: it may run beside its admission as a read does (`beside_write`).
    ClearedWrite,
}

impl Access {
    /// Whether the route changes something (a `read` key may not call it).
    #[must_use]
    pub const fn writes(self) -> bool {
        !matches!(self, Self::Read)
    }
}

/// The middleware of every `/api/v1` route (a method the path serves: other methods are 405
/// before this runs): authenticates, checks the subscription and counts the request against
/// the rate limit before anything else about the request is read, so
/// that a bad body never answers before (or instead of) a 401, 403 or 429; then, when the
/// request writes (an operation that changes something), refuses a key whose scope is
/// `read` (403), before any other work. A read of a key this instance has admitted before
/// runs beside its admission (`read_beside_admission`), and so may a [`Access::ClearedWrite`]
/// (`beside_write`).
///
/// # Errors
/// Only the errors of the services inside it; its own refusals are responses.
pub async fn require(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
    access: Access,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let Some(state) = request.app_data::<web::Data<AppState>>().cloned() else {
        return Ok(request.error_response(ApiError::internal()));
    };
    admit_then_call(
        request,
        next,
        access,
        &state.gate,
        &*state.services.rate_limiter,
    )
    .await
}

/// [`require`] with its gate and limiter.
async fn admit_then_call<B: MessageBody + 'static>(
    request: ServiceRequest,
    next: Next<B>,
    access: Access,
    gate: &RateLimitGate,
    limiter: &dyn RateLimiter,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let hash = match bearer(request.request()) {
        Ok(key) => keys::hash(key),
        Err(error) => return Ok(request.error_response(error)),
    };
    if let Some((key, team)) = gate.last_admitted(&hash) {
        let guess = Caller::of(&key, team);
        match access {
            Access::Read => {
                return read_beside_admission(request, next, gate.admit(limiter, hash), guess)
                    .await;
            }
            // Not while others of the key wait for their turn at the limiter: the write would
            // hold its run's lock through that wait.
            Access::ClearedWrite
                if guess.scope.allows_changes()
                    && gate.turn_free(&hash)
                    && beside_write::may_run_beside(&request) =>
            {
                let admission = gate.admit(limiter, hash);
                return beside_write::write_beside_admission(request, next, admission, guess).await;
            }
            Access::Write | Access::ClearedWrite => {}
        }
    }
    let admitted = match gate.admit(limiter, hash).await {
        Ok(admitted) => admitted,
        Err(refusal) => return Ok(request.error_response(refusal_error(refusal))),
    };
    let (caller, quota) = caller_of(admitted);
    // Recorded first: a refusal of the key's scope carries the quota it was counted in.
    record(&request, caller.clone(), quota);
    if let Err(error) = check_scope(&caller, access.writes(), &request) {
        return Ok(request.error_response(error));
    }
    next.call(request)
        .await
        .map(ServiceResponse::map_into_boxed_body)
}

/// A read (`GET`, which changes nothing) run beside its `admission`, as the key's `guess`ed
/// caller (whom this instance last admitted it for), so that the read's statements go to the
/// database without waiting for the admission's answer: a round trip less on the request's
/// path (docs/performance.md, "Reads beside their admission"). The admission still decides,
/// alone: refused, the read's answer is dropped unsent and the refusal is the answer;
/// admitted as another caller than guessed (its team changed, and the notice of the change
/// is not in yet), the read runs again as the admitted one. Only keys this instance has
/// admitted and does not know to be refused are guessed, so a refused key's reads do not
/// keep running: a rate-limited key is refused from memory, a revoked key is forgotten with
/// its notice or at its first refusal.
async fn read_beside_admission<B: MessageBody + 'static>(
    request: ServiceRequest,
    next: Next<B>,
    admission: impl Future<Output = Result<Admitted, Refusal>>,
    guess: Caller,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    request.extensions_mut().insert(guess.clone());
    let (admitted, read) = join(admission, next.call(request)).await;
    match settle(admitted.map(caller_of), read, &guess) {
        Settled::Answer(answer) => answer,
        Settled::Again(request, caller, quota) => {
            let request = ServiceRequest::from_request(request);
            record(&request, caller, quota);
            next.call(request)
                .await
                .map(ServiceResponse::map_into_boxed_body)
        }
    }
}

/// What the admission's answer makes of a request that ran beside it as `guess`.
enum Settled {
    /// The answer to send: the refusal, or what the request answered its admitted caller.
    Answer(Result<ServiceResponse<BoxBody>, actix_web::Error>),
    /// Admitted as another caller than guessed: the request, to run again as that caller.
    Again(HttpRequest, Caller, Quota),
}

/// Settles a request that ran beside its admission as `guess` and `answered`, by what the
/// admission found (`admitted`: the caller and quota, see [`caller_of`]): refused, the refusal
/// (the answer dropped); admitted as guessed, the answer, with its quota; admitted as another
/// caller, the request to run again.
fn settle<B: MessageBody + 'static>(
    admitted: Result<(Caller, Quota), Refusal>,
    answered: Result<ServiceResponse<B>, actix_web::Error>,
    guess: &Caller,
) -> Settled {
    let (caller, quota) = match admitted {
        Ok(admitted) => admitted,
        Err(refusal) => {
            let error = refusal_error(refusal);
            return Settled::Answer(match answered {
                Ok(answer) => Ok(ServiceResponse::from_err(error, answer.into_parts().0)),
                Err(_) => Err(error.into()),
            });
        }
    };
    // An error rather than an answer comes from a middleware before the handler, which reads
    // no caller: the same for any.
    let answer = match answered {
        Ok(answer) => answer,
        Err(error) => return Settled::Answer(Err(error)),
    };
    if caller == *guess {
        answer.request().extensions_mut().insert(quota);
        return Settled::Answer(Ok(answer.map_into_boxed_body()));
    }
    Settled::Again(answer.into_parts().0, caller, quota)
}

/// The caller and quota of an admitted request.
fn caller_of(Admitted { key, team, quota }: Admitted) -> (Caller, Quota) {
    (Caller::of(&key, team), quota)
}

/// Records the admitted `caller` and its `quota` in the request's extensions, for the
/// handler and the rate-limit headers.
fn record(request: &ServiceRequest, caller: Caller, quota: Quota) {
    let mut extensions = request.extensions_mut();
    extensions.insert(quota);
    extensions.insert(caller);
}

/// The answer to a refused admission.
fn refusal_error(refusal: Refusal) -> ApiError {
    match refusal {
        // The refusal's own words are the message: one wording for both.
        refusal @ Refusal::UnknownKey => ApiError::unauthorized(refusal.to_string()),
        refusal @ Refusal::InactiveTeam => ApiError::forbidden(refusal.to_string()),
        Refusal::Store(error) => error.into(),
        refusal => ApiError::rate_limited(headers::for_refusal(&refusal)),
    }
}

/// Refuses a write to a key whose scope does not allow changes (API contract 11).
fn check_scope(caller: &Caller, writes: bool, request: &ServiceRequest) -> Result<(), ApiError> {
    if !writes || caller.scope.allows_changes() {
        return Ok(());
    }
    Err(ApiError::forbidden(format!(
        "this API key has the {} scope; {} {} changes something and needs the {} scope",
        caller.scope,
        request.method(),
        request.path(),
        KeyScope::Write,
    )))
}

/// The key in `Authorization: Bearer <key>`, if the header holds one.
pub(crate) fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
        .filter(|key| !key.is_empty())
}

fn bearer(request: &HttpRequest) -> Result<&str, ApiError> {
    // Two keys are one too many: which one acts is no guess to make for the client (the first
    // used to win, silently).
    if request
        .headers()
        .get_all(header::AUTHORIZATION)
        .nth(1)
        .is_some()
    {
        return Err(ApiError::invalid_field(
            "Authorization",
            "sent more than once; send one header, Bearer <API key>",
        ));
    }
    if !request.headers().contains_key(header::AUTHORIZATION) {
        return Err(ApiError::unauthorized(
            "missing Authorization header: use Bearer <API key>",
        ));
    }
    bearer_token(request.headers()).ok_or_else(|| {
        ApiError::unauthorized("malformed Authorization header: use Bearer <API key>")
    })
}

mod beside_write;
pub use beside_write::CallerClearance;

#[cfg(test)]
mod tests;
