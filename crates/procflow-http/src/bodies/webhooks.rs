//! Bodies of the webhook operations (API contract 8.1), parsed into the domain's requests.

use procflow_domain::webhook::{EventNames, NewWebhook, WebhookEvent, WebhookPatch, WebhookUrl};
use serde::Deserialize;

use super::nullable;
use crate::error::ApiError;

/// Register a webhook endpoint.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateWebhook)]
pub struct CreateWebhookBody {
    /// Where deliveries are posted: an absolute `http` or `https` URL.
    #[schema(schema_with = crate::openapi::webhooks::url)]
    url: String,
    /// The events to receive; every event when omitted or null.
    #[serde(default)]
    #[schema(schema_with = crate::openapi::webhooks::optional_events)]
    events: Option<Vec<String>>,
    /// A note for the team.
    #[serde(default)]
    #[schema(schema_with = crate::openapi::webhooks::description)]
    description: Option<String>,
    /// Whether deliveries are made; true when omitted or null.
    #[serde(default)]
    enabled: Option<bool>,
}

/// Change a webhook endpoint; omitted (or null) fields stay as they are, but a null
/// `description` clears it.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdateWebhook)]
pub struct UpdateWebhookBody {
    /// A new URL.
    #[serde(default)]
    #[schema(schema_with = crate::openapi::webhooks::optional_url)]
    url: Option<String>,
    /// New events.
    #[serde(default)]
    #[schema(schema_with = crate::openapi::webhooks::optional_events)]
    events: Option<Vec<String>>,
    /// A new note; null clears it.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(schema_with = crate::openapi::webhooks::description)]
    description: Option<Option<String>>,
    /// `true` enables (clearing `disabled_reason` and `consecutive_failures`), `false` disables.
    #[serde(default)]
    enabled: Option<bool>,
}

/// Send a sample event.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = TestWebhook)]
pub struct TestWebhookBody {
    /// The event to sample; `process_run.created` when omitted or null.
    #[serde(default)]
    #[schema(value_type = Option<WebhookEvent>)]
    event: Option<String>,
}

fn url(text: &str) -> Result<WebhookUrl, ApiError> {
    text.parse().map_err(ApiError::from_validation)
}

fn events(names: Option<Vec<String>>) -> Result<Option<EventNames>, ApiError> {
    names
        .map(|names| EventNames::parse(&names))
        .transpose()
        .map_err(ApiError::from_validation)
}

impl CreateWebhookBody {
    /// The domain's request.
    ///
    /// # Errors
    /// 400 for a URL outside the grammar, unknown or repeated events.
    pub fn into_request(self) -> Result<NewWebhook, ApiError> {
        Ok(NewWebhook {
            url: url(&self.url)?,
            events: events(self.events)?,
            description: self.description,
            enabled: self.enabled,
        })
    }
}

impl UpdateWebhookBody {
    /// The domain's patch.
    ///
    /// # Errors
    /// As for [`CreateWebhookBody::into_request`].
    pub fn into_patch(self) -> Result<WebhookPatch, ApiError> {
        Ok(WebhookPatch {
            url: self.url.as_deref().map(url).transpose()?,
            events: events(self.events)?,
            description: self.description,
            enabled: self.enabled,
        })
    }
}

impl TestWebhookBody {
    /// The event to sample.
    ///
    /// # Errors
    /// 400 for an unknown event name.
    pub fn event(&self) -> Result<WebhookEvent, ApiError> {
        self.event
            .as_deref()
            .map_or(Ok(WebhookEvent::RunCreated), |name| {
                name.parse()
                    .map_err(|e: procflow_domain::names::UnknownName| {
                        ApiError::invalid_field("event", e.to_string())
                    })
            })
    }
}
