//! `/healthz` (the process answers) and `/readyz` (the database answers); no auth.

use std::time::Duration;

use actix_web::rt::time::timeout;
use actix_web::{HttpResponse, web};
use serde_json::json;

use crate::AppState;
use crate::error::ApiError;

/// 200 while the process serves requests.
#[utoipa::path(
    get,
    path = "/healthz",
    tag = "meta",
    operation_id = "liveness",
    summary = "Liveness",
    responses((status = 200, description = "The process answers", body = crate::openapi::schemas::Liveness))
)]
pub async fn live() -> HttpResponse {
    HttpResponse::Ok().json(json!({"status": "ok"}))
}

/// How long `/readyz` waits for the database: a load balancer needs a quick answer, sooner than
/// the pool's own timeout when every connection is busy or the database is silent. 800 ms, so
/// that the answer reaches the client within a second, the request's own way included.
pub const READY_DEADLINE: Duration = Duration::from_millis(800);

/// 200 when the database answers within [`READY_DEADLINE`], 503 `unavailable` otherwise.
#[utoipa::path(
    get,
    path = "/readyz",
    tag = "meta",
    operation_id = "readiness",
    summary = "Readiness",
    description = "Answers within a second: 503 when the database does not answer by then (down, silent, or every pooled connection busy).",
    responses((status = 200, description = "The database answers", body = crate::openapi::schemas::Readiness))
)]
pub async fn ready(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    match timeout(READY_DEADLINE, state.services.health.ping()).await {
        Ok(answer) => answer?,
        Err(_) => {
            tracing::warn!(
                deadline_ms = READY_DEADLINE.as_millis(),
                "the database did not answer /readyz in time"
            );
            return Err(ApiError::unavailable());
        }
    }
    Ok(HttpResponse::Ok().json(json!({"status": "ready"})))
}
