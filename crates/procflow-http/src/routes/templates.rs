//! `/api/v1/process-templates`: list, get, tasks, publish, and authoring (create, replace,
//! archive).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use procflow_domain::template::TemplateDocument;
use serde_json::Value;

use crate::AppState;
use crate::auth::Caller;
use crate::bodies::{Body, PublishBody};
use crate::error::ApiError;
use crate::params::{self, PageQuery};
use crate::views::{self, TemplateListView, TemplateTaskView, TemplateView};

/// `GET /process-templates` (spec 4.2).
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = state
        .procflow()
        .list_templates(&caller.team, query.page()?)
        .await?;
    Ok(views::list(&page, TemplateListView::from))
}

/// `GET /process-templates/{id}` (spec 4.3).
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let template = state
        .procflow()
        .get_template(&caller.team, params::template_id(&id)?)
        .await?;
    Ok(views::data(TemplateView::from(&template)))
}

/// `GET /process-templates/{id}/tasks` (spec 4.4).
pub async fn tasks(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = state
        .procflow()
        .list_template_tasks(&caller.team, params::template_id(&id)?, query.page()?)
        .await?;
    Ok(views::list(&page, TemplateTaskView::from))
}

/// `POST /process-templates/{id}/publish` with `{"published": bool}` (API contract 5).
pub async fn publish(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    Body(body): Body<PublishBody>,
) -> Result<HttpResponse, ApiError> {
    let template = state
        .procflow()
        .publish_template(&caller.team, params::template_id(&id)?, body.published)
        .await?;
    Ok(views::data(TemplateView::from(&template)))
}

/// `POST /process-templates`: a draft from an authoring document.
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let document =
        TemplateDocument::from_json(body.into_inner()).map_err(ApiError::from_validation)?;
    let template = state
        .procflow()
        .create_template(&caller.team, document)
        .await?;
    Ok(views::with_status(
        StatusCode::CREATED,
        TemplateView::from(&template),
    ))
}

/// `PUT /process-templates/{id}`: replaces a draft's document.
pub async fn replace(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let id = params::template_id(&id)?;
    let document =
        TemplateDocument::from_json(body.into_inner()).map_err(ApiError::from_validation)?;
    let template = state
        .procflow()
        .replace_template(&caller.team, id, document)
        .await?;
    Ok(views::data(TemplateView::from(&template)))
}

/// `DELETE /process-templates/{id}`: archives it; 204.
pub async fn archive(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    state
        .procflow()
        .archive_template(&caller.team, params::template_id(&id)?)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
