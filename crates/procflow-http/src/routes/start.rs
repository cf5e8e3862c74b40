//! The start page of a run link (API contract 13.2): `GET /start/{token}`, HTML under the
//! guest page's rules. An unknown or void token, a malformed one, or a template that is
//! unpublished or archived: the guest page's one 404 page. Mounted beside the documented
//! operations rather than among them: like a link on a website it takes any query string (a
//! campaign's `utm_*`), which the API's operations refuse.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use procflow_domain::error::DomainError;
use procflow_domain::service::MAX_STARTER_NAME;
use procflow_domain::values::{Email, ShareToken};

use crate::AppState;
use crate::guest::{self, StartEntries, StartForm, StartPage};

/// Where it is mounted.
pub(crate) const PATH: &str = "/start/{token}";

/// The template's start page, or the 404 page.
pub(crate) async fn page(state: web::Data<AppState>, token: web::Path<String>) -> HttpResponse {
    let Some(token) = ShareToken::from_link(&token) else {
        return guest::not_found();
    };
    match state.run_links().open(&token).await {
        Ok((_, _, template)) => {
            guest::html(StatusCode::OK, &StartPage::new(&template, token.expose()))
        }
        Err(error) => guest::refusal(error, None),
    }
}

/// Starts a run from the link for the person of the form, then 303 to its guest page.
pub(crate) async fn post(
    state: web::Data<AppState>,
    request: HttpRequest,
    token: web::Path<String>,
    payload: web::Payload,
) -> HttpResponse {
    let Some(token) = ShareToken::from_link(&token) else {
        return guest::not_found();
    };
    // The page itself, relative to `/start/<token>`.
    let back = token.expose().to_owned();
    let client = request.peer_addr().map(|address| address.ip());
    match guest::admit_start(&state, &token, client).await {
        Ok(decision) if decision.allowed => {}
        Ok(decision) => return guest::too_many(&decision, state.procflow().now(), back),
        Err(error) => return guest::refusal(error, None),
    }
    if !super::guest::is_form(&request) {
        return guest::unreadable(StatusCode::UNSUPPORTED_MEDIA_TYPE, back);
    }
    let body = match super::guest::read_body(payload, state.config.body_limit_bytes).await {
        Ok(body) => body,
        Err(status) => {
            let status =
                crate::transport::body_fault(&request).map_or(status, |fault| fault.status());
            return guest::unreadable(status, back);
        }
    };
    let Some(form) = guest::read_start_form(&body) else {
        return guest::unreadable(StatusCode::BAD_REQUEST, back);
    };
    // A robot: answered as a start is (a 303 back to the page), with no run.
    if !form.website.is_empty() {
        tracing::info!("run link honeypot filled: no run started");
        return see_other(&back);
    }
    let email = form.email.trim().parse::<Email>();
    let refused = |name_error: Option<String>, email_error: Option<String>| {
        let form = form.clone();
        let state = state.clone();
        let token = token.clone();
        async move { refused_start(&state, &token, &form, name_error, email_error).await }
    };
    let Ok(email) = email else {
        return refused(
            None,
            Some("Enter an email address, like name@example.com.".into()),
        )
        .await;
    };
    match state.run_links().start(&token, &form.name, email).await {
        Ok(shared) => {
            tracing::info!(run.id = %shared.run.id, "run started from a run link");
            see_other(&shared.share_url)
        }
        Err(DomainError::Validation(_)) => {
            refused(
                Some(format!(
                    "Enter your name (1 to {MAX_STARTER_NAME} characters)."
                )),
                None,
            )
            .await
        }
        Err(DomainError::GuestIsTeamMember) => {
            refused(
                None,
                Some("This address is a team member's: start the run in procflow instead.".into()),
            )
            .await
        }
        Err(error) => guest::refusal(error, None),
    }
}

/// 303 to `location`, not cached.
fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}

/// The page again, status 400, with what was sent kept and the refusal beside its field.
async fn refused_start(
    state: &AppState,
    token: &ShareToken,
    form: &StartForm,
    name_error: Option<String>,
    email_error: Option<String>,
) -> HttpResponse {
    match state.run_links().open(token).await {
        Ok((_, _, template)) => guest::html(
            StatusCode::BAD_REQUEST,
            &StartPage::new(&template, token.expose()).with_entries(StartEntries {
                name: form.name.clone(),
                email: form.email.clone(),
                name_error,
                email_error,
            }),
        ),
        Err(error) => guest::refusal(error, None),
    }
}
