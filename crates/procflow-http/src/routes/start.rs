//! The start page of a run link (API contract 13.2): `GET /start/{token}`, HTML under the
//! guest page's rules. An unknown or void token, a malformed one, or a template that is
//! unpublished or archived: the guest page's one 404 page. Mounted beside the documented
//! operations rather than among them: like a link on a website it takes any query string (a
//! campaign's `utm_*`), which the API's operations refuse.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use procflow_domain::values::ShareToken;

use crate::AppState;
use crate::guest::{self, StartPage};

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
