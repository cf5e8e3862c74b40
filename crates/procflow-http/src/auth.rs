//! Authentication by `Authorization: Bearer <key>`, the subscription check and the rate limit,
//! as one extractor: a handler that takes a [`Caller`] only runs for an admitted request.

use actix_web::dev::Payload;
use actix_web::http::{StatusCode, header};
use actix_web::{FromRequest, HttpMessage, HttpRequest, web};
use futures_util::future::LocalBoxFuture;
use procflow_domain::ids::ApiKeyId;
use procflow_domain::team::Team;

use crate::AppState;
use crate::error::ApiError;
use crate::keys;
use crate::rate_limit::{Refusal, headers};

/// The team and key an admitted request acts for.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The key's team: every use case is scoped to it.
    pub team: Team,
    /// The key used.
    pub key: ApiKeyId,
}

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let request = request.clone();
        Box::pin(async move { authenticate(&request).await })
    }
}

fn bearer(request: &HttpRequest) -> Result<&str, ApiError> {
    let value = request
        .headers()
        .get(header::AUTHORIZATION)
        .ok_or_else(|| {
            ApiError::unauthorized("missing Authorization header: use Bearer <API key>")
        })?;
    value
        .to_str()
        .ok()
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|key| !key.is_empty())
        .ok_or_else(|| {
            ApiError::unauthorized("malformed Authorization header: use Bearer <API key>")
        })
}

async fn authenticate(request: &HttpRequest) -> Result<Caller, ApiError> {
    let state = request
        .app_data::<web::Data<AppState>>()
        .ok_or_else(ApiError::internal)?;
    let hash = keys::hash(bearer(request)?);
    // A key refused in this window is refused again without a database round trip.
    if let Some(refusal) = state.gate.cached_refusal(&hash) {
        return Err(limited(refusal));
    }
    let (key, team) = state
        .services
        .procflow
        .ports()
        .teams
        .find_api_key(&hash)
        .await?
        .ok_or_else(|| ApiError::unauthorized("unknown or revoked API key"))?;
    if !team.is_active() {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden",
            "the team's subscription is not active",
        ));
    }
    match state.gate.admit(team.id, key.id, hash).await {
        Ok(quota) => {
            request.extensions_mut().insert(quota);
            Ok(Caller { team, key: key.id })
        }
        Err(Refusal::Store(error)) => Err(error.into()),
        Err(refusal) => Err(limited(refusal)),
    }
}

fn limited(refusal: Refusal) -> ApiError {
    let mut error = ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "rate_limited",
        "too many requests for this API key; retry after the time in Retry-After",
    );
    for (name, value) in headers::for_refusal(&refusal) {
        error = error.with_header(header::HeaderName::from_static(name), value);
    }
    error
}
