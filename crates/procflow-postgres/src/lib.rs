#![doc = include_str!("../README.md")]

mod error;
mod migrate;
mod pool;
mod rows;
#[rustfmt::skip]
mod schema;
mod store;

pub use migrate::{MIGRATIONS, migrate, revert_all};
pub use pool::{PoolConfig, PoolStatus, StatementCounter};
pub use store::PgStore;
