//! `/api/v1/process-runs`: list, create, get, and sharing (invite, stop sharing).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};

use crate::AppState;
use crate::auth::Caller;
use crate::bodies::{Body, CreateRunBody, IntoRequest, InviteBody};
use crate::conditional::IfNoneMatch;
use crate::error::ApiError;
use crate::params::{self, RunsQuery};
use crate::validate_only::{self, ValidateOnly};
use crate::views::{self, CreatedRunView, RunView, ShareResultView};

/// `GET /process-runs` (spec 4.5).
#[utoipa::path(
    get,
    path = "/api/v1/process-runs",
    tag = "runs",
    operation_id = "listRuns",
    summary = "List runs",
    description = "The team's runs, newest first.",
    params(RunsQuery),
    responses((status = 200, description = "A page of runs", body = crate::openapi::envelopes::RunList))
)]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<RunsQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = state
        .procflow()
        .list_runs(&caller.team, query.filter()?, query.page()?)
        .await?;
    Ok(views::list_written(
        &page,
        |item| item.id.as_uuid(),
        RunView::from,
    ))
}

/// `POST /process-runs` (spec 4.6): 201 with the reduced run.
#[utoipa::path(
    post,
    path = "/api/v1/process-runs",
    tag = "runs",
    operation_id = "createRun",
    summary = "Start a run",
    description = "Copies the published template's tasks and form fields; later template edits never change the run.",
    params(ValidateOnly),
    request_body = crate::bodies::CreateRunBody,
    responses(
        (status = 201, description = "The new run (the Create shape)", body = crate::openapi::envelopes::CreatedRunData),
        (status = 200, description = "With `validate_only=true`: the run the request would start, not stored (header `Procflow-Validate-Only: true`)", body = crate::openapi::envelopes::CreatedRunData)
    )
)]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<ValidateOnly>,
    Body(body): Body<CreateRunBody>,
) -> Result<HttpResponse, ApiError> {
    let dry = query.dry()?;
    let request = body.into_request()?;
    let run = ValidateOnly::service(dry, &state)
        .create_run(&caller.team, request)
        .await?;
    Ok(validate_only::answer(
        views::with_status(StatusCode::CREATED, CreatedRunView::from(&run)),
        dry,
    ))
}

/// `GET /process-runs/{id}` (spec 4.8).
#[utoipa::path(
    get,
    path = "/api/v1/process-runs/{id}",
    tag = "runs",
    operation_id = "getRun",
    summary = "Get a run",
    params(("id" = String, Path, format = "uuid", description = "The run's id")),
    responses((status = 200, description = "The run", body = crate::openapi::envelopes::RunData))
)]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    held: IfNoneMatch,
) -> Result<HttpResponse, ApiError> {
    let run = state
        .procflow()
        .get_run(&caller.team, params::run_id(&id)?)
        .await?;
    Ok(held.answer_written(&run, RunView::from))
}

/// `POST /process-runs/{id}/invite` (spec 4.7).
#[utoipa::path(
    post,
    path = "/api/v1/process-runs/{id}/invite",
    tag = "sharing",
    operation_id = "inviteGuest",
    summary = "Share a run with a guest",
    description = "Turns link sharing on and answers the link; with `email`, invites that guest (at most one per run; the same email again re-sends the invitation).",
    params(("id" = String, Path, format = "uuid", description = "The run's id")),
    request_body = crate::bodies::InviteBody,
    responses((status = 200, description = "The share result", body = crate::openapi::envelopes::ShareResultData))
)]
pub async fn invite(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    Body(body): Body<InviteBody>,
) -> Result<HttpResponse, ApiError> {
    let run = params::run_id(&id)?;
    let invitation = body.into_request()?;
    let change = state
        .procflow()
        .invite_guest(&caller.team, run, invitation)
        .await?;
    Ok(views::data(ShareResultView::from(&change)))
}

/// `DELETE /process-runs/{id}/invite`: sharing off, token void; answers the run.
#[utoipa::path(
    delete,
    path = "/api/v1/process-runs/{id}/invite",
    tag = "sharing",
    operation_id = "stopSharing",
    summary = "Stop sharing a run",
    description = "Turns link sharing off: the link stops working.",
    params(("id" = String, Path, format = "uuid", description = "The run's id")),
    responses((status = 200, description = "The run, no longer shared", body = crate::openapi::envelopes::RunData))
)]
pub async fn stop_sharing(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let run = state
        .procflow()
        .stop_sharing(&caller.team, params::run_id(&id)?)
        .await?;
    Ok(views::data(RunView::from(&run)))
}
