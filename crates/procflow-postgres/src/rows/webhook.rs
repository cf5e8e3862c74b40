//! Rows of `webhook_endpoints` and `webhook_deliveries`.

use diesel::prelude::*;
use procflow_domain::error::DomainError;
use procflow_domain::ids::{DeliveryId, EventId, TeamId, WebhookId};
use procflow_domain::webhook::{
    Delivery, EventNames, NewDelivery, SigningSecrets, WebhookEndpoint, WebhookSecret,
};
use time::OffsetDateTime;
use uuid::Uuid;

use super::{parse, to_i32, to_u32};
use crate::error::corrupt;
use crate::schema::{webhook_deliveries, webhook_endpoints};

// `primary_key`: the key is never in an `UPDATE`'s `SET` (Citus refuses to write the
// distribution column `team_id`, even with its own value).
#[derive(Queryable, Selectable, Insertable, AsChangeset, Debug)]
#[diesel(table_name = webhook_endpoints, check_for_backend(diesel::pg::Pg))]
#[diesel(treat_none_as_null = true, primary_key(team_id, id))]
pub(crate) struct WebhookRow {
    pub team_id: Uuid,
    pub id: Uuid,
    pub url: String,
    pub events: Vec<Option<String>>,
    pub description: Option<String>,
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    pub consecutive_failures: i32,
    pub secret: String,
    pub previous_secret: Option<String>,
    pub previous_secret_until: Option<OffsetDateTime>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

fn secret(text: &str) -> Result<WebhookSecret, DomainError> {
    WebhookSecret::parse(text).map_err(|e| corrupt("webhook secret", e))
}

impl WebhookRow {
    pub(crate) fn from_domain(endpoint: &WebhookEndpoint) -> Self {
        let (previous_secret, previous_secret_until) = match &endpoint.secrets.previous {
            Some((secret, until)) => (Some(secret.expose().to_owned()), Some(*until)),
            None => (None, None),
        };
        Self {
            team_id: endpoint.team_id.as_uuid(),
            id: endpoint.id.as_uuid(),
            url: endpoint.url.as_str().to_owned(),
            events: endpoint
                .events
                .iter()
                .map(|e| Some(e.as_str().to_owned()))
                .collect(),
            description: endpoint.description.clone(),
            enabled: endpoint.enabled,
            disabled_reason: endpoint.disabled_reason.map(|r| r.as_str().to_owned()),
            consecutive_failures: to_i32(endpoint.consecutive_failures),
            secret: endpoint.secrets.current.expose().to_owned(),
            previous_secret,
            previous_secret_until,
            created_at: endpoint.created_at,
            updated_at: endpoint.updated_at,
        }
    }

    pub(crate) fn into_domain(self) -> Result<WebhookEndpoint, DomainError> {
        let names: Vec<String> = self.events.into_iter().flatten().collect();
        let previous = match (self.previous_secret, self.previous_secret_until) {
            (Some(text), Some(until)) => Some((secret(&text)?, until)),
            _ => None,
        };
        Ok(WebhookEndpoint {
            id: WebhookId::from_uuid(self.id),
            team_id: TeamId::from_uuid(self.team_id),
            url: parse("webhook url", &self.url)?,
            events: EventNames::parse(&names).map_err(|e| corrupt("webhook events", e))?,
            description: self.description,
            enabled: self.enabled,
            disabled_reason: self
                .disabled_reason
                .map(|r| parse("disabled reason", &r))
                .transpose()?,
            consecutive_failures: to_u32("consecutive failures", self.consecutive_failures)?,
            secrets: SigningSecrets {
                current: secret(&self.secret)?,
                previous,
            },
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

#[derive(Queryable, Selectable, Debug)]
#[diesel(table_name = webhook_deliveries, check_for_backend(diesel::pg::Pg))]
pub(crate) struct DeliveryRow {
    pub team_id: Uuid,
    pub id: Uuid,
    pub webhook_id: Uuid,
    pub event_id: Uuid,
    pub event: String,
    pub origin: String,
    pub status: String,
    pub attempts: i32,
    pub response_status: Option<i32>,
    pub response_body: Option<String>,
    pub error: Option<String>,
    pub payload: String,
    pub created_at: OffsetDateTime,
    pub last_attempt_at: Option<OffsetDateTime>,
    pub due_at: OffsetDateTime,
}

impl DeliveryRow {
    pub(crate) fn into_domain(self) -> Result<Delivery, DomainError> {
        let status: procflow_domain::webhook::DeliveryStatus =
            parse("delivery status", &self.status)?;
        let pending = status == procflow_domain::webhook::DeliveryStatus::Pending;
        Ok(Delivery {
            id: DeliveryId::from_uuid(self.id),
            team_id: TeamId::from_uuid(self.team_id),
            webhook_id: WebhookId::from_uuid(self.webhook_id),
            event_id: EventId::from_uuid(self.event_id),
            event: parse("webhook event", &self.event)?,
            origin: parse("delivery origin", &self.origin)?,
            status,
            attempts: to_u32("attempts", self.attempts)?,
            response_status: self
                .response_status
                .map(|s| u16::try_from(s).map_err(|e| corrupt("response status", e)))
                .transpose()?,
            response_body: self.response_body,
            error: self.error,
            payload: self.payload,
            created_at: self.created_at,
            last_attempt_at: self.last_attempt_at,
            next_attempt_at: pending.then_some(self.due_at),
        })
    }
}

#[derive(Insertable, Debug)]
#[diesel(table_name = webhook_deliveries)]
pub(crate) struct NewDeliveryRow {
    pub team_id: Uuid,
    pub id: Uuid,
    pub webhook_id: Uuid,
    pub event_id: Uuid,
    pub event: &'static str,
    pub origin: &'static str,
    pub status: &'static str,
    pub payload: String,
    pub created_at: OffsetDateTime,
    pub due_at: OffsetDateTime,
}

impl NewDeliveryRow {
    pub(crate) fn from_domain(delivery: &NewDelivery) -> Self {
        Self {
            team_id: delivery.team_id.as_uuid(),
            id: delivery.id.as_uuid(),
            webhook_id: delivery.webhook_id.as_uuid(),
            event_id: delivery.event_id.as_uuid(),
            event: delivery.event.as_str(),
            origin: delivery.origin.as_str(),
            status: procflow_domain::webhook::DeliveryStatus::Pending.as_str(),
            payload: delivery.payload.clone(),
            created_at: delivery.created_at,
            due_at: delivery.created_at,
        }
    }
}
