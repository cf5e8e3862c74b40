//! Schemas the derives cannot state, named by their `schema_with`: the webhook URL grammar,
//! the event set, a note's limit, a schedule's name, the inbox's assignee, and a reference to
//! the event envelope ([`crate::events`]).

use procflow_domain::limits::{MAX_TITLE_CHARS, MAX_URL_BYTES, TITLE_PATTERN};
use procflow_domain::schedule::MAX_NAME_CHARS;
use procflow_domain::webhook::{WebhookEvent, WebhookUrl};
use utoipa::openapi::schema::{
    AnyOfBuilder, ArrayBuilder, KnownFormat, ObjectBuilder, SchemaFormat, SchemaType, Type,
};
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

/// Refers to the envelope's schema.
#[must_use]
pub fn envelope_ref() -> RefOr<Schema> {
    RefOr::Ref(utoipa::openapi::Ref::from_schema_name("Envelope"))
}

/// A schedule's name: not blank (the rule of a title), at most [`MAX_NAME_CHARS`] characters;
/// null for none.
#[must_use]
pub fn schedule_name() -> Object {
    string(true)
        .min_length(Some(1))
        .max_length(Some(MAX_NAME_CHARS))
        .pattern(Some(TITLE_PATTERN))
        .description(Some(format!(
            "A name for people: not blank, at most {MAX_NAME_CHARS} characters; null or \
             omitted for none."
        )))
        .build()
}

/// Whom the inbox lists tasks for: a member's user id, or an email address (a member's or an
/// external assignee's). Anything else is refused, so the schema says which two it takes.
#[must_use]
pub fn assignee_filter() -> Schema {
    let of_format = |format: SchemaFormat| {
        ObjectBuilder::new()
            .schema_type(SchemaType::Type(Type::String))
            .format(Some(format))
            .build()
    };
    Schema::AnyOf(
        AnyOfBuilder::new()
            .item(of_format(SchemaFormat::Custom("uuid".to_owned())))
            .item(of_format(SchemaFormat::KnownFormat(KnownFormat::Email)))
            .description(Some(
                "A member's user id, or an email address (a member's or an external assignee's).",
            ))
            .build(),
    )
}

/// A comment's attachments: ids (UUIDs) of the task's attachments.
#[must_use]
pub fn attachment_ids() -> Array {
    ArrayBuilder::new()
        .description(Some("Attachments of the task to show with it (their ids)."))
        .items(
            ObjectBuilder::new()
                .schema_type(SchemaType::Type(Type::String))
                .format(Some(SchemaFormat::Custom("uuid".to_owned()))),
        )
        .build()
}
