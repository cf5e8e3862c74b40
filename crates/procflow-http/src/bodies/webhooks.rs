//! The bodies of the webhook operations (API contract 8.1) read into the domain's requests.

use procflow_domain::webhook::{EventNames, NewWebhook, WebhookEvent, WebhookPatch, WebhookUrl};

use super::{CreateWebhookBody, IntoRequest, TestWebhookBody, UpdateWebhookBody};
use crate::error::ApiError;

fn url(text: &str) -> Result<WebhookUrl, ApiError> {
    text.parse().map_err(ApiError::from_validation)
}

fn events(names: Option<Vec<String>>) -> Result<Option<EventNames>, ApiError> {
    names
        .map(|names| EventNames::parse(&names))
        .transpose()
        .map_err(ApiError::from_validation)
}

impl IntoRequest for CreateWebhookBody {
    type Request = NewWebhook;

    /// The domain's request.
    ///
    /// # Errors
    /// 400 for a URL outside the grammar, unknown or repeated events.
    fn into_request(self) -> Result<NewWebhook, ApiError> {
        Ok(NewWebhook {
            url: url(&self.url)?,
            events: events(self.events)?,
            description: self.description,
            enabled: self.enabled,
        })
    }
}

impl IntoRequest for UpdateWebhookBody {
    type Request = WebhookPatch;

    /// The domain's patch.
    ///
    /// # Errors
    /// As for creating one.
    fn into_request(self) -> Result<WebhookPatch, ApiError> {
        Ok(WebhookPatch {
            url: self.url.as_deref().map(url).transpose()?,
            events: events(self.events)?,
            description: self.description,
            enabled: self.enabled,
        })
    }
}

impl IntoRequest for TestWebhookBody {
    type Request = WebhookEvent;

    /// The event to sample.
    ///
    /// # Errors
    /// 400 for an unknown event name.
    fn into_request(self) -> Result<WebhookEvent, ApiError> {
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
