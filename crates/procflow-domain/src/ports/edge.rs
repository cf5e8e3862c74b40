//! What the HTTP adapter asks around a use case: admitting a request (its key, its team's
//! subscription, the rate limit), windows of guest posts, idempotency records, key changes, the
//! store's health and figures. Only an adapter calls them; they are in the domain because their
//! rules are the API contract's (the exact rolling window, idempotency's outcomes) and because
//! each has a PostgreSQL implementation and a fake that the conformance suite holds to the
//! same contract.

use async_trait::async_trait;
use time::{Duration, OffsetDateTime};

use crate::error::DomainResult;
use crate::ids::TeamId;
use crate::team::{ApiKey, Team};
pub use crate::window::RateDecision;
use crate::window::{WindowLimit, WindowsDecision};

/// What admitting one request found: the caller's key and team, and how the rate limit
/// counted the request.
///
/// ```
/// # use procflow_domain::ports::{Admission, RateDecision};
/// # fn check(admission: &Admission) -> &'static str {
/// match admission.rate {
///     // The team's subscription is not active: nothing was counted (403).
///     None => "forbidden",
///     Some(RateDecision { allowed: false, .. }) => "rate limited",
///     Some(RateDecision { allowed: true, .. }) => "admitted",
/// }
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Admission {
    /// The key whose secret was presented.
    pub key: ApiKey,
    /// Its team.
    pub team: Team,
    /// The rate limit's decision; `None` when the team is not active, and then the request
    /// was not counted.
    pub rate: Option<RateDecision>,
}

/// Whether the caller a write runs for may write: a write that starts before its caller's
/// admission has answered (its reads overlap the admission's round trip) awaits this after its
/// reads and before its first write, and writes nothing when it is refused. A write whose caller
/// was admitted first passes [`Cleared`].
///
/// ```
/// use procflow_domain::ports::{Clearance, Cleared};
///
/// # futures_executor::block_on(async {
/// assert!(Cleared.cleared().await.is_ok());
/// # });
/// ```
#[async_trait]
pub trait Clearance: Send + Sync {
    /// Waits for the answer; `Ok` when the write may go ahead.
    ///
    /// # Errors
    /// Whatever refused it: the write MUST then write nothing.
    async fn cleared(&self) -> DomainResult<()>;
}

/// The clearance of a caller admitted before its write began.
///
/// ```
/// # use procflow_domain::ports::{Clearance, Cleared};
/// let clearance: &dyn Clearance = &Cleared;
/// # let _ = clearance;
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Cleared;

#[async_trait]
impl Clearance for Cleared {
    async fn cleared(&self) -> DomainResult<()> {
        Ok(())
    }
}

/// Authentication and per-key request counting over a rolling window, shared by every server
/// instance. One call per request does both, because every request needs both: a store can
/// then answer in one round trip. The window is counted at a resolution of one second, as
/// [`window::admit`](crate::window::admit) counts it (a request counts in the whole second it
/// was admitted), so that the cost of a call does not grow with the limit or the traffic.
#[async_trait]
pub trait RateLimiter: Send + Sync {
    /// Finds the unrevoked key whose secret hashes to `key_hash`, with its team, as
    /// [`TeamStore::find_api_key`](super::TeamStore::find_api_key) does. When the team is active, also counts a request of the
    /// key at `now` if fewer than `limit` were accepted in the `window` before it, and decides
    /// as [`window::admit`](crate::window::admit) does with the key's counts as its one limit.
    /// Exact across instances sharing the store: of any number of concurrent calls, at most
    /// `limit` are accepted per rolling window. Refused requests are not counted, nor are
    /// requests of an inactive team. The cost of a call MUST NOT grow with `limit` or with
    /// the key's traffic.
    ///
    /// A store MAY make the count less durable than other writes (a crash of the database
    /// may forget the last moments of counting), never less exact while it runs.
    ///
    /// # Errors
    /// Only store failures; an unknown or revoked key is `Ok(None)`.
    async fn admit(
        &self,
        key_hash: &[u8; 32],
        now: OffsetDateTime,
        limit: u32,
        window: Duration,
    ) -> DomainResult<Option<Admission>>;
}

/// A change that ends what an instance remembers about an API key (the rate-limit refusals
/// it answers from memory): reported by [`KeyChanges::next`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyChange {
    /// The key whose secret hashes to this was revoked.
    Revoked([u8; 32]),
    /// Anything may have changed (a team's subscription, or changes were missed while the
    /// feed reconnected): forget everything remembered about keys.
    Any,
}

/// Changes of API keys and teams as they are committed, by any instance or the admin CLI, so
/// that a revoked key is refused at once even where its refusals are remembered.
#[async_trait]
pub trait KeyChanges: Send + Sync {
    /// Waits for the next change since the previous call returned. A feed that may have
    /// missed changes MUST answer [`KeyChange::Any`].
    async fn next(&self) -> KeyChange;
}

/// Rolling-window counts kept under names and shared by every server instance: the guest
/// page's limits on posts, per run and per client address (API contract 7.1).
#[async_trait]
pub trait WindowLimiter: Send + Sync {
    /// Admits one event at `now` when, for every limit of `limits`, fewer than its `limit`
    /// events were admitted under its name in the `window` before `now`, and then counts it
    /// under every name; otherwise counts it nowhere. Decides as
    /// [`window::admit`](crate::window::admit) does (one-second resolution), and says which
    /// limits were full. Exact across instances sharing the store: of any number of
    /// concurrent calls, at most `limit` are admitted per name and window. The cost of a call
    /// MUST NOT grow with the limits or with the traffic of a name.
    ///
    /// # Errors
    /// Only store failures.
    async fn decide_all(
        &self,
        limits: &[WindowLimit],
        now: OffsetDateTime,
        window: Duration,
    ) -> DomainResult<WindowsDecision>;

    /// [`decide_all`](Self::decide_all)'s decision alone.
    ///
    /// # Errors
    /// Only store failures.
    async fn admit_all(
        &self,
        limits: &[WindowLimit],
        now: OffsetDateTime,
        window: Duration,
    ) -> DomainResult<RateDecision> {
        Ok(self.decide_all(limits, now, window).await?.decision)
    }
}

/// A response kept for an `Idempotency-Key`, replayed to a retry of the same request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredResponse {
    /// The HTTP status.
    pub status: u16,
    /// The body, as sent.
    pub body: Vec<u8>,
}

/// Where a request with an `Idempotency-Key` stands (API contract 10).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdempotencyBegin {
    /// This request is the first with the key: it runs, then [`IdempotencyStore::finish`].
    Started,
    /// The same request finished already: answer its response again.
    Replay(StoredResponse),
    /// The same key is held by a request still running.
    InFlight,
    /// The key was used with another request (method, path or body).
    Mismatch,
}

/// How long `Idempotency-Key` records count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyLifetimes {
    /// A record with its response is replayed for this long (API contract 10: 24 hours).
    pub answered: Duration,
    /// A record still without a response holds its key for this long: past it, the request
    /// is taken to have died with its instance, and the key is free again. It must be longer
    /// than any request runs.
    pub in_flight: Duration,
}

/// `Idempotency-Key` records, per team, shared by every server instance.
#[async_trait]
pub trait IdempotencyStore: Send + Sync {
    /// Claims `key` for a request whose method, path and body hash to `request_hash`, or
    /// says why not. Of any number of concurrent calls with one key, exactly one MUST get
    /// `Started`. A record older than `lifetimes.answered`, or still in flight and older than
    /// `lifetimes.in_flight`, MUST be treated as absent.
    ///
    /// # Errors
    /// Only store failures.
    async fn begin(
        &self,
        team: TeamId,
        key: &str,
        request_hash: &[u8; 32],
        now: OffsetDateTime,
        lifetimes: KeyLifetimes,
    ) -> DomainResult<IdempotencyBegin>;

    /// Records the response of a request that `begin` started.
    ///
    /// # Errors
    /// Only store failures.
    async fn finish(
        &self,
        team: TeamId,
        key: &str,
        response: &StoredResponse,
        now: OffsetDateTime,
    ) -> DomainResult<()>;

    /// Releases a key whose request failed without a response worth replaying (a 5xx), so a
    /// retry runs again.
    ///
    /// # Errors
    /// Only store failures.
    async fn abandon(&self, team: TeamId, key: &str) -> DomainResult<()>;

    /// Deletes the records that `begin` treats as absent at `now` (of every team), and
    /// answers how many.
    ///
    /// # Errors
    /// Only store failures.
    async fn sweep_keys(&self, now: OffsetDateTime, lifetimes: KeyLifetimes) -> DomainResult<u64>;
}

/// Figures about the store for metrics.
#[async_trait]
pub trait StoreStats: Send + Sync {
    /// The pool's occupancy now.
    fn pool(&self) -> PoolUsage;

    /// Events in the outbox not delivered yet.
    ///
    /// # Errors
    /// Only store failures.
    async fn outbox_backlog(&self) -> DomainResult<u64>;
}

/// The connection pool's occupancy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolUsage {
    /// The most connections it may hold.
    pub max_size: usize,
    /// Connections open now.
    pub size: usize,
    /// Open connections not in use.
    pub available: usize,
    /// Requests waiting for a connection.
    pub waiting: usize,
}

/// Whether the store answers (`/readyz`).
#[async_trait]
pub trait HealthCheck: Send + Sync {
    /// Answers `Ok` when the store can serve requests.
    ///
    /// # Errors
    /// `Store(Unavailable)` when it cannot.
    async fn ping(&self) -> DomainResult<()>;
}
