//! The conformance suite of the store ports: each MUST of the port docs, tenant isolation and
//! concurrency, run on both `PgStore` and the domain's in-memory fakes (each test is a module
//! with a `postgres` and a `memory` test, see `conformance_test!`), so that the fakes the
//! use-case tests rely on keep the contracts PostgreSQL keeps; and, on PostgreSQL only,
//! statement counts, migrations and what reads SQL directly. Every PostgreSQL test has its own
//! database.

// The test bodies are plain functions that the tests `conformance_test!` makes call, and clippy
// does not see them as tests; they fail loudly all the same, as the fixtures do.
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test bodies and fixtures fail loudly"
)]
mod conformance {
    pub mod attachments;
    pub mod batch;
    pub mod clearance;
    pub mod comments;
    pub mod concurrency;
    pub mod conditional;
    pub mod dead_letters;
    pub mod env;
    pub mod guest_attachments;
    pub mod guest_comments;
    pub mod idempotency;
    pub mod inbox;
    pub mod inbox_plan;
    pub mod isolation;
    pub mod logic;
    pub mod mail;
    pub mod migrations;
    pub mod notices;
    pub mod outbox;
    pub mod rate_limits;
    pub mod run_links;
    pub mod runs;
    pub mod schedules;
    pub mod schedules_plan;
    pub mod share_links;
    pub mod sharing;
    pub mod statements;
    pub mod stored_elements;
    pub mod support;
    pub mod takeover;
    pub mod teams;
    pub mod templates;
    pub mod tenancy;
    pub mod webhooks;
    pub mod windows;
}
