//! Webhook endpoints and their deliveries (API contract 8.1).

use procflow_domain::ids::{DeliveryId, EventId, WebhookId};
use procflow_domain::webhook::{
    Delivery, DeliveryStatus, DisabledReason, WebhookEndpoint, WebhookEvent,
};
use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

/// A webhook endpoint; its secret is shown only when created or rotated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = Webhook)]
pub struct WebhookView<'a> {
    #[schema(value_type = String, format = "uuid")]
    pub id: WebhookId,
    #[schema(schema_with = crate::schemas::url)]
    pub url: Cow<'a, str>,
    /// The events it receives.
    #[schema(min_items = 1)]
    pub events: Vec<WebhookEvent>,
    #[schema(schema_with = crate::schemas::description, required = true)]
    pub description: Option<Cow<'a, str>>,
    /// Whether deliveries are made to it.
    pub enabled: bool,
    /// Why procflow disabled it: its last 10 deliveries all failed.
    #[schema(required = true)]
    pub disabled_reason: Option<DisabledReason>,
    /// Deliveries that ended failed since the last one delivered.
    #[schema(minimum = 0)]
    pub consecutive_failures: u32,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

impl<'a> From<&'a WebhookEndpoint> for WebhookView<'a> {
    fn from(endpoint: &'a WebhookEndpoint) -> Self {
        Self {
            id: endpoint.id,
            url: Cow::Borrowed(endpoint.url.as_str()),
            events: endpoint.events.iter().collect(),
            description: endpoint.description.as_deref().map(Cow::Borrowed),
            enabled: endpoint.enabled,
            disabled_reason: endpoint.disabled_reason,
            consecutive_failures: endpoint.consecutive_failures,
            created_at: endpoint.created_at,
            updated_at: endpoint.updated_at,
        }
    }
}

/// A webhook endpoint with its new secret: the answer of create and rotate-secret, the only
/// time the secret is shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = WebhookWithSecret)]
pub struct WebhookWithSecretView<'a> {
    #[serde(flatten)]
    pub webhook: WebhookView<'a>,
    /// `whsec_` + base64 of 32 random bytes: the Standard Webhooks signing secret. The
    /// previous secret, after a rotation, keeps signing for 24 hours.
    #[schema(pattern = "^whsec_[A-Za-z0-9+/]{43}=$")]
    pub secret: Cow<'a, str>,
}

impl<'a> From<&'a WebhookEndpoint> for WebhookWithSecretView<'a> {
    fn from(endpoint: &'a WebhookEndpoint) -> Self {
        Self {
            webhook: WebhookView::from(endpoint),
            secret: Cow::Borrowed(endpoint.secrets.current.expose()),
        }
    }
}

/// One delivery of an event to an endpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = Delivery)]
pub struct DeliveryView<'a> {
    #[schema(value_type = String, format = "uuid")]
    pub id: DeliveryId,
    #[schema(value_type = String, format = "uuid")]
    pub webhook_id: WebhookId,
    /// The event's id: the `webhook-id` header.
    #[schema(value_type = String, format = "uuid")]
    pub event_id: EventId,
    pub event: WebhookEvent,
    pub status: DeliveryStatus,
    /// Attempts started.
    #[schema(minimum = 0)]
    pub attempts: u32,
    /// The last answer's status.
    #[schema(required = true, minimum = 100, maximum = 999)]
    pub response_status: Option<u16>,
    /// The first 500 characters of the last answer's body.
    #[schema(required = true, max_length = 500)]
    pub response_body: Option<Cow<'a, str>>,
    /// Why the last attempt failed.
    #[schema(required = true)]
    pub error: Option<Cow<'a, str>>,
    /// The envelope sent.
    #[schema(schema_with = crate::schemas::envelope_ref)]
    pub payload: Value,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(required = true)]
    pub last_attempt_at: Option<OffsetDateTime>,
    /// When the next attempt is due; null unless pending.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(required = true)]
    pub next_attempt_at: Option<OffsetDateTime>,
}

impl<'a> From<&'a Delivery> for DeliveryView<'a> {
    fn from(delivery: &'a Delivery) -> Self {
        Self {
            id: delivery.id,
            webhook_id: delivery.webhook_id,
            event_id: delivery.event_id,
            event: delivery.event,
            status: delivery.status,
            attempts: delivery.attempts,
            response_status: delivery.response_status,
            response_body: delivery.response_body.as_deref().map(Cow::Borrowed),
            error: delivery.error.as_deref().map(Cow::Borrowed),
            payload: serde_json::from_str(&delivery.payload)
                .unwrap_or_else(|_| Value::String(delivery.payload.clone())),
            created_at: delivery.created_at,
            last_attempt_at: delivery.last_attempt_at,
            next_attempt_at: delivery.next_attempt_at,
        }
    }
}
