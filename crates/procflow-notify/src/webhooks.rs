//! Webhooks as a channel of the worker: the fan-out of outbox events (with the emails they call
//! for) as its dispatch, and what its attempts, claims and sweeps log and count. The claims,
//! attempts and outcomes themselves are the one [`QueueChannel`]'s.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use procflow_domain::error::{DomainError, DomainResult};
use procflow_domain::ids::HolderId;
use procflow_domain::ports::{Backlog, Sender};
use procflow_domain::service::{AttemptPorts, Attempts, Webhooks};
use procflow_domain::webhook::{
    ClaimedDelivery, Deliveries, DeliveryStatus, RETENTION, Settlement,
};
use time::OffsetDateTime;

use crate::channel::{Hooks, QueueChannel};
use crate::metrics;
use crate::worker::{WorkerConfig, lease_of};

/// The webhook channel: fan-out, attempts, outcomes.
pub type WebhookChannel = QueueChannel<Deliveries, WebhookHooks>;

/// What is particular to webhooks in the worker.
pub struct WebhookHooks {
    webhooks: Webhooks,
    config: WorkerConfig,
}

impl WebhookChannel {
    /// The channel over the webhook use cases and a sender, claiming for `holder` (the
    /// worker process's, shared with its other channels).
    ///
    /// Starts the task that records outcomes: call it inside a tokio runtime.
    #[must_use]
    pub fn new(
        webhooks: Webhooks,
        sender: Arc<dyn Sender<Deliveries>>,
        config: WorkerConfig,
        holder: HolderId,
    ) -> Self {
        let ports = webhooks.ports().clone();
        let attempts = Attempts::new(
            AttemptPorts {
                queue: ports.deliveries,
                sender,
                clock: ports.clock,
                ids: ports.ids,
            },
            config.schedule.clone(),
            holder,
        );
        Self::over(
            attempts,
            WebhookHooks {
                webhooks,
                config: config.clone(),
            },
            config,
        )
    }
}

#[async_trait]
impl Hooks<Deliveries> for WebhookHooks {
    fn name(&self) -> &'static str {
        "webhook"
    }

    async fn dispatch(&self) -> usize {
        match self
            .webhooks
            .dispatch(self.config.batch, lease_of(&self.config))
            .await
        {
            Ok(dispatched) => {
                for dead in &dispatched.set_aside {
                    tracing::error!(
                        event.id = %dead.id, event.kind = %dead.kind, error = %dead.error,
                        "an outbox event cannot be read; set aside, never retried \
                         (procflow admin outbox --dead lists it, --retry ID re-queues it)"
                    );
                }
                if !dispatched.set_aside.is_empty() {
                    metrics::outbox_dead(dispatched.set_aside.len());
                }
                dispatched.taken
            }
            Err(error) => {
                tracing::warn!(%error, "cannot fan out outbox events; retrying after the lease");
                0
            }
        }
    }

    fn attempted(
        &self,
        claimed: &ClaimedDelivery,
        settlement: &Settlement,
        recorded: &Result<bool, String>,
        elapsed: Duration,
    ) {
        let outcome = match (recorded, settlement.status) {
            (Ok(false), _) => "lost",
            (Err(_), _) => "unrecorded",
            (Ok(true), DeliveryStatus::Delivered) => "delivered",
            (Ok(true), DeliveryStatus::Pending) => "retry",
            (Ok(true), _) => "failed",
        };
        metrics::attempt(outcome, elapsed);
        let fields = (
            claimed.id.to_string(),
            claimed.webhook_id.to_string(),
            claimed.event_id.to_string(),
        );
        match recorded {
            Err(error) => tracing::warn!(
                delivery.id = %fields.0, webhook.id = %fields.1, %error,
                "cannot record a delivery attempt; it is attempted again when its lease runs out"
            ),
            Ok(false) => tracing::warn!(
                delivery.id = %fields.0, webhook.id = %fields.1,
                "a delivery's lease ran out during its attempt; another worker has it"
            ),
            Ok(true) if settlement.status == DeliveryStatus::Failed => tracing::info!(
                delivery.id = %fields.0, webhook.id = %fields.1, event.id = %fields.2,
                attempt = claimed.attempt, http.status = settlement.response_status,
                error = settlement.error.as_deref().unwrap_or(""),
                "a webhook delivery failed after its last attempt"
            ),
            Ok(true) => tracing::debug!(
                delivery.id = %fields.0, webhook.id = %fields.1, event.id = %fields.2,
                attempt = claimed.attempt, outcome, http.status = settlement.response_status,
                duration_ms = elapsed.as_millis() as u64,
                "webhook attempt"
            ),
        }
    }

    fn claim_failed(&self, error: &DomainError) {
        tracing::warn!(%error, "cannot claim due webhook deliveries");
    }

    fn released(&self, released: DomainResult<u64>) {
        match released {
            Ok(0) => {}
            Ok(released) => tracing::info!(released, "gave back webhook deliveries in flight"),
            Err(error) => {
                tracing::warn!(%error, "cannot give back deliveries; their lease runs out instead")
            }
        }
    }

    /// Events leave the outbox with their deliveries: both are kept as long.
    async fn swept(&self, swept: DomainResult<u64>, now: OffsetDateTime) {
        let events = self
            .webhooks
            .ports()
            .outbox
            .sweep_events(now - RETENTION)
            .await;
        match (swept, events) {
            (Ok(deliveries), Ok(events)) if deliveries + events > 0 => {
                tracing::info!(
                    deliveries,
                    events,
                    "swept deliveries and events older than 30 days"
                );
            }
            (Ok(_), Ok(_)) => {}
            (Err(error), _) | (_, Err(error)) => {
                tracing::warn!(%error, "cannot sweep old deliveries")
            }
        }
    }

    fn backlog(&self, backlog: DomainResult<Backlog>, now: OffsetDateTime) {
        match backlog {
            Ok(backlog) => metrics::backlog(backlog, now),
            Err(error) => tracing::debug!(%error, "cannot read the delivery backlog"),
        }
    }
}
