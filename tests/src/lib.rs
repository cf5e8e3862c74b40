#![doc = include_str!("../README.md")]
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    reason = "a test harness fails loudly, at the caller's line"
)]

mod app;
mod browser;
mod guest;
mod mail;
mod openapi;
mod remote;
mod reply;
mod seed;
mod served;
mod webhooks;

pub use app::{Call, Instance, Options, TestApp};
pub use browser::{Browser, Violation};
pub use guest::{BOUNDARY, GuestLink, MULTIPART, Page, form_body, multipart_file, text};
pub use mail::{MailWorld, smtp_config, test_clock};
pub use openapi::{ApiDescription, committed, committed_document, concrete_path, operation_method};
pub use remote::Remote;
pub use reply::{Reply, assert_keys, keys_of, sample};
pub use seed::{
    OPTIONS, Seeded, demo_document, every_element_document, logic_document, sized_document,
};
pub use served::{Served, admin, free_port, procflow_bin};
pub use webhooks::{DELIVERY_FIELDS, WEBHOOK_FIELDS, verify, worker_settings};

/// The fields of spec 2.2's Get a template (and publish, create, replace).
pub const TEMPLATE_FIELDS: &[&str] = &[
    "id",
    "title",
    "description",
    "is_published",
    "version",
    "sections",
    "rules",
    "created_at",
    "updated_at",
];

/// The fields of an item of List templates (spec 2.2: the list shape).
pub const TEMPLATE_LIST_FIELDS: &[&str] = &[
    "id",
    "title",
    "description",
    "cover_image",
    "icon",
    "icon_type",
    "visibility",
    "is_published",
    "version",
    "sections",
    "created_at",
    "updated_at",
];

/// A template section (spec 2.3).
pub const TEMPLATE_SECTION_FIELDS: &[&str] = &["id", "title", "description", "order", "color"];

/// A run section (spec 2.5: id, title, order, color).
pub const RUN_SECTION_FIELDS: &[&str] = &["id", "title", "order", "color"];

/// A template task (spec 2.4).
pub const TEMPLATE_TASK_FIELDS: &[&str] = &[
    "id",
    "ref",
    "depends_on",
    "title",
    "completed",
    "order",
    "section_id",
    "assignee",
    "is_essential",
    "type",
    "due_date",
    "webhook_enabled",
    "custom_elements",
    "created_at",
];

/// A run in List runs and Get a run (spec 2.5).
pub const RUN_FIELDS: &[&str] = &[
    "id",
    "template_id",
    "title",
    "status",
    "started_by",
    "team_id",
    "timezone",
    "due_date",
    "is_shared",
    "sections",
    "rules",
    "created_at",
    "updated_at",
    "completed_at",
];

/// The Create a run response (spec 2.5).
pub const CREATED_RUN_FIELDS: &[&str] = &[
    "id",
    "template_id",
    "title",
    "status",
    "started_by",
    "team_id",
    "timezone",
    "created_at",
    "completed_at",
];

/// A run task in List run tasks (spec 2.6 without due_date and webhook_enabled; API contract 6
/// adds skipped, decision and comment).
pub const RUN_TASK_LIST_FIELDS: &[&str] = &[
    "id",
    "instance_id",
    "template_task_id",
    "ref",
    "depends_on",
    "hidden",
    "blocked",
    "title",
    "completed",
    "completed_at",
    "completed_by",
    "order",
    "section_id",
    "assignee",
    "is_essential",
    "skipped",
    "type",
    "decision",
    "comment",
    "custom_elements",
    "created_at",
];

/// A run task in Get a task and Update a task: the list shape plus due_date and
/// webhook_enabled.
pub const RUN_TASK_FIELDS: &[&str] = &[
    "id",
    "instance_id",
    "template_task_id",
    "ref",
    "depends_on",
    "hidden",
    "blocked",
    "title",
    "completed",
    "completed_at",
    "completed_by",
    "order",
    "section_id",
    "assignee",
    "is_essential",
    "skipped",
    "type",
    "decision",
    "comment",
    "custom_elements",
    "created_at",
    "due_date",
    "webhook_enabled",
];

/// A custom element (spec 2.7), before `options` and `file_url`.
pub const ELEMENT_FIELDS: &[&str] = &[
    "id",
    "ref",
    "type",
    "label",
    "value",
    "required",
    "display_only",
];

/// The guest share result (spec 2.8).
pub const SHARE_FIELDS: &[&str] = &[
    "run_id",
    "invited_email",
    "is_shared",
    "share_url",
    "sent_process_run_id",
];

/// The fields an element of `element_type` carries: spec 2.7 plus `options` on dropdown and
/// multichoice and `file_url` on file.
#[must_use]
pub fn element_fields(element_type: &str) -> Vec<&'static str> {
    let mut fields = ELEMENT_FIELDS.to_vec();
    match element_type {
        "dropdown" | "multichoice" => fields.push("options"),
        "file" => fields.push("file_url"),
        _ => {}
    }
    fields
}

/// Reads an RFC 3339 (ISO 8601) timestamp.
#[track_caller]
pub fn timestamp(value: &serde_json::Value) -> time::OffsetDateTime {
    let text = value
        .as_str()
        .unwrap_or_else(|| panic!("expected an ISO 8601 timestamp, got {value}"));
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|e| panic!("{text:?} is not an RFC 3339 timestamp: {e}"))
}

/// Asserts `value` is a UUID string and returns it.
#[track_caller]
pub fn uuid(value: &serde_json::Value) -> uuid::Uuid {
    let text = value
        .as_str()
        .unwrap_or_else(|| panic!("expected a UUID string, got {value}"));
    uuid::Uuid::parse_str(text).unwrap_or_else(|e| panic!("{text:?} is not a UUID: {e}"))
}

/// A UUID no record has.
#[must_use]
pub fn unknown_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
