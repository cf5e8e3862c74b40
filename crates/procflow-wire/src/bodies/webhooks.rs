//! Bodies of the webhook operations (API contract 8.1).

use procflow_domain::webhook::WebhookEvent;
use serde::{Deserialize, Serialize};

/// Register a webhook endpoint.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateWebhook)]
pub struct CreateWebhookBody {
    /// Where deliveries are posted: an absolute `http` or `https` URL.
    #[schema(schema_with = crate::schemas::url)]
    pub url: String,
    /// The events to receive; every event when omitted or null.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::schemas::optional_events)]
    pub events: Option<Vec<String>>,
    /// A note for the team.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::schemas::description)]
    pub description: Option<String>,
    /// Whether deliveries are made; true when omitted or null.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

/// Change a webhook endpoint; omitted (or null) fields stay as they are, but a null
/// `description` clears it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdateWebhook)]
pub struct UpdateWebhookBody {
    /// A new URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::schemas::optional_url)]
    pub url: Option<String>,
    /// New events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::schemas::optional_events)]
    pub events: Option<Vec<String>>,
    /// A new note; null clears it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::nullable::present"
    )]
    #[schema(schema_with = crate::schemas::description)]
    pub description: Option<Option<String>>,
    /// `true` enables (clearing `disabled_reason` and `consecutive_failures`), `false` disables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

/// Send a sample event.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = TestWebhook)]
pub struct TestWebhookBody {
    /// The event to sample; `process_run.created` when omitted or null.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<WebhookEvent>)]
    pub event: Option<String>,
}
