//! The REST API, black-box: every test starts the real app on a loopback port over a
//! throwaway database of its own (see the `procflow-tests` harness) and speaks HTTP only.
//!
//! One test binary, one module per area, so the whole suite shares one private PostgreSQL
//! server and runs its tests in parallel.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests and their helpers fail loudly"
)]

mod api {
    pub mod amplification;
    pub mod attachments;
    pub mod auth;
    pub mod batch;
    pub mod client;
    pub mod comments;
    pub mod concurrency;
    pub mod conditional;
    pub mod elements;
    pub mod email;
    pub mod errors;
    pub mod guest_attachments;
    pub mod guest_comments;
    pub mod guest_page;
    pub mod guest_posts;
    pub mod guest_refusals;
    pub mod health;
    pub mod idempotency;
    pub mod inbox;
    pub mod instances;
    pub mod isolation;
    pub mod logic;
    pub mod logic_changes;
    pub mod logic_guest;
    pub mod logic_notices;
    pub mod methods;
    pub mod metrics;
    pub mod nul_text;
    pub mod openapi;
    pub mod openapi_types;
    pub mod outbox_dead;
    pub mod pagination;
    pub mod rate_limit;
    pub mod round_two;
    pub mod run_link_page;
    pub mod run_links;
    pub mod runs;
    pub mod schedule_failures;
    pub mod schedules;
    pub mod scopes;
    pub mod sharing;
    pub mod tasks;
    pub mod templates;
    pub mod text_limits;
    pub mod unknown_query;
    pub mod validate_only;
    pub mod webhook_delivery;
    pub mod webhooks;
}
