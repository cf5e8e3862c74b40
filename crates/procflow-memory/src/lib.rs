#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

mod attachments;
mod clock;
mod comments;
mod files;
mod idempotency;
mod ids;
mod keys;
mod leased;
mod mail;
mod outbox;
mod rate_limits;
mod run_links;
mod runs;
mod schedules;
mod state;
mod store;
mod teams;
mod templates;
mod webhooks;
mod windows;

pub use clock::FixedClock;
pub use files::InMemoryFiles;
pub use ids::SequentialIds;
pub use keys::ScriptedKeyChanges;
pub use store::InMemoryStore;
pub use webhooks::{ManualSignal, ScriptedSender};
