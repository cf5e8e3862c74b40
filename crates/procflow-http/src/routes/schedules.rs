//! `/api/v1/schedules` (API contract 13.1): runs of a template started on a recurrence. Every
//! id is the caller team's.

use crate::views::{self, ScheduleView};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};

use crate::AppState;
use crate::auth::Caller;
use crate::bodies::{Body, CreateScheduleBody, IntoRequest, UpdateScheduleBody};
use crate::conditional::{self, IfMatchHeader, IfNoneMatch};
use crate::error::ApiError;
use crate::params::schedules::{SchedulesQuery, schedule_id};

const ID: &str = "The schedule's id";

/// `GET /schedules`
#[utoipa::path(
    get,
    path = "/api/v1/schedules",
    tag = "schedules",
    operation_id = "listSchedules",
    summary = "List schedules",
    description = "The team's schedules, oldest first; `template_id` and `enabled` filter them.",
    params(SchedulesQuery),
    responses((status = 200, description = "A page of schedules", body = crate::openapi::envelopes::ScheduleList))
)]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<SchedulesQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = state
        .schedules()
        .list(&caller.team, query.filter()?, query.page()?)
        .await?;
    Ok(views::list_written(
        &page,
        |item| item.id.as_uuid(),
        ScheduleView::from,
    ))
}

/// `POST /schedules`
#[utoipa::path(
    post,
    path = "/api/v1/schedules",
    tag = "schedules",
    operation_id = "createSchedule",
    summary = "Create a schedule",
    description = "Starts a run of the template at each occurrence of `recurrence` (RFC 5545 `DTSTART` and `RRULE`: `FREQ` DAILY, WEEKLY, MONTHLY or YEARLY, `INTERVAL`, `BYDAY`, `BYMONTHDAY`, `BYMONTH`, `BYHOUR`, `BYMINUTE`, `COUNT`, `UNTIL`; at most one occurrence per 15 minutes), in `timezone` (the team's by default), so that 09:00 stays 09:00 across daylight-saving changes. The first occurrence is the first at or after now. `run` is what each run gets, checked now against the template's published version and again at each occurrence.",
    request_body = crate::bodies::CreateScheduleBody,
    responses((status = 201, description = "The schedule", body = crate::openapi::envelopes::ScheduleData))
)]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    Body(body): Body<CreateScheduleBody>,
) -> Result<HttpResponse, ApiError> {
    let schedule = state
        .schedules()
        .create(&caller.team, body.into_request()?)
        .await?;
    Ok(views::with_status(
        StatusCode::CREATED,
        ScheduleView::from(&schedule),
    ))
}

/// `GET /schedules/{id}`
#[utoipa::path(
    get,
    path = "/api/v1/schedules/{id}",
    tag = "schedules",
    operation_id = "getSchedule",
    summary = "Get a schedule",
    params(("id" = String, Path, format = "uuid", description = ID)),
    responses((status = 200, description = "The schedule", body = crate::openapi::envelopes::ScheduleData))
)]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    held: IfNoneMatch,
) -> Result<HttpResponse, ApiError> {
    let schedule = state
        .schedules()
        .get(&caller.team, schedule_id(&id)?)
        .await?;
    Ok(held.answer(&schedule, ScheduleView::from))
}

/// `PATCH /schedules/{id}`
#[utoipa::path(
    patch,
    path = "/api/v1/schedules/{id}",
    tag = "schedules",
    operation_id = "updateSchedule",
    summary = "Change a schedule",
    description = "Any of `name`, `recurrence`, `timezone`, `enabled`, `run` (replaced as a whole). A new `recurrence` or `timezone`, or `enabled: true` on a disabled schedule, counts occurrences from now.",
    params(("id" = String, Path, format = "uuid", description = ID)),
    request_body = crate::bodies::UpdateScheduleBody,
    responses((status = 200, description = "The schedule", body = crate::openapi::envelopes::ScheduleData))
)]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    IfMatchHeader(if_match): IfMatchHeader,
    Body(body): Body<UpdateScheduleBody>,
) -> Result<HttpResponse, ApiError> {
    let id = schedule_id(&id)?;
    let mut patch = body.into_request()?;
    patch.if_match = if_match;
    let schedule = state.schedules().update(&caller.team, id, patch).await?;
    Ok(conditional::tagged(&schedule, ScheduleView::from))
}

/// `DELETE /schedules/{id}`
#[utoipa::path(
    delete,
    path = "/api/v1/schedules/{id}",
    tag = "schedules",
    operation_id = "deleteSchedule",
    summary = "Delete a schedule",
    description = "No more runs start from it; the runs it started stay.",
    params(("id" = String, Path, format = "uuid", description = ID)),
    responses((status = 204, description = "Deleted"))
)]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    state
        .schedules()
        .delete(&caller.team, schedule_id(&id)?)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
