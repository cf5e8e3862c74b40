//! In-memory fakes of every port, for tests and examples: no database, deterministic ids and
//! time. They keep the ports' contracts (team scoping, atomic decisions, pagination rules), so
//! use-case tests over them say something about the real service.

mod clock;
mod ids;
mod store;

pub use clock::FixedClock;
pub use ids::SequentialIds;
pub use store::InMemoryStore;
