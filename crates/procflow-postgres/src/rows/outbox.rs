//! Rows of `outbox`.

use diesel::prelude::*;
use procflow_domain::error::DomainError;
use procflow_domain::event::{Event, StoredEvent};
use procflow_domain::webhook::{WebhookEvent, webhook_event};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::corrupt;
use crate::rows::json::JsonText;
use crate::schema::outbox;

#[derive(Insertable, Debug)]
#[diesel(table_name = outbox)]
pub(crate) struct NewOutboxRow {
    pub id: Uuid,
    pub team_id: Uuid,
    pub kind: &'static str,
    pub payload: JsonText,
    pub occurred_at: OffsetDateTime,
    pub due_at: OffsetDateTime,
    /// The webhook event it is, for the event feed.
    pub webhook_event: Option<&'static str>,
}

impl NewOutboxRow {
    pub(crate) fn from_domain(event: &Event) -> Result<Self, DomainError> {
        Ok(Self {
            id: event.id.as_uuid(),
            team_id: event.team_id.as_uuid(),
            kind: event.payload.name(),
            payload: JsonText::of(&StoredEvent::of(event)).map_err(|e| corrupt("event", e))?,
            occurred_at: event.occurred_at,
            due_at: event.occurred_at,
            webhook_event: webhook_event(&event.payload).map(WebhookEvent::as_str),
        })
    }
}
