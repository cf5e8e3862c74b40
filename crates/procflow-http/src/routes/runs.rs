//! `/api/v1/process-runs`: list, create, get, and sharing (invite, stop sharing).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};

use crate::AppState;
use crate::auth::Caller;
use crate::bodies::{Body, CreateRunBody, InviteBody};
use crate::error::ApiError;
use crate::params::{self, RunsQuery};
use crate::views::{self, CreatedRunView, RunView, ShareResultView};

/// `GET /process-runs` (spec 4.5).
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<RunsQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = state
        .procflow()
        .list_runs(&caller.team, query.filter()?, query.page()?)
        .await?;
    Ok(views::list(&page, RunView::from))
}

/// `POST /process-runs` (spec 4.6): 201 with the reduced run.
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    Body(body): Body<CreateRunBody>,
) -> Result<HttpResponse, ApiError> {
    let request = body.into_request()?;
    let run = state.procflow().create_run(&caller.team, request).await?;
    Ok(views::with_status(
        StatusCode::CREATED,
        CreatedRunView::from(&run),
    ))
}

/// `GET /process-runs/{id}` (spec 4.8).
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let run = state
        .procflow()
        .get_run(&caller.team, params::run_id(&id)?)
        .await?;
    Ok(views::data(RunView::from(&run)))
}

/// `POST /process-runs/{id}/invite` (spec 4.7).
pub async fn invite(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    Body(body): Body<InviteBody>,
) -> Result<HttpResponse, ApiError> {
    let run = params::run_id(&id)?;
    let invitation = body.into_invitation()?;
    let change = state
        .procflow()
        .invite_guest(&caller.team, run, invitation)
        .await?;
    Ok(views::data(ShareResultView::from(&change)))
}

/// `DELETE /process-runs/{id}/invite`: sharing off, token void; answers the run.
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
