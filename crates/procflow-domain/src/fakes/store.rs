//! One in-memory store implementing every store port, behind one lock: its state and the helpers
//! its ports share. Each port's implementation is in the sibling module named for its area
//! (`templates`, `runs`, `teams`, `outbox`, `rate_limits`, `windows`, `idempotency`).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use time::OffsetDateTime;
use uuid::Uuid;

use super::idempotency::IdempotencyRecords;
use super::rate_limits::RateLogs;
use crate::error::{DomainError, DomainResult, Resource};
use crate::event::{Event, from_stored, to_stored};
use crate::ids::{EventId, RunId, TeamId, TemplateId, UserId};
use crate::run::{Run, RunTask};
use crate::sharing::Share;
use crate::team::{ApiKey, Member, Role, Subscription, Team};
use crate::template::Template;
use crate::values::{Cursor, Email, Page, PageRequest};

/// Every store port in memory but the PostgreSQL figures (`StoreStats`, `HealthCheck`). All
/// reads and decisions happen under one lock, which makes each port call atomic, as the
/// contracts ask; clones of an `Arc` of it are what server instances sharing a database are.
#[derive(Debug, Default)]
pub struct InMemoryStore(Mutex<State>);

#[derive(Debug, Default)]
pub(super) struct State {
    pub(super) teams: HashMap<TeamId, Team>,
    pub(super) members: Vec<Member>,
    pub(super) keys: Vec<(ApiKey, [u8; 32])>,
    pub(super) templates: Vec<(Template, bool)>,
    pub(super) runs: Vec<Run>,
    // Keyed by team and id, as PostgreSQL keys them: two teams' records never meet, even
    // under one id.
    pub(super) tasks: HashMap<(TeamId, RunId), Vec<RunTask>>,
    pub(super) shares: HashMap<(TeamId, RunId), Share>,
    pub(super) outbox: Vec<OutboxRow>,
    pub(super) rate_limits: RateLogs,
    pub(super) windows: HashMap<String, Vec<OffsetDateTime>>,
    pub(super) idempotency: IdempotencyRecords,
    pub(super) webhooks: Vec<crate::webhook::WebhookEndpoint>,
    pub(super) deliveries: Vec<super::webhooks::DeliveryRow>,
    pub(super) mail: super::mail::MailState,
}

/// An outbox row as PostgreSQL keeps it: the event in its stored form, read back on each
/// claim, so that a row an older version or a hand wrote behaves as it does there.
#[derive(Debug)]
pub(super) struct OutboxRow {
    pub(super) id: EventId,
    pub(super) team_id: TeamId,
    pub(super) kind: String,
    pub(super) occurred_at: OffsetDateTime,
    pub(super) payload: serde_json::Value,
    pub(super) attempts: u32,
    pub(super) due_at: OffsetDateTime,
    pub(super) leased_until: Option<OffsetDateTime>,
    pub(super) delivered: bool,
    /// When it was set aside, and why.
    pub(super) dead: Option<(OffsetDateTime, String)>,
}

impl OutboxRow {
    /// The event, when it can be read.
    pub(super) fn event(&self) -> Option<Event> {
        from_stored(self.payload.clone()).ok()
    }
}

impl InMemoryStore {
    pub(super) fn state(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Creates (once) and returns a team `Demo` with an active subscription and an admin,
    /// `admin@demo.example`.
    #[must_use]
    pub fn demo_team(&self) -> Team {
        let team = Team {
            id: TeamId::from_uuid(Uuid::from_u128(0xD0)),
            name: "Demo".into(),
            base_url: "https://demo.example".into(),
            timezone: "UTC".into(),
            subscription: Subscription::Active,
            created_at: time::macros::datetime!(2026-01-01 0:00 UTC),
        };
        let mut state = self.state();
        if let std::collections::hash_map::Entry::Vacant(slot) = state.teams.entry(team.id) {
            slot.insert(team.clone());
            state.members.push(Member {
                id: UserId::from_uuid(Uuid::from_u128(0xAD)),
                team_id: team.id,
                email: Email::try_from("admin@demo.example".to_owned())
                    .unwrap_or_else(|_| unreachable!("a valid literal")),
                name: Some("Demo Admin".into()),
                role: Role::Admin,
                active: true,
                created_at: team.created_at,
            });
        }
        team
    }

    /// Every readable event appended so far, in order.
    #[must_use]
    pub fn events(&self) -> Vec<Event> {
        self.state()
            .outbox
            .iter()
            .filter_map(OutboxRow::event)
            .collect()
    }

    /// Appends an outbox row with this stored form, as an older version or a hand may have
    /// written it, due now; for tests of what the worker does with it.
    pub fn append_stored(
        &self,
        id: EventId,
        team: TeamId,
        kind: &str,
        payload: serde_json::Value,
        occurred_at: OffsetDateTime,
    ) {
        self.state().outbox.push(OutboxRow {
            id,
            team_id: team,
            kind: kind.to_owned(),
            occurred_at,
            payload,
            attempts: 0,
            due_at: occurred_at,
            leased_until: None,
            delivered: false,
            dead: None,
        });
    }
}

pub(super) fn paginate<T: Clone>(
    items: &[T],
    page: PageRequest,
    id: impl Fn(&T) -> Uuid,
) -> DomainResult<Page<T>> {
    let start = match page.cursor {
        None => 0,
        Some(cursor) => {
            items
                .iter()
                .position(|item| id(item) == cursor.id())
                .ok_or_else(Cursor::unknown)?
                + 1
        }
    };
    let fetched = items
        .iter()
        .skip(start)
        .take(page.limit.get() + 1)
        .cloned()
        .collect();
    Ok(Page::from_fetched(fetched, page.limit, id))
}

impl State {
    /// The unrevoked key with this hash and its team.
    pub(super) fn key_and_team(&self, key_hash: &[u8; 32]) -> Option<(ApiKey, Team)> {
        self.keys
            .iter()
            .find(|(key, hash)| hash == key_hash && key.revoked_at.is_none())
            .and_then(|(key, _)| {
                self.teams
                    .get(&key.team_id)
                    .map(|team| (key.clone(), team.clone()))
            })
    }

    pub(super) fn template(&self, team: TeamId, id: TemplateId) -> DomainResult<&Template> {
        self.templates
            .iter()
            .find(|(t, archived)| t.team_id == team && t.id == id && !archived)
            .map(|(t, _)| t)
            .ok_or(DomainError::NotFound(Resource::Template))
    }

    pub(super) fn run_index(&self, team: TeamId, id: RunId) -> DomainResult<usize> {
        self.runs
            .iter()
            .position(|r| r.team_id == team && r.id == id)
            .ok_or(DomainError::NotFound(Resource::Run))
    }

    pub(super) fn append(&mut self, events: &[Event]) {
        self.outbox.extend(events.iter().map(|event| OutboxRow {
            id: event.id,
            team_id: event.team_id,
            kind: event.payload.name().to_owned(),
            occurred_at: event.occurred_at,
            payload: to_stored(event).unwrap_or_default(),
            attempts: 0,
            due_at: event.occurred_at,
            leased_until: None,
            delivered: false,
            dead: None,
        }));
    }
}
