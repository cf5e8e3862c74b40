//! The conformance suite of the store ports on PostgreSQL: each MUST of the port docs, tenant
//! isolation, concurrency, statement counts and migrations. Every test has its own database.

mod conformance {
    pub mod concurrency;
    pub mod idempotency;
    pub mod isolation;
    pub mod migrations;
    pub mod outbox;
    pub mod rate_limits;
    pub mod runs;
    pub mod sharing;
    pub mod statements;
    pub mod support;
    pub mod teams;
    pub mod templates;
}
