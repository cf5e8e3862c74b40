//! `/api/v1/process-templates/{id}/run-link` (API contract 13.2): a template's public start
//! link, turned on, read and turned off by the team's API.

use actix_web::{HttpResponse, web};
use procflow_domain::run_link::RunLink;
use procflow_domain::team::Team;

use crate::AppState;
use crate::auth::Caller;
use crate::error::ApiError;
use crate::params;
use crate::views::{self, RunLinkView};

const ID: &str = "The template's id";

fn view(team: &Team, link: Option<&RunLink>) -> RunLinkView {
    RunLinkView::new(link.map(|link| (link.url(&team.base_url), link.created_at)))
}

/// `GET /process-templates/{id}/run-link`
#[utoipa::path(
    get,
    path = "/api/v1/process-templates/{id}/run-link",
    tag = "templates",
    operation_id = "getRunLink",
    summary = "Read a template's run link",
    description = "The template's public start link: `enabled: true` with its `url`, or `enabled: false` (`url` and `created_at` null) while it is off.",
    params(("id" = String, Path, format = "uuid", description = ID)),
    responses((status = 200, description = "The link", body = crate::openapi::envelopes::RunLinkData))
)]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let link = state
        .run_links()
        .get(&caller.team, params::template_id(&id)?)
        .await?;
    Ok(views::data(view(&caller.team, link.as_ref())))
}

/// `POST /process-templates/{id}/run-link`
#[utoipa::path(
    post,
    path = "/api/v1/process-templates/{id}/run-link",
    tag = "templates",
    operation_id = "enableRunLink",
    summary = "Turn a template's run link on",
    description = "Turns the template's public start link on: `url` = `{team base_url}/start/<token>`, where anyone may start a run of the template as its guest (by name and email), while the template is published. Calling it again answers the same link.",
    params(("id" = String, Path, format = "uuid", description = ID)),
    responses((status = 200, description = "The link", body = crate::openapi::envelopes::RunLinkData))
)]
pub async fn enable(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let link = state
        .run_links()
        .enable(&caller.team, params::template_id(&id)?)
        .await?;
    Ok(views::data(view(&caller.team, Some(&link))))
}

/// `DELETE /process-templates/{id}/run-link`
#[utoipa::path(
    delete,
    path = "/api/v1/process-templates/{id}/run-link",
    tag = "templates",
    operation_id = "disableRunLink",
    summary = "Turn a template's run link off",
    description = "Turns the link off and voids its token: it opens nothing any more (a later POST makes a new link). Turning off a link that is off answers 204 as well.",
    params(("id" = String, Path, format = "uuid", description = ID)),
    responses((status = 204, description = "Off"))
)]
pub async fn disable(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    state
        .run_links()
        .disable(&caller.team, params::template_id(&id)?)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
