//! In-memory fakes of every port but the database's own figures (`StoreStats`, `HealthCheck`),
//! for tests and examples: no database, deterministic ids and time. They keep the ports'
//! contracts (team scoping, atomic decisions, pagination rules, exact rate limits), so use-case
//! tests over them say something about the real service; the conformance suite of
//! `procflow-postgres` runs the same contract tests on them and on PostgreSQL.

mod clock;
mod idempotency;
mod ids;
mod keys;
mod mail;
mod outbox;
mod rate_limits;
mod runs;
mod store;
mod teams;
mod templates;
mod webhooks;
mod windows;

pub use clock::FixedClock;
pub use ids::SequentialIds;
pub use keys::ScriptedKeyChanges;
pub use store::InMemoryStore;
pub use webhooks::{ManualSignal, ScriptedSender};
