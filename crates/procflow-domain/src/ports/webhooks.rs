//! The ports of outbound webhooks: the endpoints, the delivery queue (the shared leased queue
//! plus the delivery log), the event feed, and the signal that wakes the worker. The sender is
//! the shared [`Sender`](super::Sender) of [`Deliveries`].

use async_trait::async_trait;

use crate::error::DomainResult;
use crate::event::Event;
use crate::ids::{DeliveryId, TeamId, WebhookId};
use crate::values::{Page, PageRequest};
use crate::webhook::{
    Deliveries, Delivery, DeliveryFilter, NewDelivery, WebhookEndpoint, WebhookEvent,
};

use super::queue::LeasedQueue;

/// Decides an endpoint's new state from its current one under the store's lock.
pub type WebhookDecision<'a> =
    dyn Fn(&WebhookEndpoint) -> DomainResult<WebhookEndpoint> + Send + Sync + 'a;

/// Webhook endpoints of a team.
#[async_trait]
pub trait WebhookStore: Send + Sync {
    /// Stores a new endpoint.
    ///
    /// # Errors
    /// MUST answer `Conflict` when the id exists already.
    async fn insert_webhook(&self, endpoint: &WebhookEndpoint) -> DomainResult<()>;

    /// A page of the team's endpoints, oldest first (`created_at`, then id).
    ///
    /// # Errors
    /// MUST refuse a cursor that names no endpoint of the team with a validation error.
    async fn list_webhooks(
        &self,
        team: TeamId,
        page: PageRequest,
    ) -> DomainResult<Page<WebhookEndpoint>>;

    /// One endpoint.
    ///
    /// # Errors
    /// MUST answer `NotFound(Webhook)` for a missing or other team's endpoint.
    async fn get_webhook(&self, team: TeamId, id: WebhookId) -> DomainResult<WebhookEndpoint>;

    /// Replaces an endpoint by what `decide` makes of it, read under a lock (so that a PATCH
    /// and a delivery's failure count do not lose each other's change); nothing is written
    /// when `decide` refuses.
    ///
    /// # Errors
    /// `NotFound(Webhook)` as for [`get_webhook`](Self::get_webhook); whatever `decide` answers.
    async fn update_webhook(
        &self,
        team: TeamId,
        id: WebhookId,
        decide: &WebhookDecision<'_>,
    ) -> DomainResult<WebhookEndpoint>;

    /// Deletes an endpoint with its deliveries: pending ones are never sent, and a worker
    /// holding one cannot record it.
    ///
    /// # Errors
    /// `NotFound(Webhook)` as for [`get_webhook`](Self::get_webhook).
    async fn delete_webhook(&self, team: TeamId, id: WebhookId) -> DomainResult<()>;

    /// The enabled endpoints of these teams, which events fan out to.
    ///
    /// # Errors
    /// Only store failures.
    async fn enabled_webhooks(&self, teams: &[TeamId]) -> DomainResult<Vec<WebhookEndpoint>>;
}

/// The deliveries waiting, in flight and done, shared by every worker of every instance: a
/// [`LeasedQueue`] of [`Deliveries`], plus what only webhooks have (enqueueing with its
/// uniqueness rule, the delivery log).
///
/// Its [`settle`](LeasedQueue::settle) MUST, in the transaction that records a delivery's
/// outcome, apply the outcome's effect on the endpoint's failure count: delivered resets it;
/// failed counts one more and disables the endpoint (`consecutive_failures`) at
/// [`FAILURES_BEFORE_DISABLE`](crate::webhook::FAILURES_BEFORE_DISABLE), as
/// [`WebhookEndpoint::after_delivery`] decides. It MAY record the outcomes that count a failure
/// ([`EndpointEffect::Failed`](crate::webhook::EndpointEffect)) after the others.
#[async_trait]
pub trait DeliveryQueue: LeasedQueue<Deliveries> {
    /// Creates pending deliveries, due at their `created_at`.
    ///
    /// # Errors
    /// Only store failures. An `event` delivery MUST be created at most once per (event,
    /// endpoint), however often the same fan-out is enqueued (a worker that dies mid-way
    /// repeats it); a delivery to an endpoint that no longer exists MUST be dropped.
    async fn enqueue(&self, deliveries: &[NewDelivery]) -> DomainResult<()>;

    /// A page of an endpoint's deliveries, newest first.
    ///
    /// # Errors
    /// `NotFound(Webhook)` for a missing or other team's endpoint; a validation error for a
    /// cursor that names no delivery of the filtered list.
    async fn list_deliveries(
        &self,
        team: TeamId,
        webhook: WebhookId,
        filter: DeliveryFilter,
        page: PageRequest,
    ) -> DomainResult<Page<Delivery>>;

    /// One delivery.
    ///
    /// # Errors
    /// MUST answer `NotFound(Delivery)` for a missing or other team's delivery.
    async fn get_delivery(&self, team: TeamId, id: DeliveryId) -> DomainResult<Delivery>;
}

/// The catch-up feed of a team's webhook events.
#[async_trait]
pub trait EventFeed: Send + Sync {
    /// A page of the team's webhook events (those [`webhook_event`](crate::webhook::webhook_event)
    /// names), only `event` ones when given, oldest first (`occurred_at`, then id), kept until
    /// the outbox sweeps them.
    ///
    /// # Errors
    /// MUST refuse a cursor that names no event of the filtered list with a validation error.
    async fn list_events(
        &self,
        team: TeamId,
        event: Option<WebhookEvent>,
        page: PageRequest,
    ) -> DomainResult<Page<Event>>;
}

/// What wakes the delivery worker when work may have been committed, by this instance or
/// another. A worker also polls: a missed signal delays work, it never loses it.
#[async_trait]
pub trait WorkSignal: Send + Sync {
    /// Returns once work may have arrived since the previous call returned (at once when it
    /// did already).
    async fn wait(&self);

    /// Whether jobs (deliveries, emails) may have been queued since the previous call, by
    /// anyone: a worker woken only by new events, whose fan-out queued none, then leaves its
    /// queues alone until its poll instead of claiming them to find nothing. Answers `true`
    /// unless the signal can tell events from jobs.
    fn jobs_queued(&self) -> bool {
        true
    }
}
