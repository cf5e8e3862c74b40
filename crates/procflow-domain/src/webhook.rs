//! Outbound webhooks (API contract 8): endpoints and what they subscribe to, the envelope each
//! event is sent as, which endpoints an event fans out to, deliveries and their retries, and
//! the destinations that are refused. Pure rules; the worker that drives them lives in
//! `procflow-notify`, the stores in `procflow-postgres`.

mod address;
mod delivery;
mod endpoint;
mod envelope;
mod job;
mod retry;
mod secret;
mod url;

pub use address::{AddressRefusal, refusal};
pub use delivery::{
    Attempt, AttemptOutcome, ClaimedDelivery, Delivery, DeliveryFilter, DeliveryOrigin,
    DeliveryStatus, EndpointEffect, NewDelivery, Settlement,
};
pub use endpoint::{
    DisabledReason, EventNames, FAILURES_BEFORE_DISABLE, NewWebhook, WebhookEndpoint, WebhookPatch,
};
pub use envelope::{Envelope, EnvelopeData, People, Person, webhook_event};
pub use job::Deliveries;
pub use retry::{RetrySchedule, ScheduleError};
pub use secret::{PREVIOUS_SECRET_LIFETIME, SigningSecrets, WebhookSecret};
pub use url::WebhookUrl;

use crate::names::named;

named! {
    /// The events a webhook endpoint can subscribe to (API contract 8.2).
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    pub enum WebhookEvent as "webhook event" {
        /// A run was created.
        RunCreated = "process_run.created",
        /// A run became completed.
        RunCompleted = "process_run.completed",
        /// A task with `webhook_enabled` was completed.
        StepCompleted = "process_step.completed",
        /// A task stopped being blocked: every task it depends on is done (API contract 12.2).
        StepUnblocked = "process_step.unblocked",
        /// A comment was written on a task (API contract 14.1).
        CommentCreated = "task.comment_created",
        /// A schedule's due occurrence started no run (API contract 13.1).
        ScheduleFailed = "schedule.failed",
        /// A file was attached to a task (API contract 14.2).
        AttachmentAdded = "task.attachment_added",
    }
}

/// How long deliveries and the events of the feed are kept (API contract 8.1).
pub const RETENTION: time::Duration = time::Duration::days(30);
