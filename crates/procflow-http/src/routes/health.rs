//! `/healthz` (the process answers) and `/readyz` (the database answers); no auth.

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

/// 200 when the database answers, 503 `unavailable` otherwise.
#[utoipa::path(
    get,
    path = "/readyz",
    tag = "meta",
    operation_id = "readiness",
    summary = "Readiness",
    responses((status = 200, description = "The database answers", body = crate::openapi::schemas::Readiness))
)]
pub async fn ready(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    state.services.health.ping().await?;
    Ok(HttpResponse::Ok().json(json!({"status": "ready"})))
}
