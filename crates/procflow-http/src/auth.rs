//! Authentication by `Authorization: Bearer <key>`, the subscription check and the rate limit,
//! as the middleware of the `/api/v1` routes; handlers read the admitted [`Caller`].

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::Payload;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderMap};
use actix_web::middleware::Next;
use actix_web::{FromRequest, HttpMessage, HttpRequest, web};
use futures_util::future::{Ready, ready};
use procflow_domain::ids::ApiKeyId;
use procflow_domain::team::{KeyScope, Team};

use crate::AppState;
use crate::error::ApiError;
use crate::keys;
use crate::rate_limit::{Admitted, Refusal, headers};

/// The team and key an admitted request acts for.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The key's team: every use case is scoped to it.
    pub team: Team,
    /// The key used.
    pub key: ApiKeyId,
    /// What the key may do.
    pub scope: KeyScope,
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

/// The middleware of every `/api/v1` route (a method the path serves: other methods are 405
/// before this runs): authenticates, checks the subscription and counts the request against
/// the rate limit before anything else about the request is read, so
/// that a bad body never answers before (or instead of) a 401, 403 or 429; then, when the
/// request `writes` (an operation that changes something), refuses a key whose scope is
/// `read` (403), before any other work.
///
/// # Errors
/// Only the errors of the services inside it; its own refusals are responses.
pub async fn require(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
    writes: bool,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let admitted = authenticate(request.request())
        .await
        .and_then(|caller| check_scope(&caller, writes, &request));
    match admitted {
        Ok(()) => next
            .call(request)
            .await
            .map(ServiceResponse::map_into_boxed_body),
        Err(error) => Ok(request.error_response(error)),
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

/// Admits the request: finds its key and team and counts it against the rate limit (one store
/// call), and records the [`Caller`] and its quota in the request's extensions.
async fn authenticate(request: &HttpRequest) -> Result<Caller, ApiError> {
    let state = request
        .app_data::<web::Data<AppState>>()
        .ok_or_else(ApiError::internal)?;
    let hash = keys::hash(bearer(request)?);
    match state.gate.admit(&*state.services.rate_limiter, hash).await {
        Ok(Admitted { key, team, quota }) => {
            let caller = Caller {
                team,
                key: key.id,
                scope: key.scope,
            };
            let mut extensions = request.extensions_mut();
            extensions.insert(quota);
            extensions.insert(caller.clone());
            Ok(caller)
        }
        // The refusal's own words are the message: one wording for both.
        Err(refusal @ Refusal::UnknownKey) => Err(ApiError::unauthorized(refusal.to_string())),
        Err(refusal @ Refusal::InactiveTeam) => Err(ApiError::forbidden(refusal.to_string())),
        Err(Refusal::Store(error)) => Err(error.into()),
        Err(refusal) => Err(ApiError::rate_limited(headers::for_refusal(&refusal))),
    }
}
