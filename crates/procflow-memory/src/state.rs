//! Everything the in-memory store keeps, behind its one lock, and the helpers its ports share.
//! The rows of each area are in `state/`; nothing here depends on a port's implementation, so
//! each port module depends on this one and never on a sibling.

mod deliveries;
mod idempotency;
mod leased;
mod mail;
mod rate_limits;

use std::collections::HashMap;

use procflow_domain::error::{DomainError, DomainResult, Resource};
use procflow_domain::event::{Event, from_stored, to_stored};
use procflow_domain::ids::{EventId, RunId, TeamId, TemplateId};
use procflow_domain::run::{Run, RunTask};
use procflow_domain::sharing::Share;
use procflow_domain::team::{ApiKey, Member, Team};
use procflow_domain::template::Template;
use procflow_domain::values::{Cursor, Page, PageRequest, ShareToken};
use time::OffsetDateTime;
use uuid::Uuid;

pub(crate) use deliveries::DeliveryRow;
pub(crate) use idempotency::{IdempotencyRecords, Record};
pub(crate) use leased::{Hold, LeasedRow, Stage, StoredJob};
pub(crate) use mail::{MailRow, MailState};
pub(crate) use rate_limits::RateLogs;

#[derive(Debug, Default)]
pub(crate) struct State {
    pub(crate) teams: HashMap<TeamId, Team>,
    pub(crate) members: Vec<Member>,
    pub(crate) keys: Vec<(ApiKey, [u8; 32])>,
    pub(crate) templates: Vec<(Template, bool)>,
    pub(crate) runs: Vec<Run>,
    // Keyed by team and id, as PostgreSQL keys them: two teams' records never meet, even
    // under one id.
    pub(crate) tasks: HashMap<(TeamId, RunId), Vec<RunTask>>,
    pub(crate) shares: HashMap<(TeamId, RunId), Share>,
    /// The links of shared runs, by their token's digest (what the store keeps of a token).
    pub(crate) share_links: HashMap<String, (TeamId, RunId)>,
    pub(crate) outbox: Vec<OutboxRow>,
    pub(crate) rate_limits: RateLogs,
    pub(crate) windows: HashMap<String, procflow_domain::window::SecondCounts>,
    pub(crate) idempotency: IdempotencyRecords,
    pub(crate) webhooks: Vec<procflow_domain::webhook::WebhookEndpoint>,
    pub(crate) deliveries: Vec<DeliveryRow>,
    pub(crate) mail: MailState,
    pub(crate) schedules: Vec<procflow_domain::schedule::Schedule>,
    /// Templates' run links, one per (team, template).
    pub(crate) run_links: Vec<procflow_domain::run_link::RunLink>,
    /// The occurrences that started a run: (team, schedule, occurrence time).
    pub(crate) schedule_occurrences:
        std::collections::HashSet<(TeamId, procflow_domain::ids::ScheduleId, OffsetDateTime)>,
    pub(crate) comments: Vec<procflow_domain::comment::Comment>,
    pub(crate) attachments: Vec<procflow_domain::attachment::Attachment>,
}

/// An outbox row as PostgreSQL keeps it: the event in its stored form, read back on each
/// claim, so that a row an older version or a hand wrote behaves as it does there.
#[derive(Debug)]
pub(crate) struct OutboxRow {
    pub(crate) id: EventId,
    pub(crate) team_id: TeamId,
    pub(crate) kind: String,
    pub(crate) occurred_at: OffsetDateTime,
    pub(crate) payload: serde_json::Value,
    pub(crate) attempts: u32,
    pub(crate) due_at: OffsetDateTime,
    pub(crate) leased_until: Option<OffsetDateTime>,
    pub(crate) delivered: bool,
    /// When it was set aside, and why.
    pub(crate) dead: Option<(OffsetDateTime, String)>,
}

impl OutboxRow {
    /// The event, when it can be read.
    pub(crate) fn event(&self) -> Option<Event> {
        from_stored(self.payload.clone()).ok()
    }
}

pub(crate) fn paginate<T: Clone>(
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
    /// As [`shared`](Self::shared), refused while the team's subscription is not active (the
    /// port's contract: the link first, then the team).
    pub(crate) fn shared_while_subscribed(
        &self,
        run: RunId,
        token: &ShareToken,
    ) -> DomainResult<(TeamId, &Share)> {
        let (team, share) = self
            .shared(run, token)
            .ok_or(DomainError::NotFound(Resource::Run))?;
        let active = self.teams.get(&team).is_some_and(Team::is_active);
        if active {
            Ok((team, share))
        } else {
            Err(DomainError::SubscriptionInactive)
        }
    }

    /// The team and share of `run` that `token` opens: the token is the capability, whichever
    /// team's run it opens, found by its digest as a store keeps it.
    pub(crate) fn shared(&self, run: RunId, token: &ShareToken) -> Option<(TeamId, &Share)> {
        let (team, shared) = *self.share_links.get(&token.digest())?;
        (shared == run)
            .then(|| self.shares.get(&(team, run)).map(|share| (team, share)))
            .flatten()
    }

    /// The unrevoked key with this hash and its team.
    pub(crate) fn key_and_team(&self, key_hash: &[u8; 32]) -> Option<(ApiKey, Team)> {
        self.keys
            .iter()
            .find(|(key, hash)| hash == key_hash && key.revoked_at.is_none())
            .and_then(|(key, _)| {
                self.teams
                    .get(&key.team_id)
                    .map(|team| (key.clone(), team.clone()))
            })
    }

    pub(crate) fn template(&self, team: TeamId, id: TemplateId) -> DomainResult<&Template> {
        self.templates
            .iter()
            .find(|(t, archived)| t.team_id == team && t.id == id && !archived)
            .map(|(t, _)| t)
            .ok_or(DomainError::NotFound(Resource::Template))
    }

    pub(crate) fn run_index(&self, team: TeamId, id: RunId) -> DomainResult<usize> {
        self.runs
            .iter()
            .position(|r| r.team_id == team && r.id == id)
            .ok_or(DomainError::NotFound(Resource::Run))
    }

    pub(crate) fn append(&mut self, events: &[Event]) {
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
