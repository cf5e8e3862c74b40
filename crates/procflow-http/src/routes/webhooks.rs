//! `/api/v1/webhooks` and `/api/v1/webhook-deliveries` (API contract 8.1): endpoints, their
//! secrets, samples, delivery logs and redeliveries. Every id is the caller team's.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};

use crate::AppState;
use crate::auth::Caller;
use crate::bodies::{Body, CreateWebhookBody, IntoRequest, TestWebhookBody, UpdateWebhookBody};
use crate::conditional::{self, IfMatchHeader, IfNoneMatch};
use crate::error::ApiError;
use crate::params::PageQuery;
use crate::params::webhooks::{DeliveriesQuery, delivery_id, webhook_id};
use crate::views::{self, DeliveryView, WebhookView, WebhookWithSecretView};

const ID: &str = "The webhook's id";

/// `GET /webhooks`
#[utoipa::path(
    get,
    path = "/api/v1/webhooks",
    tag = "webhooks",
    operation_id = "listWebhooks",
    summary = "List webhook endpoints",
    description = "The team's endpoints, oldest first. Secrets are not shown.",
    params(PageQuery),
    responses((status = 200, description = "A page of endpoints", body = crate::openapi::envelopes::WebhookList))
)]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = state.webhooks().list(&caller.team, query.page()?).await?;
    Ok(views::list(
        &page,
        |item| item.id.as_uuid(),
        WebhookView::from,
    ))
}

/// `POST /webhooks`
#[utoipa::path(
    post,
    path = "/api/v1/webhooks",
    tag = "webhooks",
    operation_id = "createWebhook",
    summary = "Register a webhook endpoint",
    description = "Events of the team are posted to `url`, signed (Standard Webhooks) with the `secret` of the answer: it is shown this once.",
    request_body = crate::bodies::CreateWebhookBody,
    responses((status = 201, description = "The endpoint, with its secret", body = crate::openapi::envelopes::WebhookWithSecretData))
)]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    Body(body): Body<CreateWebhookBody>,
) -> Result<HttpResponse, ApiError> {
    let endpoint = state
        .webhooks()
        .create(&caller.team, body.into_request()?)
        .await?;
    Ok(views::with_status(
        StatusCode::CREATED,
        WebhookWithSecretView::from(&endpoint),
    ))
}

/// `GET /webhooks/{id}`
#[utoipa::path(
    get,
    path = "/api/v1/webhooks/{id}",
    tag = "webhooks",
    operation_id = "getWebhook",
    summary = "Get a webhook endpoint",
    params(("id" = String, Path, format = "uuid", description = ID)),
    responses((status = 200, description = "The endpoint", body = crate::openapi::envelopes::WebhookData))
)]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    held: IfNoneMatch,
) -> Result<HttpResponse, ApiError> {
    let endpoint = state.webhooks().get(&caller.team, webhook_id(&id)?).await?;
    Ok(held.answer(&endpoint, WebhookView::from))
}

/// `PATCH /webhooks/{id}`
#[utoipa::path(
    patch,
    path = "/api/v1/webhooks/{id}",
    tag = "webhooks",
    operation_id = "updateWebhook",
    summary = "Change a webhook endpoint",
    description = "Any of `url`, `events`, `description`, `enabled`. `enabled: true` re-enables an endpoint disabled after failures and clears `disabled_reason` and `consecutive_failures`.",
    params(("id" = String, Path, format = "uuid", description = ID)),
    request_body = crate::bodies::UpdateWebhookBody,
    responses((status = 200, description = "The endpoint", body = crate::openapi::envelopes::WebhookData))
)]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    IfMatchHeader(if_match): IfMatchHeader,
    Body(body): Body<UpdateWebhookBody>,
) -> Result<HttpResponse, ApiError> {
    let id = webhook_id(&id)?;
    let patch = body.into_request()?;
    let endpoint = state
        .webhooks()
        .update(&caller.team, id, patch, if_match.as_ref())
        .await?;
    Ok(conditional::tagged(&endpoint, WebhookView::from))
}

/// `DELETE /webhooks/{id}`
#[utoipa::path(
    delete,
    path = "/api/v1/webhooks/{id}",
    tag = "webhooks",
    operation_id = "deleteWebhook",
    summary = "Delete a webhook endpoint",
    description = "Its pending deliveries are dropped, and its delivery log with it.",
    params(("id" = String, Path, format = "uuid", description = ID)),
    responses((status = 204, description = "Deleted"))
)]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    state
        .webhooks()
        .delete(&caller.team, webhook_id(&id)?)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `POST /webhooks/{id}/rotate-secret`
#[utoipa::path(
    post,
    path = "/api/v1/webhooks/{id}/rotate-secret",
    tag = "webhooks",
    operation_id = "rotateWebhookSecret",
    summary = "Rotate a webhook endpoint's secret",
    description = "A new secret, shown this once; the previous one keeps signing beside it (a second signature) for 24 hours.",
    params(("id" = String, Path, format = "uuid", description = ID)),
    responses((status = 200, description = "The endpoint, with its new secret", body = crate::openapi::envelopes::WebhookWithSecretData))
)]
pub async fn rotate_secret(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let endpoint = state
        .webhooks()
        .rotate_secret(&caller.team, webhook_id(&id)?)
        .await?;
    Ok(views::data(WebhookWithSecretView::from(&endpoint)))
}

/// `POST /webhooks/{id}/test`
#[utoipa::path(
    post,
    path = "/api/v1/webhooks/{id}/test",
    tag = "webhooks",
    operation_id = "testWebhook",
    summary = "Send a sample event",
    description = "Queues a sample of `event` (`process_run.created` by default) with `test: true`, to be delivered like any other, even to a disabled endpoint. It is not an event of the feed.",
    params(("id" = String, Path, format = "uuid", description = ID)),
    request_body = crate::bodies::TestWebhookBody,
    responses((status = 202, description = "The queued delivery", body = crate::openapi::envelopes::DeliveryData))
)]
pub async fn test(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    Body(body): Body<TestWebhookBody>,
) -> Result<HttpResponse, ApiError> {
    let id = webhook_id(&id)?;
    let event = body.into_request()?;
    let delivery = state.webhooks().send_test(&caller.team, id, event).await?;
    Ok(views::with_status(
        StatusCode::ACCEPTED,
        DeliveryView::from(&delivery),
    ))
}

/// `GET /webhooks/{id}/deliveries`
#[utoipa::path(
    get,
    path = "/api/v1/webhooks/{id}/deliveries",
    tag = "webhooks",
    operation_id = "listWebhookDeliveries",
    summary = "An endpoint's delivery log",
    description = "Its deliveries, newest first, kept 30 days; `status` filters them.",
    params(("id" = String, Path, format = "uuid", description = ID), DeliveriesQuery),
    responses((status = 200, description = "A page of deliveries", body = crate::openapi::envelopes::DeliveryList))
)]
pub async fn deliveries(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    query: web::Query<DeliveriesQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = webhook_id(&id)?;
    let page = state
        .webhooks()
        .deliveries(&caller.team, id, query.filter()?, query.page()?)
        .await?;
    Ok(views::list(
        &page,
        |item| item.id.as_uuid(),
        DeliveryView::from,
    ))
}

/// `POST /webhook-deliveries/{id}/redeliver`
#[utoipa::path(
    post,
    path = "/api/v1/webhook-deliveries/{id}/redeliver",
    tag = "webhooks",
    operation_id = "redeliverWebhook",
    summary = "Deliver an event again",
    description = "Queues a new delivery of the same event (same id, same payload) to the same endpoint.",
    params(("id" = String, Path, format = "uuid", description = "The delivery's id")),
    responses((status = 202, description = "The new delivery", body = crate::openapi::envelopes::DeliveryData))
)]
pub async fn redeliver(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let delivery = state
        .webhooks()
        .redeliver(&caller.team, delivery_id(&id)?)
        .await?;
    Ok(views::with_status(
        StatusCode::ACCEPTED,
        DeliveryView::from(&delivery),
    ))
}
