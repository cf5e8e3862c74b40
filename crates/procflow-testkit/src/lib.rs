#![doc = include_str!("../README.md")]

mod admin;
mod binaries;
mod database;
mod disposable;
mod error;
mod fingerprint;
mod naming;
mod private_server;
pub mod receiver;
mod server;
pub mod smtp;
mod sweep;
mod template;
mod watchdog;

pub use database::TestDatabase;
pub use disposable::DisposableServer;
pub use fingerprint::dir_fingerprint;
pub use server::server_url;
