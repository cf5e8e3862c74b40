//! The server crate end to end on throwaway databases: the admin commands, the `procflow`
//! binary (migrate, admin, serve and its graceful stop), and the app started on port 0.
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and their helpers fail loudly"
)]

mod server {
    pub mod admin;
    pub mod binary;
    pub mod files;
    pub mod flood;
    pub mod keys;
    pub mod logs;
    pub mod mcp;
    pub mod secrets;
    pub mod serve;
    pub mod support;
    pub mod takeover;
    pub mod transport;
    pub mod worker;
}
