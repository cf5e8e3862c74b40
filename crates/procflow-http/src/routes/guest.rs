//! `GET /instance/{run_id}?token=...`: the shared run as a minimal HTML page. A wrong or void
//! token, an unknown run and a malformed id all get the same 404 page.

use std::fmt::Write as _;

use actix_web::http::header::{self, ContentType};
use actix_web::{HttpRequest, HttpResponse, HttpResponseBuilder, web};
use html_escape::encode_text as esc;
use procflow_domain::error::DomainError;
use procflow_domain::run::{Run, RunTask};
use procflow_domain::values::ShareToken;
use serde::Deserialize;

use crate::AppState;
use crate::error::ApiError;

#[derive(Deserialize)]
struct GuestQuery {
    token: Option<String>,
}

/// The shared run, or the 404 page.
#[utoipa::path(
    get,
    path = "/instance/{run_id}",
    tag = "guest",
    operation_id = "guestPage",
    summary = "The shared run, for a guest",
    description = "An HTML page (no JavaScript) of the run's sections, tasks and states, for whoever holds the share link.",
    params(
        ("run_id" = String, Path, description = "The run's id"),
        ("token" = String, Query, description = "The share token of the link"),
    ),
    responses(
        (status = 200, description = "The run's page", content_type = "text/html", body = String),
        (status = 404, description = "The same page for a wrong or void token, an unknown run, or a run no longer shared", content_type = "text/html", body = String),
    )
)]
pub async fn page(
    state: web::Data<AppState>,
    request: HttpRequest,
    run_id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let token = web::Query::<GuestQuery>::from_query(request.query_string())
        .ok()
        .and_then(|q| q.into_inner().token);
    let (Some(token), Ok(run_id)) = (token, run_id.parse()) else {
        return Ok(not_found());
    };
    let shared = match state
        .procflow()
        .open_shared_run(run_id, &ShareToken::new(token))
        .await
    {
        Ok(shared) => shared,
        Err(DomainError::NotFound(_)) => return Ok(not_found()),
        Err(other) => return Err(other.into()),
    };
    Ok(secure(HttpResponse::Ok()).body(render(&shared.run, &shared.tasks)))
}

fn secure(mut response: HttpResponseBuilder) -> HttpResponseBuilder {
    response
        .content_type(ContentType::html())
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        ));
    response
}

fn not_found() -> HttpResponse {
    secure(HttpResponse::NotFound()).body(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Not found</title></head>\
         <body><h1>Not found</h1><p>This link is not valid, or the run is no longer shared.</p></body></html>",
    )
}

fn render(run: &Run, tasks: &[RunTask]) -> String {
    let mut html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head>\
         <body><h1>{title}</h1><p>Status: {status}</p>",
        title = esc(&run.title),
        status = run.status().as_str(),
    );
    for section in &run.sections {
        let _ = write!(html, "<section><h2>{}</h2><ul>", esc(&section.title));
        for task in tasks.iter().filter(|t| t.section_id == section.id) {
            let state = task.state.status();
            let _ = write!(html, "<li>{} <em>({state})</em></li>", esc(&task.title));
        }
        html.push_str("</ul></section>");
    }
    html.push_str("</body></html>");
    html
}
