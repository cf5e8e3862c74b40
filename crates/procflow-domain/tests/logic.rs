//! Process logic (API contract 12): documents with rules and dependencies, what a run makes of
//! them change after change, and the properties every sequence of changes keeps.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test set-up: a document or a change that does not behave as written fails the test"
)]

#[path = "logic/documents.rs"]
mod documents;
#[path = "logic/model.rs"]
mod model;
#[path = "logic/properties.rs"]
mod properties;
#[path = "logic/runs.rs"]
mod runs;
