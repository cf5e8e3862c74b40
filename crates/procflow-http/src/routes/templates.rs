//! `/api/v1/process-templates`: list, get, tasks, publish, and authoring (create, replace,
//! archive).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use procflow_domain::template::TemplateDocument;
use serde_json::Value;

use crate::AppState;
use crate::auth::Caller;
use crate::bodies::{Body, PublishBody};
use crate::conditional::{self, IfMatchHeader, IfNoneMatch};
use crate::error::ApiError;
use crate::params::{self, PageQuery};
use crate::validate_only::{self, ValidateOnly};
use crate::views::{self, TemplateListView, TemplateTaskView, TemplateView};

/// `GET /process-templates` (spec 4.2).
#[utoipa::path(
    get,
    path = "/api/v1/process-templates",
    tag = "templates",
    operation_id = "listTemplates",
    summary = "List templates",
    description = "The team's templates, by creation then id (archived ones left out).",
    params(PageQuery),
    responses((status = 200, description = "A page of templates", body = crate::openapi::envelopes::TemplateList))
)]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = state
        .procflow()
        .list_templates(&caller.team, query.page()?)
        .await?;
    Ok(views::list(
        &page,
        |item| item.id.as_uuid(),
        TemplateListView::from,
    ))
}

/// `GET /process-templates/{id}` (spec 4.3).
#[utoipa::path(
    get,
    path = "/api/v1/process-templates/{id}",
    tag = "templates",
    operation_id = "getTemplate",
    summary = "Get a template",
    params(("id" = String, Path, format = "uuid", description = "The template's id")),
    responses((status = 200, description = "The template", body = crate::openapi::envelopes::TemplateData))
)]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    held: IfNoneMatch,
) -> Result<HttpResponse, ApiError> {
    let template = state
        .procflow()
        .get_template(&caller.team, params::template_id(&id)?)
        .await?;
    Ok(held.answer(&template, TemplateView::from))
}

/// `GET /process-templates/{id}/tasks` (spec 4.4).
#[utoipa::path(
    get,
    path = "/api/v1/process-templates/{id}/tasks",
    tag = "templates",
    operation_id = "listTemplateTasks",
    summary = "List a template's tasks",
    description = "By position, each with its form fields: the ids to pre-fill a run with.",
    params(("id" = String, Path, format = "uuid", description = "The template's id"), PageQuery),
    responses((status = 200, description = "A page of template tasks", body = crate::openapi::envelopes::TemplateTaskList))
)]
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
    Ok(views::list(
        &page,
        |item| item.id.as_uuid(),
        TemplateTaskView::from,
    ))
}

/// `POST /process-templates/{id}/publish` with `{"published": bool}` (API contract 5).
#[utoipa::path(
    post,
    path = "/api/v1/process-templates/{id}/publish",
    tag = "templates",
    operation_id = "publishTemplate",
    summary = "Publish or unpublish a template",
    description = "Publishing adds 1 to `version` and needs at least one task; publishing a published template changes nothing. Only a published template starts runs; only an unpublished one can be edited.",
    params(("id" = String, Path, format = "uuid", description = "The template's id"), ValidateOnly),
    request_body = crate::bodies::PublishBody,
    responses((status = 200, description = "The template", body = crate::openapi::envelopes::TemplateData))
)]
pub async fn publish(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    query: web::Query<ValidateOnly>,
    Body(body): Body<PublishBody>,
) -> Result<HttpResponse, ApiError> {
    let dry = query.dry()?;
    let template = ValidateOnly::service(dry, &state)
        .publish_template(&caller.team, params::template_id(&id)?, body.published)
        .await?;
    Ok(validate_only::answer(
        views::data(TemplateView::from(&template)),
        dry,
    ))
}

/// `POST /process-templates`: a draft from an authoring document.
#[utoipa::path(
    post,
    path = "/api/v1/process-templates",
    tag = "templates",
    operation_id = "createTemplate",
    summary = "Create a template",
    description = "A draft (unpublished, version 0) from an authoring document.",
    params(ValidateOnly),
    request_body = TemplateDocument,
    responses(
        (status = 201, description = "The new draft", body = crate::openapi::envelopes::TemplateData),
        (status = 200, description = "With `validate_only=true`: the draft the request would create, not stored (header `Procflow-Validate-Only: true`)", body = crate::openapi::envelopes::TemplateData)
    )
)]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<ValidateOnly>,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let dry = query.dry()?;
    let document =
        TemplateDocument::from_json(body.into_inner()).map_err(ApiError::from_validation)?;
    let template = ValidateOnly::service(dry, &state)
        .create_template(&caller.team, document)
        .await?;
    Ok(validate_only::answer(
        views::with_status(StatusCode::CREATED, TemplateView::from(&template)),
        dry,
    ))
}

/// `PUT /process-templates/{id}`: replaces a draft's document.
#[utoipa::path(
    put,
    path = "/api/v1/process-templates/{id}",
    tag = "templates",
    operation_id = "replaceTemplate",
    summary = "Replace a template's document",
    description = "Only while unpublished. Ids given in the document are kept, so pre-fill ids stay stable.",
    params(("id" = String, Path, format = "uuid", description = "The template's id"), ValidateOnly),
    request_body = TemplateDocument,
    responses((status = 200, description = "The template", body = crate::openapi::envelopes::TemplateData))
)]
pub async fn replace(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    IfMatchHeader(if_match): IfMatchHeader,
    query: web::Query<ValidateOnly>,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let dry = query.dry()?;
    let id = params::template_id(&id)?;
    let document =
        TemplateDocument::from_json(body.into_inner()).map_err(ApiError::from_validation)?;
    let template = ValidateOnly::service(dry, &state)
        .replace_template(&caller.team, id, document, if_match.as_ref())
        .await?;
    Ok(validate_only::answer(
        conditional::tagged(&template, TemplateView::from),
        dry,
    ))
}

/// `DELETE /process-templates/{id}`: archives it; 204.
#[utoipa::path(
    delete,
    path = "/api/v1/process-templates/{id}",
    tag = "templates",
    operation_id = "archiveTemplate",
    summary = "Archive a template",
    description = "Gone from lists and gets; runs started from it are untouched.",
    params(("id" = String, Path, format = "uuid", description = "The template's id")),
    responses((status = 204, description = "Archived"))
)]
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
