//! Use cases of outbound webhooks: the endpoints API (API contract 8.1), the event feed, and
//! the worker's fan-out of outbox events into deliveries.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use time::{Duration, OffsetDateTime};

use crate::error::{DomainResult, StoreError};
use crate::etag::IfMatch;
use crate::event::Event;
use crate::ids::{DeliveryId, EventId, RunId, TeamId, UserId, WebhookId};
use crate::ports::{
    Clock, DeadEvent, DeliveryQueue, EventFeed, IdGenerator, Outbox, RunStore, TeamStore,
    WebhookStore,
};
use crate::team::Team;
use crate::values::{Email, Page, PageRequest};
use crate::webhook::{
    Delivery, DeliveryFilter, DeliveryOrigin, Envelope, NewDelivery, NewWebhook, People,
    WebhookEndpoint, WebhookEvent, WebhookPatch, WebhookSecret, webhook_event,
};

/// The adapters [`Webhooks`] runs on.
#[derive(Clone)]
pub struct WebhookPorts {
    /// Endpoints.
    pub webhooks: Arc<dyn WebhookStore>,
    /// Deliveries.
    pub deliveries: Arc<dyn DeliveryQueue>,
    /// The event feed.
    pub feed: Arc<dyn EventFeed>,
    /// The events to fan out.
    pub outbox: Arc<dyn Outbox>,
    /// Members, for the emails envelopes name.
    pub teams: Arc<dyn TeamStore>,
    /// Runs, for the guest's email.
    pub runs: Arc<dyn RunStore>,
    /// The time.
    pub clock: Arc<dyn Clock>,
    /// Ids and secrets.
    pub ids: Arc<dyn IdGenerator>,
}

/// The webhook use cases. Cheap to clone.
#[derive(Clone)]
pub struct Webhooks {
    ports: WebhookPorts,
    mail: Option<super::Mailer>,
}

impl Webhooks {
    /// The use cases over these adapters.
    #[must_use]
    pub fn new(ports: WebhookPorts) -> Self {
        Self { ports, mail: None }
    }

    /// The same use cases whose [`dispatch`](Self::dispatch) also queues the emails events
    /// call for: one outbox, taken once, feeds both channels.
    #[must_use]
    pub fn with_mail(self, mailer: super::Mailer) -> Self {
        Self {
            mail: Some(mailer),
            ..self
        }
    }

    /// The adapters.
    #[must_use]
    pub fn ports(&self) -> &WebhookPorts {
        &self.ports
    }

    fn new_secret(&self) -> WebhookSecret {
        WebhookSecret::from_key(&self.ports.ids.secret_key())
    }

    /// Registers an endpoint; its first secret is in the answer (shown once).
    ///
    /// # Errors
    /// A validation error for the description.
    pub async fn create(&self, team: &Team, request: NewWebhook) -> DomainResult<WebhookEndpoint> {
        let endpoint = WebhookEndpoint::create(
            WebhookId::from_uuid(self.ports.ids.new_id()),
            team.id,
            request,
            self.new_secret(),
            self.ports.clock.now(),
        )?;
        self.ports.webhooks.insert_webhook(&endpoint).await?;
        Ok(endpoint)
    }

    /// A page of the team's endpoints, oldest first.
    ///
    /// # Errors
    /// A validation error for an unknown cursor.
    pub async fn list(
        &self,
        team: &Team,
        page: PageRequest,
    ) -> DomainResult<Page<WebhookEndpoint>> {
        self.ports.webhooks.list_webhooks(team.id, page).await
    }

    /// One endpoint.
    ///
    /// # Errors
    /// `NotFound(Webhook)`.
    pub async fn get(&self, team: &Team, id: WebhookId) -> DomainResult<WebhookEndpoint> {
        self.ports.webhooks.get_webhook(team.id, id).await
    }

    /// Changes an endpoint; `enabled: true` clears its disabled reason and failure count.
    /// With `if_match`, only when the endpoint's current tag satisfies it, checked under the
    /// store's lock.
    ///
    /// # Errors
    /// `NotFound(Webhook)`; `PreconditionFailed`; a validation error for the description.
    pub async fn update(
        &self,
        team: &Team,
        id: WebhookId,
        patch: WebhookPatch,
        if_match: Option<&IfMatch>,
    ) -> DomainResult<WebhookEndpoint> {
        let clock = &*self.ports.clock;
        self.ports
            .webhooks
            .update_webhook(team.id, id, &|endpoint| {
                if let Some(condition) = if_match {
                    condition.check(endpoint)?;
                }
                Ok(endpoint.patched(&patch, clock.now())?)
            })
            .await
    }

    /// Deletes an endpoint; its pending deliveries are dropped.
    ///
    /// # Errors
    /// `NotFound(Webhook)`.
    pub async fn delete(&self, team: &Team, id: WebhookId) -> DomainResult<()> {
        self.ports.webhooks.delete_webhook(team.id, id).await
    }

    /// Gives an endpoint a new secret (in the answer, shown once); the old one keeps signing
    /// beside it for a day.
    ///
    /// # Errors
    /// `NotFound(Webhook)`.
    pub async fn rotate_secret(&self, team: &Team, id: WebhookId) -> DomainResult<WebhookEndpoint> {
        let secret = self.new_secret();
        let clock = &*self.ports.clock;
        self.ports
            .webhooks
            .update_webhook(team.id, id, &|endpoint| {
                Ok(endpoint.rotated(secret.clone(), clock.now()))
            })
            .await
    }

    /// Queues a sample of `event` (`test: true`) to an endpoint, enabled or not.
    ///
    /// # Errors
    /// `NotFound(Webhook)`.
    pub async fn send_test(
        &self,
        team: &Team,
        id: WebhookId,
        event: WebhookEvent,
    ) -> DomainResult<Delivery> {
        let endpoint = self.get(team, id).await?;
        let now = self.ports.clock.now();
        let envelope = Envelope::sample(event, EventId::from_uuid(self.ports.ids.new_id()), now);
        self.enqueue_one(NewDelivery {
            id: DeliveryId::from_uuid(self.ports.ids.new_id()),
            team_id: team.id,
            webhook_id: endpoint.id,
            event_id: envelope.id,
            event,
            origin: DeliveryOrigin::Test,
            payload: to_json(&envelope)?,
            created_at: now,
        })
        .await
    }

    /// A page of an endpoint's deliveries, newest first.
    ///
    /// # Errors
    /// `NotFound(Webhook)`; a validation error for an unknown cursor.
    pub async fn deliveries(
        &self,
        team: &Team,
        id: WebhookId,
        filter: DeliveryFilter,
        page: PageRequest,
    ) -> DomainResult<Page<Delivery>> {
        self.ports
            .deliveries
            .list_deliveries(team.id, id, filter, page)
            .await
    }

    /// Queues a new delivery of the same event (same id, same payload) to the same endpoint.
    ///
    /// # Errors
    /// `NotFound(Delivery)`.
    pub async fn redeliver(&self, team: &Team, id: DeliveryId) -> DomainResult<Delivery> {
        let original = self.ports.deliveries.get_delivery(team.id, id).await?;
        let origin = match original.origin {
            DeliveryOrigin::Test => DeliveryOrigin::Test,
            DeliveryOrigin::Event | DeliveryOrigin::Redelivery => DeliveryOrigin::Redelivery,
        };
        self.enqueue_one(NewDelivery {
            id: DeliveryId::from_uuid(self.ports.ids.new_id()),
            team_id: team.id,
            webhook_id: original.webhook_id,
            event_id: original.event_id,
            event: original.event,
            origin,
            payload: original.payload,
            created_at: self.ports.clock.now(),
        })
        .await
    }

    async fn enqueue_one(&self, delivery: NewDelivery) -> DomainResult<Delivery> {
        let (team, id) = (delivery.team_id, delivery.id);
        self.ports.deliveries.enqueue(&[delivery]).await?;
        self.ports.deliveries.get_delivery(team, id).await
    }

    /// A page of the team's webhook events as envelopes, oldest first (the catch-up feed).
    ///
    /// # Errors
    /// A validation error for an unknown cursor.
    pub async fn events(
        &self,
        team: &Team,
        event: Option<WebhookEvent>,
        page: PageRequest,
    ) -> DomainResult<Page<Envelope>> {
        let events = self.ports.feed.list_events(team.id, event, page).await?;
        let people = self.people(&events.items).await?;
        let envelopes = events
            .items
            .iter()
            .filter_map(|event| Envelope::of(event, &people))
            .collect();
        Ok(Page {
            items: envelopes,
            next_cursor: events.next_cursor,
            has_more: events.has_more,
        })
    }

    /// Fans out up to `limit` outbox events, leased for `lease`: one delivery per enabled
    /// endpoint of the event's team subscribed to it and existing when it happened, and (with
    /// [`with_mail`](Self::with_mail)) the emails they call for. Safe to
    /// repeat after a crash (the queue keeps one delivery per event and endpoint). An event
    /// whose stored form cannot be read, or names another event than its row, is set aside on
    /// its own (reading it again would fail again), after the others are dispatched; the
    /// answer names it.
    ///
    /// # Errors
    /// Store failures; the events taken are then handed out again when their lease runs out.
    pub async fn dispatch(&self, limit: usize, lease: Duration) -> DomainResult<Dispatched> {
        let now = self.ports.clock.now();
        let entries = self.ports.outbox.claim(limit, now, now + lease).await?;
        let taken = entries.len();
        let mut events = Vec::with_capacity(taken);
        let mut set_aside = Vec::new();
        for entry in entries {
            match entry.event {
                Ok(event) if event.id == entry.id => events.push(event),
                // Completing it would name another row: it would be handed out again after
                // every lease, forever.
                Ok(event) => set_aside.push(SetAside {
                    id: entry.id,
                    kind: entry.kind,
                    error: format!("its payload names event {}, not its row's id", event.id),
                }),
                Err(unreadable) => set_aside.push(SetAside {
                    id: entry.id,
                    kind: entry.kind,
                    error: unreadable.reason().to_owned(),
                }),
            }
        }
        if !events.is_empty() {
            self.fan_out(&events, now).await?;
        }
        if !set_aside.is_empty() {
            let dead: Vec<(EventId, String)> = set_aside
                .iter()
                .map(|event| (event.id, event.error.clone()))
                .collect();
            self.ports.outbox.set_aside(&dead, now).await?;
        }
        Ok(Dispatched { taken, set_aside })
    }

    /// Events that cannot be dispatched, oldest first: what `procflow admin outbox --dead`
    /// lists.
    ///
    /// # Errors
    /// Store failures.
    pub async fn dead_events(&self, limit: usize) -> DomainResult<Vec<DeadEvent>> {
        self.ports.outbox.dead_events(limit).await
    }

    /// Puts an event set aside back in the queue (after the cause was fixed); answers whether
    /// there was one.
    ///
    /// # Errors
    /// Store failures.
    pub async fn requeue(&self, id: EventId) -> DomainResult<bool> {
        self.ports.outbox.requeue(id, self.ports.clock.now()).await
    }

    /// Queues the deliveries and emails of readable events, then marks them dispatched.
    async fn fan_out(&self, events: &[Event], now: OffsetDateTime) -> DomainResult<()> {
        let teams: Vec<TeamId> = events
            .iter()
            .filter(|e| webhook_event(&e.payload).is_some())
            .map(|e| e.team_id)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let endpoints = if teams.is_empty() {
            Vec::new()
        } else {
            self.ports.webhooks.enabled_webhooks(&teams).await?
        };
        let mut by_team: HashMap<TeamId, Vec<&WebhookEndpoint>> = HashMap::new();
        for endpoint in &endpoints {
            by_team.entry(endpoint.team_id).or_default().push(endpoint);
        }
        let receiving: Vec<(&Event, WebhookEvent, Vec<&WebhookEndpoint>)> = events
            .iter()
            .filter_map(|event| {
                let name = webhook_event(&event.payload)?;
                let targets: Vec<&WebhookEndpoint> = by_team
                    .get(&event.team_id)?
                    .iter()
                    .copied()
                    .filter(|endpoint| endpoint.receives(name, event.occurred_at))
                    .collect();
                (!targets.is_empty()).then_some((event, name, targets))
            })
            .collect();
        let people = self
            .people(receiving.iter().map(|(event, ..)| *event))
            .await?;
        let mut deliveries = Vec::new();
        for (event, name, targets) in &receiving {
            let Some(envelope) = Envelope::of(event, &people) else {
                continue;
            };
            let payload = to_json(&envelope)?;
            deliveries.extend(targets.iter().map(|endpoint| NewDelivery {
                id: DeliveryId::from_uuid(self.ports.ids.new_id()),
                team_id: event.team_id,
                webhook_id: endpoint.id,
                event_id: event.id,
                event: *name,
                origin: DeliveryOrigin::Event,
                payload: payload.clone(),
                created_at: now,
            }));
        }
        if !deliveries.is_empty() {
            self.ports.deliveries.enqueue(&deliveries).await?;
        }
        if let Some(mailer) = &self.mail {
            mailer.fan_out(events).await?;
        }
        let ids: Vec<EventId> = events.iter().map(|event| event.id).collect();
        self.ports.outbox.complete(&ids).await
    }

    /// The emails the envelopes of `events` name: members by id, and the guest of each run a
    /// guest acted on.
    async fn people<'a>(
        &self,
        events: impl IntoIterator<Item = &'a Event>,
    ) -> DomainResult<People> {
        let mut people = People::default();
        let mut members: BTreeSet<(TeamId, UserId)> = BTreeSet::new();
        let mut guests: BTreeSet<(TeamId, RunId)> = BTreeSet::new();
        for event in events {
            match People::needed(&event.payload) {
                (Some(user), _) => {
                    members.insert((event.team_id, user));
                }
                (None, Some(run)) => {
                    guests.insert((event.team_id, run));
                }
                (None, None) => {}
            }
        }
        for (team, user) in members {
            if let Some(member) = self.ports.teams.find_member(team, user).await? {
                people.members.insert(user, member.email);
            }
        }
        for (team, run) in guests {
            let guest: Option<Email> = match self.ports.runs.get_share(team, run).await {
                Ok(share) => share.and_then(|share| share.guest).map(|guest| guest.email),
                Err(crate::error::DomainError::NotFound(_)) => None,
                Err(error) => return Err(error),
            };
            if let Some(email) = guest {
                people.guests.insert(run, email);
            }
        }
        Ok(people)
    }

    /// The time, by the use cases' clock.
    #[must_use]
    pub fn now(&self) -> OffsetDateTime {
        self.ports.clock.now()
    }
}

/// What one [`Webhooks::dispatch`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dispatched {
    /// Events taken from the outbox, readable or not.
    pub taken: usize,
    /// Those set aside because they cannot be read.
    pub set_aside: Vec<SetAside>,
}

/// An event [`Webhooks::dispatch`] set aside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetAside {
    /// Its id.
    pub id: EventId,
    /// Its kind, as its row names it.
    pub kind: String,
    /// Why it cannot be read.
    pub error: String,
}

fn to_json(envelope: &Envelope) -> DomainResult<String> {
    serde_json::to_string(envelope)
        .map_err(|e| StoreError::Other(format!("cannot write an envelope: {e}")).into())
}
