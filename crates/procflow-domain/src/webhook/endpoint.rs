//! A webhook endpoint: where a team's events go, which of them, and whether it is enabled.

use std::collections::BTreeSet;

use time::OffsetDateTime;

use super::{SigningSecrets, WebhookEvent, WebhookSecret, WebhookUrl};
use crate::error::ValidationError;
use crate::ids::{TeamId, WebhookId};
use crate::limits;
use crate::names::named;

/// An endpoint whose last this-many deliveries all ended `failed` is disabled.
pub const FAILURES_BEFORE_DISABLE: u32 = 10;

named! {
    /// Why an endpoint was disabled by procflow rather than by its owner.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    pub enum DisabledReason as "disabled reason" {
        /// Its last [`FAILURES_BEFORE_DISABLE`] deliveries all ended failed.
        ConsecutiveFailures = "consecutive_failures",
    }
}

/// The events an endpoint subscribes to: a non-empty set, in the order of [`WebhookEvent::ALL`].
///
/// ```
/// use procflow_domain::webhook::{EventNames, WebhookEvent};
///
/// let names = EventNames::parse(&["process_run.completed".to_owned()]).unwrap();
/// assert!(names.contains(WebhookEvent::RunCompleted));
/// assert!(!names.contains(WebhookEvent::RunCreated));
/// assert_eq!(EventNames::all().iter().count(), 5);
/// assert!(EventNames::parse(&[]).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventNames(BTreeSet<usize>);

impl EventNames {
    /// Every event.
    #[must_use]
    pub fn all() -> Self {
        Self((0..WebhookEvent::ALL.len()).collect())
    }

    /// The set of these names, each once.
    ///
    /// # Errors
    /// A validation error naming `events` for an empty list, an unknown name (the message
    /// lists the known ones) or a name given twice.
    pub fn parse(names: &[String]) -> Result<Self, ValidationError> {
        if names.is_empty() {
            return Err(ValidationError::field(
                "events",
                "must name at least one event",
            ));
        }
        let mut set = BTreeSet::new();
        for (i, name) in names.iter().enumerate() {
            let event: WebhookEvent = name.parse().map_err(|e: crate::names::UnknownName| {
                ValidationError::field(format!("events[{i}]"), e.to_string())
            })?;
            if !set.insert(index(event)) {
                return Err(ValidationError::field(
                    format!("events[{i}]"),
                    format!("{name} is given twice"),
                ));
            }
        }
        Ok(Self(set))
    }

    /// Whether `event` is in the set.
    #[must_use]
    pub fn contains(&self, event: WebhookEvent) -> bool {
        self.0.contains(&index(event))
    }

    /// The events, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = WebhookEvent> + '_ {
        self.0.iter().map(|&i| WebhookEvent::ALL[i])
    }
}

fn index(event: WebhookEvent) -> usize {
    WebhookEvent::ALL
        .iter()
        .position(|e| *e == event)
        .unwrap_or_default()
}

/// A webhook endpoint of a team (API contract 8.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookEndpoint {
    /// Its id.
    pub id: WebhookId,
    /// Its team.
    pub team_id: TeamId,
    /// Where deliveries are posted.
    pub url: WebhookUrl,
    /// The events it receives.
    pub events: EventNames,
    /// Its owner's note.
    pub description: Option<String>,
    /// Whether events are delivered to it.
    pub enabled: bool,
    /// Why procflow disabled it, when it did.
    pub disabled_reason: Option<DisabledReason>,
    /// Deliveries that ended `failed` since the last one delivered.
    pub consecutive_failures: u32,
    /// The secrets its deliveries are signed with.
    pub secrets: SigningSecrets,
    /// When it was created.
    pub created_at: OffsetDateTime,
    /// When it last changed.
    pub updated_at: OffsetDateTime,
}

/// Its tag covers what its representation shows: everything but the secrets, which no GET
/// answers (a rotation changes `updated_at`, and with it the tag).
impl std::hash::Hash for WebhookEndpoint {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let Self {
            id,
            team_id,
            url,
            events,
            description,
            enabled,
            disabled_reason,
            consecutive_failures,
            secrets: _,
            created_at,
            updated_at,
        } = self;
        (id, team_id, url, &events.0, description, enabled).hash(state);
        (
            disabled_reason.map(DisabledReason::as_str),
            consecutive_failures,
        )
            .hash(state);
        (created_at, updated_at).hash(state);
    }
}

impl crate::etag::Tagged for WebhookEndpoint {}

/// A new endpoint, as `POST /webhooks` asks for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewWebhook {
    /// Where to post.
    pub url: WebhookUrl,
    /// Which events; every event when `None`.
    pub events: Option<EventNames>,
    /// A note.
    pub description: Option<String>,
    /// Enabled unless `Some(false)`.
    pub enabled: Option<bool>,
}

/// A change of an endpoint (`PATCH /webhooks/:id`); `None` leaves a field as it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WebhookPatch {
    /// A new URL.
    pub url: Option<WebhookUrl>,
    /// New events.
    pub events: Option<EventNames>,
    /// `Some(None)` clears the note.
    pub description: Option<Option<String>>,
    /// `true` enables it (clearing the reason and the failure count), `false` disables it.
    pub enabled: Option<bool>,
}

/// The longest endpoint description, in characters.
pub(crate) fn check_description(text: &str) -> Result<(), ValidationError> {
    limits::check_text(text, limits::MAX_TITLE_CHARS)
        .map_err(|message| ValidationError::field("description", message))
}

impl WebhookEndpoint {
    /// A new endpoint of `team` with its first secret.
    ///
    /// # Errors
    /// A validation error for a description over [`limits::MAX_TITLE_CHARS`] or with NUL.
    pub fn create(
        id: WebhookId,
        team_id: TeamId,
        request: NewWebhook,
        secret: WebhookSecret,
        now: OffsetDateTime,
    ) -> Result<Self, ValidationError> {
        if let Some(description) = &request.description {
            check_description(description)?;
        }
        Ok(Self {
            id,
            team_id,
            url: request.url,
            events: request.events.unwrap_or_else(EventNames::all),
            description: request.description,
            enabled: request.enabled.unwrap_or(true),
            disabled_reason: None,
            consecutive_failures: 0,
            secrets: SigningSecrets::new(secret),
            created_at: now,
            updated_at: now,
        })
    }

    /// The endpoint after `patch`. Enabling clears the reason and the failure count, so the
    /// next ten failures are counted afresh.
    ///
    /// # Errors
    /// As for [`create`](Self::create).
    pub fn patched(
        &self,
        patch: &WebhookPatch,
        now: OffsetDateTime,
    ) -> Result<Self, ValidationError> {
        let mut next = self.clone();
        if let Some(url) = &patch.url {
            next.url = url.clone();
        }
        if let Some(events) = &patch.events {
            next.events = events.clone();
        }
        if let Some(description) = &patch.description {
            if let Some(text) = description {
                check_description(text)?;
            }
            next.description.clone_from(description);
        }
        match patch.enabled {
            Some(true) => {
                next.enabled = true;
                next.disabled_reason = None;
                next.consecutive_failures = 0;
            }
            Some(false) => next.enabled = false,
            None => {}
        }
        if next != *self {
            next.updated_at = now;
        }
        Ok(next)
    }

    /// The endpoint with a new current secret; the old one signs beside it for a day.
    #[must_use]
    pub fn rotated(&self, secret: WebhookSecret, now: OffsetDateTime) -> Self {
        Self {
            secrets: self.secrets.clone().rotate(secret, now),
            updated_at: now,
            ..self.clone()
        }
    }

    /// The endpoint after one of its deliveries ended: `delivered` resets the failure count;
    /// a failure counts one more, and the [`FAILURES_BEFORE_DISABLE`]th disables it.
    #[must_use]
    pub fn after_delivery(&self, delivered: bool) -> Self {
        let mut next = self.clone();
        if delivered {
            next.consecutive_failures = 0;
            return next;
        }
        next.consecutive_failures = self.consecutive_failures.saturating_add(1);
        if next.enabled && next.consecutive_failures >= FAILURES_BEFORE_DISABLE {
            next.enabled = false;
            next.disabled_reason = Some(DisabledReason::ConsecutiveFailures);
        }
        next
    }

    /// Whether an event of this kind, raised at `occurred_at`, is delivered here: the endpoint
    /// is enabled, subscribed to it, and existed when it happened.
    #[must_use]
    pub fn receives(&self, event: WebhookEvent, occurred_at: OffsetDateTime) -> bool {
        self.enabled && self.events.contains(event) && self.created_at <= occurred_at
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;
    use uuid::Uuid;

    use super::*;

    fn endpoint() -> WebhookEndpoint {
        WebhookEndpoint::create(
            WebhookId::from_uuid(Uuid::from_u128(1)),
            TeamId::from_uuid(Uuid::from_u128(2)),
            NewWebhook {
                url: "https://example.com/hook".parse().unwrap(),
                events: None,
                description: None,
                enabled: None,
            },
            WebhookSecret::from_key(&[1; 32]),
            datetime!(2026-01-01 0:00 UTC),
        )
        .unwrap()
    }

    #[test]
    fn a_new_endpoint_receives_every_event_and_is_enabled() {
        let endpoint = endpoint();
        assert!(endpoint.enabled);
        assert_eq!(endpoint.events, EventNames::all());
        let later = datetime!(2026-01-02 0:00 UTC);
        for event in WebhookEvent::ALL {
            assert!(endpoint.receives(event, later));
        }
        assert!(
            !endpoint.receives(WebhookEvent::RunCreated, datetime!(2025-12-31 0:00 UTC)),
            "an event older than the endpoint is not sent to it"
        );
    }

    #[test]
    fn ten_failures_in_a_row_disable_and_enabling_clears_the_count() {
        let mut endpoint = endpoint();
        for _ in 0..FAILURES_BEFORE_DISABLE - 1 {
            endpoint = endpoint.after_delivery(false);
        }
        assert!(endpoint.enabled);
        let reset = endpoint.after_delivery(true);
        assert_eq!(reset.consecutive_failures, 0);
        endpoint = endpoint.after_delivery(false);
        assert!(!endpoint.enabled);
        assert_eq!(
            endpoint.disabled_reason,
            Some(DisabledReason::ConsecutiveFailures)
        );
        assert!(!endpoint.receives(WebhookEvent::RunCreated, datetime!(2026-02-01 0:00 UTC)));
        let enabled = endpoint
            .patched(
                &WebhookPatch {
                    enabled: Some(true),
                    ..WebhookPatch::default()
                },
                datetime!(2026-02-01 0:00 UTC),
            )
            .unwrap();
        assert!(enabled.enabled);
        assert_eq!(enabled.disabled_reason, None);
        assert_eq!(enabled.consecutive_failures, 0);
    }

    #[test]
    fn event_names_refuse_unknown_and_repeated_names() {
        let error = EventNames::parse(&["run.created".to_owned()]).unwrap_err();
        assert!(error.to_string().contains("process_run.created"), "{error}");
        let twice = [
            "process_run.created".to_owned(),
            "process_run.created".to_owned(),
        ];
        assert!(EventNames::parse(&twice).is_err());
    }

    #[test]
    fn a_patch_that_changes_nothing_keeps_updated_at() {
        let endpoint = endpoint();
        let same = endpoint
            .patched(&WebhookPatch::default(), datetime!(2026-03-01 0:00 UTC))
            .unwrap();
        assert_eq!(same, endpoint);
        let long = "x".repeat(limits::MAX_TITLE_CHARS + 1);
        assert!(
            endpoint
                .patched(
                    &WebhookPatch {
                        description: Some(Some(long)),
                        ..WebhookPatch::default()
                    },
                    datetime!(2026-03-01 0:00 UTC)
                )
                .is_err()
        );
    }
}
