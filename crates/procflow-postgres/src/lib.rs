#![doc = include_str!("../README.md")]

mod checkout;
pub mod distribute;
mod error;
mod migrate;
mod pool;
mod rows;
#[rustfmt::skip]
mod schema;
mod store;
#[cfg(feature = "testing")]
pub mod testing;

pub use migrate::{MIGRATIONS, migrate, revert_all};
pub use pool::{PoolConfig, PoolStatus, StatementCounter};
pub use store::{CHANNEL, KEYS_CHANNEL, NOTIFY_GAP, PgKeyChanges, PgStore, TokenKind};
