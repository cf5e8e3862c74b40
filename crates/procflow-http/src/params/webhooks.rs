//! Path and query parameters of the webhook operations.

use procflow_domain::error::Resource;
use procflow_domain::ids::{DeliveryId, WebhookId};
use procflow_domain::values::PageRequest;
use procflow_domain::webhook::{DeliveryFilter, DeliveryStatus, WebhookEvent};
use serde::Deserialize;

use super::{id, page};
use crate::error::ApiError;

/// `/webhooks/{id}`
pub fn webhook_id(text: &str) -> Result<WebhookId, ApiError> {
    id(text, Resource::Webhook)
}

/// `/webhook-deliveries/{id}`
pub fn delivery_id(text: &str) -> Result<DeliveryId, ApiError> {
    id(text, Resource::Delivery)
}

/// An endpoint's delivery log: a page, and a status.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DeliveriesQuery {
    /// Items per page.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100, default = 20)]
    limit: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(format = "uuid")]
    cursor: Option<String>,
    /// Only deliveries in this status.
    #[param(value_type = Option<DeliveryStatus>)]
    status: Option<String>,
}

impl DeliveriesQuery {
    /// The page asked for.
    ///
    /// # Errors
    /// 400 for a bad limit or cursor.
    pub fn page(&self) -> Result<PageRequest, ApiError> {
        page(self.limit.as_deref(), self.cursor.as_deref())
    }

    /// The filter asked for.
    ///
    /// # Errors
    /// 400 for an unknown status.
    pub fn filter(&self) -> Result<DeliveryFilter, ApiError> {
        let status = self
            .status
            .as_deref()
            .map(str::parse::<DeliveryStatus>)
            .transpose()
            .map_err(|unknown| ApiError::invalid_field("status", unknown.to_string()))?;
        Ok(DeliveryFilter { status })
    }
}

/// The event feed: a page, and an event name.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Items per page.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100, default = 20)]
    limit: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(format = "uuid")]
    cursor: Option<String>,
    /// Only events of this name.
    #[param(value_type = Option<WebhookEvent>)]
    event: Option<String>,
}

impl EventsQuery {
    /// The page asked for.
    ///
    /// # Errors
    /// 400 for a bad limit or cursor.
    pub fn page(&self) -> Result<PageRequest, ApiError> {
        page(self.limit.as_deref(), self.cursor.as_deref())
    }

    /// The event asked for.
    ///
    /// # Errors
    /// 400 for an unknown event name.
    pub fn event(&self) -> Result<Option<WebhookEvent>, ApiError> {
        self.event
            .as_deref()
            .map(str::parse::<WebhookEvent>)
            .transpose()
            .map_err(|unknown| ApiError::invalid_field("event", unknown.to_string()))
    }
}
