//! The ports of outbound webhooks: the endpoints, the delivery queue, the event feed, the
//! sender, and the signal that wakes the worker.

use async_trait::async_trait;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::DomainResult;
use crate::event::Event;
use crate::ids::{DeliveryId, TeamId, WebhookId};
use crate::values::{Page, PageRequest};
use crate::webhook::{
    AttemptOutcome, ClaimedDelivery, Delivery, DeliveryFilter, NewDelivery, Settlement,
    WebhookEndpoint, WebhookEvent,
};

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

/// The deliveries waiting, in flight and done, shared by every worker of every instance.
#[async_trait]
pub trait DeliveryQueue: Send + Sync {
    /// Creates pending deliveries, due at their `created_at`. An `event` delivery MUST be
    /// created at most once per (event, endpoint), however often the same fan-out is enqueued
    /// (a worker that dies mid-way repeats it); a delivery to an endpoint that no longer
    /// exists is dropped.
    ///
    /// # Errors
    /// Only store failures.
    async fn enqueue(&self, deliveries: &[NewDelivery]) -> DomainResult<()>;

    /// Leases up to `limit` due deliveries (pending and due at `now`, or in flight with a
    /// lease run out) until `lease_until` under the token `lease`, counting an attempt on
    /// each, oldest due first. A delivery leased MUST NOT be handed out again before its lease
    /// runs out, whichever instance asks; its cost MUST NOT grow with the deliveries that ended.
    ///
    /// # Errors
    /// Only store failures.
    async fn claim_due(
        &self,
        limit: usize,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        lease: Uuid,
    ) -> DomainResult<Vec<ClaimedDelivery>>;

    /// Records what an attempt made of a delivery, only while it is still held under the
    /// claim's lease (else `Ok(false)`, nothing written), with its effect on the endpoint's
    /// failure count in the same transaction: delivered resets it; failed counts one more and
    /// disables the endpoint (`consecutive_failures`) at
    /// [`FAILURES_BEFORE_DISABLE`](crate::webhook::FAILURES_BEFORE_DISABLE), as
    /// [`WebhookEndpoint::after_delivery`] decides.
    ///
    /// # Errors
    /// Only store failures.
    async fn settle(
        &self,
        claimed: &ClaimedDelivery,
        settlement: &Settlement,
    ) -> DomainResult<bool>;

    /// Records several outcomes, each as [`settle`](Self::settle) would; answers, in order,
    /// whether each was recorded. A store MAY record them in fewer statements, and MAY record
    /// those that count a failure ([`EndpointEffect::Failed`](crate::webhook::EndpointEffect))
    /// after the others.
    ///
    /// # Errors
    /// Only store failures.
    async fn settle_all(
        &self,
        settled: &[(ClaimedDelivery, Settlement)],
    ) -> DomainResult<Vec<bool>> {
        let mut recorded = Vec::with_capacity(settled.len());
        for (claimed, settlement) in settled {
            recorded.push(self.settle(claimed, settlement).await?);
        }
        Ok(recorded)
    }

    /// Gives back every delivery still held under `lease`, due at `now`, its attempt uncounted
    /// (a worker shutting down). Answers how many.
    ///
    /// # Errors
    /// Only store failures.
    async fn release(&self, lease: Uuid, now: OffsetDateTime) -> DomainResult<u64>;

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

    /// Removes the deliveries created before `before` that are no longer pending or in
    /// flight. Answers how many.
    ///
    /// # Errors
    /// Only store failures.
    async fn sweep_deliveries(&self, before: OffsetDateTime) -> DomainResult<u64>;

    /// How many deliveries are pending or in flight, and when the oldest was created.
    ///
    /// # Errors
    /// Only store failures.
    async fn backlog(&self) -> DomainResult<Backlog>;
}

/// The deliveries not done yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    /// Pending or in flight.
    pub pending: u64,
    /// When the oldest of them was created.
    pub oldest: Option<OffsetDateTime>,
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

/// Sends one delivery attempt.
#[async_trait]
pub trait WebhookSender: Send + Sync {
    /// POSTs the delivery's payload to its URL, signed at `now` with every secret that signs
    /// then, and says what came back. MUST NOT connect to a refused address
    /// ([`refusal`](crate::webhook::refusal)) unless configured to; a refusal is an
    /// [`AttemptOutcome::Error`] naming it. MUST NOT follow redirects.
    async fn send(&self, delivery: &ClaimedDelivery, now: OffsetDateTime) -> AttemptOutcome;
}

/// What wakes the delivery worker when work may have been committed, by this instance or
/// another. A worker also polls: a missed signal delays work, it never loses it.
#[async_trait]
pub trait WorkSignal: Send + Sync {
    /// Returns once work may have arrived since the previous call returned (at once when it
    /// did already).
    async fn wait(&self);
}
