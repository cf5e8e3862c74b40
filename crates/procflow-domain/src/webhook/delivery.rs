//! Deliveries: one per (event, endpoint), their attempts, and what an attempt's outcome makes
//! of them (retry, delivered, failed).

use time::OffsetDateTime;
use uuid::Uuid;

use super::{RetrySchedule, SigningSecrets, WebhookEvent, WebhookUrl};
use crate::ids::{DeliveryId, EventId, TeamId, WebhookId};
use crate::names::named;
use crate::queue::{Fate, Settled, Verdict};

named! {
    /// Where a delivery stands (API contract 8.1).
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    pub enum DeliveryStatus as "delivery status" {
        /// Waiting for its next attempt.
        Pending = "pending",
        /// A worker is attempting it now.
        Delivering = "delivering",
        /// A 2xx answered; final.
        Delivered = "delivered",
        /// Its last attempt failed; final.
        Failed = "failed",
    }
}

named! {
    /// Why a delivery exists.
    pub enum DeliveryOrigin as "delivery origin" {
        /// The fan-out of an event: at most one per (event, endpoint).
        Event = "event",
        /// `POST /webhook-deliveries/:id/redeliver`.
        Redelivery = "redelivery",
        /// `POST /webhooks/:id/test`: a sample; its outcome does not count towards disabling.
        Test = "test",
    }
}

/// A delivery as the API shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// Its id.
    pub id: DeliveryId,
    /// Its team.
    pub team_id: TeamId,
    /// The endpoint.
    pub webhook_id: WebhookId,
    /// The event (`webhook-id`).
    pub event_id: EventId,
    /// The event's name.
    pub event: WebhookEvent,
    /// Why it exists.
    pub origin: DeliveryOrigin,
    /// Where it stands.
    pub status: DeliveryStatus,
    /// Attempts started.
    pub attempts: u32,
    /// The last answer's status.
    pub response_status: Option<u16>,
    /// The first 500 characters of the last answer's body.
    pub response_body: Option<String>,
    /// Why the last attempt failed.
    pub error: Option<String>,
    /// The envelope, as the exact JSON text sent.
    pub payload: String,
    /// When it was created.
    pub created_at: OffsetDateTime,
    /// When it was last attempted.
    pub last_attempt_at: Option<OffsetDateTime>,
    /// When it is next attempted (pending only).
    pub next_attempt_at: Option<OffsetDateTime>,
}

/// A delivery to create: pending, due at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewDelivery {
    /// Its id.
    pub id: DeliveryId,
    /// Its team.
    pub team_id: TeamId,
    /// The endpoint.
    pub webhook_id: WebhookId,
    /// The event.
    pub event_id: EventId,
    /// The event's name.
    pub event: WebhookEvent,
    /// Why it exists.
    pub origin: DeliveryOrigin,
    /// The envelope's JSON text.
    pub payload: String,
    /// When it is created (and due).
    pub created_at: OffsetDateTime,
}

/// Which deliveries a log lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeliveryFilter {
    /// Only deliveries in this status.
    pub status: Option<DeliveryStatus>,
}

/// A delivery a worker holds under a lease, with what it needs to attempt it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimedDelivery {
    /// The delivery.
    pub id: DeliveryId,
    /// Its team.
    pub team_id: TeamId,
    /// The endpoint.
    pub webhook_id: WebhookId,
    /// The event (`webhook-id`).
    pub event_id: EventId,
    /// Its name (`X-Webhook-Event`).
    pub event: WebhookEvent,
    /// Why it exists.
    pub origin: DeliveryOrigin,
    /// This attempt's number, from 1.
    pub attempt: u32,
    /// The lease: the outcome is recorded only while the delivery is still held with it.
    pub lease: Uuid,
    /// The body to send.
    pub payload: String,
    /// Where to send it.
    pub url: WebhookUrl,
    /// What signs it.
    pub secrets: SigningSecrets,
    /// Whether the endpoint is enabled now.
    pub endpoint_enabled: bool,
}

/// What one attempt met.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// The endpoint answered.
    Response {
        /// Its status.
        status: u16,
        /// The first 500 characters of its body.
        body: String,
        /// Its `Retry-After` on a 429 or 503, in whole seconds.
        retry_after: Option<time::Duration>,
    },
    /// No answer: refused destination, connection error, timeout, TLS failure.
    Error(String),
    /// Not attempted: the endpoint is disabled.
    EndpointDisabled,
}

/// One attempt: when, and what it met.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// When it started.
    pub at: OffsetDateTime,
    /// What it met.
    pub outcome: AttemptOutcome,
}

/// How an ended delivery counts for its endpoint's consecutive failures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndpointEffect {
    /// Not at all (still pending, a test, or never attempted).
    None,
    /// Delivered: the count is reset.
    Delivered,
    /// Failed after its last attempt: one more failure, disabling at the tenth.
    Failed,
}

/// What a store records after an attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settlement {
    /// Pending (a retry), delivered or failed.
    pub status: DeliveryStatus,
    /// When it is attempted again (pending only).
    pub next_attempt_at: Option<OffsetDateTime>,
    /// The answer's status.
    pub response_status: Option<u16>,
    /// The first 500 characters of the answer's body.
    pub response_body: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
    /// When the attempt started.
    pub attempted_at: OffsetDateTime,
    /// What it does to the endpoint's failure count.
    pub endpoint: EndpointEffect,
}

impl Settlement {
    /// Most characters of an answer's body kept in the log.
    pub const BODY_CHARS: usize = 500;

    /// What `attempt` makes of `claimed`: a 2xx is delivered; anything else is retried after
    /// the schedule's wait (jittered by `unit`, or the receiver's `Retry-After`) or, after the
    /// last attempt, failed, as [`Settled::of`] decides for every job. A delivery whose
    /// endpoint is disabled fails without counting.
    #[must_use]
    pub fn of(
        claimed: &ClaimedDelivery,
        attempt: Attempt,
        schedule: &RetrySchedule,
        unit: f64,
    ) -> Self {
        let (response_status, response_body, verdict) = match attempt.outcome {
            AttemptOutcome::Response {
                status,
                body,
                retry_after,
            } => {
                let body: String = body.chars().take(Self::BODY_CHARS).collect();
                let verdict = if (200..300).contains(&status) {
                    Verdict::Done
                } else {
                    Verdict::Retry {
                        error: if (300..400).contains(&status) {
                            format!("the endpoint answered {status}; redirects are not followed")
                        } else {
                            format!("the endpoint answered {status}")
                        },
                        retry_after: retry_after.filter(|_| status == 429 || status == 503),
                    }
                };
                (Some(status), Some(body), verdict)
            }
            AttemptOutcome::Error(error) => (
                None,
                None,
                Verdict::Retry {
                    error,
                    retry_after: None,
                },
            ),
            AttemptOutcome::EndpointDisabled => {
                return Self {
                    status: DeliveryStatus::Failed,
                    next_attempt_at: None,
                    response_status: None,
                    response_body: None,
                    error: Some("not sent: the endpoint is disabled".to_owned()),
                    attempted_at: attempt.at,
                    endpoint: EndpointEffect::None,
                };
            }
        };
        let settled = Settled::of(claimed.attempt, attempt.at, verdict, schedule, unit);
        // A test's outcome never counts towards disabling its endpoint.
        let counts = claimed.origin != DeliveryOrigin::Test;
        let (status, endpoint) = match settled.fate {
            Fate::Done => (DeliveryStatus::Delivered, EndpointEffect::Delivered),
            Fate::RetryAt(_) => (DeliveryStatus::Pending, EndpointEffect::None),
            Fate::Failed => (DeliveryStatus::Failed, EndpointEffect::Failed),
        };
        Self {
            status,
            next_attempt_at: settled.next_attempt_at(),
            response_status,
            response_body,
            error: settled.error,
            attempted_at: settled.attempted_at,
            endpoint: if counts {
                endpoint
            } else {
                EndpointEffect::None
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use time::Duration;
    use time::macros::datetime;

    use super::*;
    use crate::webhook::WebhookSecret;

    fn claimed(attempt: u32, origin: DeliveryOrigin) -> ClaimedDelivery {
        ClaimedDelivery {
            id: DeliveryId::from_uuid(Uuid::from_u128(1)),
            team_id: TeamId::from_uuid(Uuid::from_u128(2)),
            webhook_id: WebhookId::from_uuid(Uuid::from_u128(3)),
            event_id: EventId::from_uuid(Uuid::from_u128(4)),
            event: WebhookEvent::RunCreated,
            origin,
            attempt,
            lease: Uuid::from_u128(5),
            payload: "{}".into(),
            url: "https://example.com/".parse().unwrap(),
            secrets: SigningSecrets::new(WebhookSecret::from_key(&[1; 32])),
            endpoint_enabled: true,
        }
    }

    const AT: OffsetDateTime = datetime!(2026-01-01 0:00 UTC);

    fn answered(status: u16, retry_after: Option<Duration>) -> Attempt {
        Attempt {
            at: AT,
            outcome: AttemptOutcome::Response {
                status,
                body: "x".repeat(600),
                retry_after,
            },
        }
    }

    #[test]
    fn a_2xx_is_delivered_and_resets_the_endpoint() {
        let schedule = RetrySchedule::default();
        let settled = Settlement::of(
            &claimed(1, DeliveryOrigin::Event),
            answered(204, None),
            &schedule,
            0.5,
        );
        assert_eq!(settled.status, DeliveryStatus::Delivered);
        assert_eq!(settled.endpoint, EndpointEffect::Delivered);
        assert_eq!(settled.response_body.unwrap().chars().count(), 500);
    }

    #[test]
    fn a_failure_is_retried_on_the_schedule_then_failed_after_the_last_attempt() {
        let schedule: RetrySchedule = "5s,5m".parse().unwrap();
        let first = Settlement::of(
            &claimed(1, DeliveryOrigin::Event),
            answered(500, None),
            &schedule,
            0.5,
        );
        assert_eq!(first.status, DeliveryStatus::Pending);
        assert_eq!(first.next_attempt_at, Some(AT + Duration::seconds(5)));
        assert_eq!(first.error.as_deref(), Some("the endpoint answered 500"));
        assert_eq!(first.endpoint, EndpointEffect::None);
        let last = Settlement::of(
            &claimed(3, DeliveryOrigin::Event),
            answered(302, None),
            &schedule,
            0.5,
        );
        assert_eq!(last.status, DeliveryStatus::Failed);
        assert!(last.error.unwrap().contains("redirects are not followed"));
        assert_eq!(last.endpoint, EndpointEffect::Failed);
    }

    #[test]
    fn retry_after_counts_only_on_429_and_503() {
        let schedule = RetrySchedule::default();
        let asked = Some(Duration::seconds(8));
        let limited = Settlement::of(
            &claimed(1, DeliveryOrigin::Event),
            answered(429, asked),
            &schedule,
            0.5,
        );
        assert_eq!(limited.next_attempt_at, Some(AT + Duration::seconds(8)));
        let other = Settlement::of(
            &claimed(1, DeliveryOrigin::Event),
            answered(500, asked),
            &schedule,
            0.5,
        );
        assert_eq!(other.next_attempt_at, Some(AT + Duration::seconds(5)));
    }

    #[test]
    fn tests_and_disabled_endpoints_do_not_count() {
        let schedule: RetrySchedule = "5s".parse().unwrap();
        let test = Settlement::of(
            &claimed(2, DeliveryOrigin::Test),
            Attempt {
                at: AT,
                outcome: AttemptOutcome::Error("connection refused".into()),
            },
            &schedule,
            0.5,
        );
        assert_eq!(test.status, DeliveryStatus::Failed);
        assert_eq!(test.endpoint, EndpointEffect::None);
        let disabled = Settlement::of(
            &claimed(1, DeliveryOrigin::Event),
            Attempt {
                at: AT,
                outcome: AttemptOutcome::EndpointDisabled,
            },
            &schedule,
            0.5,
        );
        assert_eq!(disabled.status, DeliveryStatus::Failed);
        assert_eq!(disabled.endpoint, EndpointEffect::None);
    }
}
