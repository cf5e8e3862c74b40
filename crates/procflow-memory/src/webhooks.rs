//! `WebhookStore`, `DeliveryQueue` (what is particular to deliveries; the one leased queue
//! of `leased.rs` does the rest) and `EventFeed` in memory, as PostgreSQL keeps them; a
//! scripted webhook `Sender`; a `WorkSignal` rung by hand.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use async_trait::async_trait;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::state::{DeliveryRow, OutboxRow, State, StoredJob, paginate};
use crate::store::InMemoryStore;
use procflow_domain::error::{DomainError, DomainResult, Resource};
use procflow_domain::event::Event;
use procflow_domain::ids::{DeliveryId, TeamId, WebhookId};
use procflow_domain::ports::{
    DeliveryQueue, EventFeed, Sender, WebhookDecision, WebhookStore, WorkSignal,
};
use procflow_domain::values::{Page, PageRequest};
use procflow_domain::webhook::{
    AttemptOutcome, ClaimedDelivery, Deliveries, Delivery, DeliveryFilter, DeliveryOrigin,
    DeliveryStatus, EndpointEffect, NewDelivery, Settlement, WebhookEndpoint, WebhookEvent,
    webhook_event,
};

fn not_found_webhook() -> DomainError {
    DomainError::NotFound(Resource::Webhook)
}

#[async_trait]
impl WebhookStore for InMemoryStore {
    async fn insert_webhook(&self, endpoint: &WebhookEndpoint) -> DomainResult<()> {
        let mut state = self.state();
        if state
            .webhooks
            .iter()
            .any(|w| w.team_id == endpoint.team_id && w.id == endpoint.id)
        {
            return Err(DomainError::Conflict(
                "a record with this id exists already".into(),
            ));
        }
        state.webhooks.push(endpoint.clone());
        Ok(())
    }

    async fn list_webhooks(
        &self,
        team: TeamId,
        page: PageRequest,
    ) -> DomainResult<Page<WebhookEndpoint>> {
        let state = self.state();
        let mut endpoints: Vec<WebhookEndpoint> = state
            .webhooks
            .iter()
            .filter(|w| w.team_id == team)
            .cloned()
            .collect();
        endpoints.sort_by_key(|w| (w.created_at, w.id));
        paginate(&endpoints, page, |w| w.id.as_uuid())
    }

    async fn get_webhook(&self, team: TeamId, id: WebhookId) -> DomainResult<WebhookEndpoint> {
        self.state()
            .webhooks
            .iter()
            .find(|w| w.team_id == team && w.id == id)
            .cloned()
            .ok_or_else(not_found_webhook)
    }

    async fn update_webhook(
        &self,
        team: TeamId,
        id: WebhookId,
        decide: &WebhookDecision<'_>,
    ) -> DomainResult<WebhookEndpoint> {
        let mut state = self.state();
        let endpoint = state
            .webhooks
            .iter_mut()
            .find(|w| w.team_id == team && w.id == id)
            .ok_or_else(not_found_webhook)?;
        let next = decide(endpoint)?;
        *endpoint = next.clone();
        Ok(next)
    }

    async fn delete_webhook(&self, team: TeamId, id: WebhookId) -> DomainResult<()> {
        let mut state = self.state();
        let before = state.webhooks.len();
        state
            .webhooks
            .retain(|w| !(w.team_id == team && w.id == id));
        if state.webhooks.len() == before {
            return Err(not_found_webhook());
        }
        state
            .deliveries
            .retain(|row| !(row.delivery.team_id == team && row.delivery.webhook_id == id));
        Ok(())
    }

    async fn enabled_webhooks(&self, teams: &[TeamId]) -> DomainResult<Vec<WebhookEndpoint>> {
        Ok(self
            .state()
            .webhooks
            .iter()
            .filter(|w| w.enabled && teams.contains(&w.team_id))
            .cloned()
            .collect())
    }
}

#[async_trait]
impl DeliveryQueue for InMemoryStore {
    async fn enqueue(&self, deliveries: &[NewDelivery]) -> DomainResult<()> {
        let mut state = self.state();
        for new in deliveries {
            let endpoint_exists = state
                .webhooks
                .iter()
                .any(|w| w.team_id == new.team_id && w.id == new.webhook_id);
            let repeated = new.origin == DeliveryOrigin::Event
                && state.deliveries.iter().any(|row| {
                    let d = &row.delivery;
                    d.origin == DeliveryOrigin::Event
                        && d.team_id == new.team_id
                        && d.webhook_id == new.webhook_id
                        && d.event_id == new.event_id
                });
            if !endpoint_exists || repeated {
                continue;
            }
            state.deliveries.push(DeliveryRow {
                delivery: Delivery {
                    id: new.id,
                    team_id: new.team_id,
                    webhook_id: new.webhook_id,
                    event_id: new.event_id,
                    event: new.event,
                    origin: new.origin,
                    status: DeliveryStatus::Pending,
                    attempts: 0,
                    response_status: None,
                    response_body: None,
                    error: None,
                    payload: new.payload.clone(),
                    created_at: new.created_at,
                    last_attempt_at: None,
                    next_attempt_at: Some(new.created_at),
                },
                lease: None,
                due_at: new.created_at,
            });
        }
        Ok(())
    }

    async fn list_deliveries(
        &self,
        team: TeamId,
        webhook: WebhookId,
        filter: DeliveryFilter,
        page: PageRequest,
    ) -> DomainResult<Page<Delivery>> {
        let state = self.state();
        if !state
            .webhooks
            .iter()
            .any(|w| w.team_id == team && w.id == webhook)
        {
            return Err(not_found_webhook());
        }
        let mut deliveries: Vec<Delivery> = state
            .deliveries
            .iter()
            .map(|row| &row.delivery)
            .filter(|d| d.team_id == team && d.webhook_id == webhook)
            .filter(|d| filter.status.is_none_or(|s| d.status == s))
            .cloned()
            .collect();
        deliveries.sort_by_key(|d| std::cmp::Reverse(d.id));
        paginate(&deliveries, page, |d| d.id.as_uuid())
    }

    async fn get_delivery(&self, team: TeamId, id: DeliveryId) -> DomainResult<Delivery> {
        self.state()
            .deliveries
            .iter()
            .map(|row| &row.delivery)
            .find(|d| d.team_id == team && d.id == id)
            .cloned()
            .ok_or(DomainError::NotFound(Resource::Delivery))
    }
}

impl StoredJob for Deliveries {
    type Row = DeliveryRow;

    fn rows(state: &mut State) -> &mut Vec<DeliveryRow> {
        &mut state.deliveries
    }

    fn claimed(state: &State, index: usize, lease: Uuid) -> Option<ClaimedDelivery> {
        let d = &state.deliveries.get(index)?.delivery;
        let endpoint = state
            .webhooks
            .iter()
            .find(|w| w.team_id == d.team_id && w.id == d.webhook_id)?;
        Some(ClaimedDelivery {
            id: d.id,
            team_id: d.team_id,
            webhook_id: d.webhook_id,
            event_id: d.event_id,
            event: d.event,
            origin: d.origin,
            attempt: d.attempts,
            lease,
            payload: d.payload.clone(),
            url: endpoint.url.clone(),
            secrets: endpoint.secrets.clone(),
            endpoint_enabled: endpoint.enabled,
        })
    }

    fn key(claimed: &ClaimedDelivery) -> (Uuid, Uuid) {
        (claimed.team_id.as_uuid(), claimed.id.as_uuid())
    }

    fn apply(state: &mut State, index: usize, settlement: &Settlement) {
        let Some(row) = state.deliveries.get_mut(index) else {
            return;
        };
        row.lease = None;
        let d = &mut row.delivery;
        d.status = settlement.status;
        d.response_status = settlement.response_status;
        d.response_body.clone_from(&settlement.response_body);
        d.error.clone_from(&settlement.error);
        d.last_attempt_at = Some(settlement.attempted_at);
        d.next_attempt_at = settlement.next_attempt_at;
        if let Some(next) = settlement.next_attempt_at {
            row.due_at = next;
        }
        let delivered = match settlement.endpoint {
            EndpointEffect::None => return,
            EndpointEffect::Delivered => true,
            EndpointEffect::Failed => false,
        };
        let (team, webhook) = (row.delivery.team_id, row.delivery.webhook_id);
        if let Some(endpoint) = state
            .webhooks
            .iter_mut()
            .find(|w| w.team_id == team && w.id == webhook)
        {
            *endpoint = endpoint.after_delivery(delivered);
        }
    }
}

#[async_trait]
impl EventFeed for InMemoryStore {
    async fn list_events(
        &self,
        team: TeamId,
        event: Option<WebhookEvent>,
        page: PageRequest,
    ) -> DomainResult<Page<Event>> {
        let state = self.state();
        let mut events: Vec<Event> = state
            .outbox
            .iter()
            .filter(|row| row.dead.is_none())
            .filter_map(OutboxRow::event)
            .filter(|e| e.team_id == team)
            .filter(|e| match webhook_event(&e.payload) {
                Some(name) => event.is_none_or(|wanted| wanted == name),
                None => false,
            })
            .collect();
        events.sort_by_key(|e| (e.occurred_at, e.id));
        paginate(&events, page, |e| e.id.as_uuid())
    }
}

/// A webhook [`Sender`] answering from a script (then 200 once it runs out) and remembering
/// what it was asked to send.
#[derive(Debug, Default)]
pub struct ScriptedSender {
    script: Mutex<VecDeque<AttemptOutcome>>,
    sent: Mutex<Vec<ClaimedDelivery>>,
}

impl ScriptedSender {
    /// A sender that answers these outcomes in order, then 200.
    #[must_use]
    pub fn answering(outcomes: impl IntoIterator<Item = AttemptOutcome>) -> Self {
        Self {
            script: Mutex::new(outcomes.into_iter().collect()),
            sent: Mutex::default(),
        }
    }

    /// Every delivery sent so far, in order.
    #[must_use]
    pub fn sent(&self) -> Vec<ClaimedDelivery> {
        self.sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

#[async_trait]
impl Sender<Deliveries> for ScriptedSender {
    async fn send(&self, delivery: &ClaimedDelivery, _now: OffsetDateTime) -> AttemptOutcome {
        self.sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(delivery.clone());
        self.script
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front()
            .unwrap_or(AttemptOutcome::Response {
                status: 200,
                body: String::new(),
                retry_after: None,
            })
    }
}

/// A [`WorkSignal`] rung by [`ManualSignal::ring`]: `wait` returns once a ring came after the
/// previous `wait` returned.
#[derive(Debug, Default)]
pub struct ManualSignal(Mutex<(bool, Vec<Waker>)>);

impl ManualSignal {
    /// Wakes the waiter, or the next one.
    pub fn ring(&self) {
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        state.0 = true;
        for waker in state.1.drain(..) {
            waker.wake();
        }
    }
}

struct Rung<'a>(&'a ManualSignal);

impl Future for Rung<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.0.0.lock().unwrap_or_else(PoisonError::into_inner);
        if std::mem::take(&mut state.0) {
            Poll::Ready(())
        } else {
            state.1.push(cx.waker().clone());
            Poll::Pending
        }
    }
}

#[async_trait]
impl WorkSignal for ManualSignal {
    async fn wait(&self) {
        Rung(self).await;
    }
}
