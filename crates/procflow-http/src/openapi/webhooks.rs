//! Schemas of the webhook operations that the derive cannot state: the URL grammar, the event
//! set, and the envelope every webhook and feed item is (described, built by the domain).

#![allow(dead_code, reason = "schemas only: described, never built")]

use procflow_domain::limits::{MAX_TITLE_CHARS, MAX_URL_BYTES};
use procflow_domain::webhook::{WebhookEvent, WebhookUrl};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, SchemaType, Type};
use utoipa::openapi::{Array, Object, RefOr, Schema};

fn string(nullable: bool) -> ObjectBuilder {
    let kind = if nullable {
        SchemaType::from_iter([Type::String, Type::Null])
    } else {
        SchemaType::Type(Type::String)
    };
    ObjectBuilder::new().schema_type(kind)
}

fn url_of(nullable: bool) -> Object {
    string(nullable)
        .max_length(Some(MAX_URL_BYTES))
        .pattern(Some(WebhookUrl::PATTERN))
        .description(Some(
            "An absolute http or https URL: a domain name, a dotted-quad IPv4 address or a \
             bracketed IPv6 address in hexadecimal groups, an optional port, a path and query of \
             printable ASCII; no user name or password, no fragment. Whether its address may be \
             reached is checked at each delivery attempt.",
        ))
        .build()
}

/// The endpoint URL.
#[must_use]
pub fn url() -> Object {
    url_of(false)
}

/// The endpoint URL, or null (unchanged).
#[must_use]
pub fn optional_url() -> Object {
    url_of(true)
}

fn events_of(nullable: bool) -> Array {
    let item = RefOr::Ref(utoipa::openapi::Ref::from_schema_name("WebhookEvent"));
    let builder = ArrayBuilder::new()
        .items(item)
        .min_items(Some(1))
        .max_items(Some(WebhookEvent::ALL.len()))
        .unique_items(true);
    let builder = if nullable {
        builder.schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
    } else {
        builder
    };
    builder.build()
}

/// A non-empty set of event names, or null (every event / unchanged).
#[must_use]
pub fn optional_events() -> Array {
    events_of(true)
}

/// The endpoint's note, or null.
#[must_use]
pub fn description() -> Object {
    string(true).max_length(Some(MAX_TITLE_CHARS)).build()
}

/// `{user_id, email, is_guest}`: who started a run or completed a task (null id and email
/// for the API).
#[derive(Serialize, ToSchema)]
pub(crate) struct Person {
    #[schema(value_type = Option<String>, format = "uuid", required = true)]
    user_id: Option<String>,
    #[schema(value_type = Option<String>, format = Email, required = true)]
    email: Option<String>,
    is_guest: bool,
}

/// The data of `process_run.created`.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunCreatedData {
    #[schema(format = "uuid")]
    instance_id: String,
    #[schema(format = "uuid")]
    template_id: String,
    title: String,
    started_by: Person,
    #[schema(format = DateTime)]
    started_at: String,
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    due_date: Option<String>,
    is_shared: bool,
    #[schema(minimum = 0)]
    task_count: u32,
}

/// The data of `process_run.completed`.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunCompletedData {
    #[schema(format = "uuid")]
    instance_id: String,
    #[schema(format = "uuid")]
    template_id: String,
    title: String,
    started_by: Person,
    #[schema(format = DateTime)]
    started_at: String,
    #[schema(format = DateTime)]
    completed_at: String,
}

/// The data of `process_step.completed`.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StepCompletedData {
    #[schema(format = "uuid")]
    task_id: String,
    #[schema(format = "uuid")]
    instance_id: String,
    #[schema(format = "uuid")]
    template_task_id: String,
    #[schema(format = "uuid")]
    section_id: String,
    title: String,
    #[schema(format = DateTime)]
    completed_at: String,
    completed_by: Person,
}

/// The data of an event: one of the three shapes, by `event`.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub(crate) enum EventData {
    /// `process_run.created`
    RunCreated(RunCreatedData),
    /// `process_run.completed`
    RunCompleted(RunCompletedData),
    /// `process_step.completed`
    StepCompleted(StepCompletedData),
}

/// `{id, event, timestamp, test, data}`: what a webhook posts and the feed lists. `id` is the
/// event's (the `webhook-id` header), the same for every endpoint, attempt and redelivery.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Envelope {
    #[schema(format = "uuid")]
    id: String,
    event: WebhookEvent,
    #[schema(format = DateTime)]
    timestamp: String,
    /// True on a sample sent by `POST /webhooks/{id}/test`.
    test: bool,
    data: EventData,
}

/// Refers to the envelope's schema.
#[must_use]
pub fn envelope_ref() -> RefOr<Schema> {
    RefOr::Ref(utoipa::openapi::Ref::from_schema_name("Envelope"))
}
