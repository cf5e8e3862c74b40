//! `GET /api/v1/events`: the catch-up feed of the team's webhook events (API contract 8.1).

use actix_web::{HttpResponse, web};

use crate::AppState;
use crate::auth::Caller;
use crate::error::ApiError;
use crate::params::webhooks::EventsQuery;
use crate::views;

/// `GET /events`
#[utoipa::path(
    get,
    path = "/api/v1/events",
    tag = "webhooks",
    operation_id = "listEvents",
    summary = "The event feed",
    description = "The team's events as the envelopes webhooks carry, oldest first, kept 30 days: a receiver that missed deliveries (or whose endpoint was disabled) catches up here. `event` filters them.",
    params(EventsQuery),
    responses((status = 200, description = "A page of events", body = crate::openapi::envelopes::EventList))
)]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<EventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = state
        .webhooks()
        .events(&caller.team, query.event()?, query.page()?)
        .await?;
    Ok(views::list(&page, |e| e.id.as_uuid(), |envelope| envelope))
}
