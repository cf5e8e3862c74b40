//! One in-memory store implementing every store port, behind one lock: its state and the helpers
//! its ports share. Each port's implementation is in the sibling module named for its area
//! (`templates`, `runs`, `teams`, `outbox`, `rate_limits`, `windows`, `idempotency`).

use std::sync::{Mutex, MutexGuard, PoisonError};

use time::OffsetDateTime;
use uuid::Uuid;

use crate::state::{OutboxRow, State};
use procflow_domain::event::Event;
use procflow_domain::ids::{EventId, TeamId, UserId};
use procflow_domain::team::{Member, Role, Subscription, Team};
use procflow_domain::values::Email;

/// Every store port in memory but the PostgreSQL figures (`StoreStats`, `HealthCheck`). All
/// reads and decisions happen under one lock, which makes each port call atomic, as the
/// contracts ask; clones of an `Arc` of it are what server instances sharing a database are.
#[derive(Debug, Default)]
pub struct InMemoryStore(Mutex<State>);

impl InMemoryStore {
    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
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
