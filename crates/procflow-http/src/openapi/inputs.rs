//! What the document says of the inputs beyond their types, from the rules that judge them, so
//! that every request the document admits is one the server takes: no text input holds NUL
//! (PostgreSQL cannot store it; the server answers 400), titles are not blank, a relative due
//! date's duration grammar, a run's due date, a template task's assignee, the guest's form.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use procflow_domain::element::ElementType;
use procflow_domain::guest::GuestIntent;
use procflow_domain::limits::{
    MAX_COMMENT_CHARS, MAX_TEXT_CHARS, MAX_TITLE_CHARS, MAX_URL_BYTES, TEXT_PATTERN, TITLE_PATTERN,
};
use procflow_domain::template::IsoDuration;

/// Completes the input schemas of utoipa's document.
pub(super) fn complete(document: &mut Value) {
    let schemas = &mut document["components"]["schemas"];
    if let Some(variants) = schemas["DueDateRule"]["oneOf"].as_array_mut() {
        for variant in variants {
            if variant["properties"]["offset"].is_object() {
                variant["properties"]["offset"]["pattern"] = json!(IsoDuration::pattern());
            }
        }
    }
    let run = &mut schemas["CreateRun"];
    // Each alternative carries its own type (not one `type` list beside format-only
    // alternatives): generated clients make one typed member per alternative (a datetime, a
    // date, null) instead of an untyped value.
    run["properties"]["due_date"] = json!({
        "description": "An RFC 3339 timestamp, or a `YYYY-MM-DD` date (midnight UTC).",
        "anyOf": [
            {"type": "string", "format": "date-time"},
            {"type": "string", "format": "date"},
            {"type": "null"},
        ],
    });
    for name in ["name", "title"] {
        let description = run["properties"][name]["description"].clone();
        run["properties"][name] = json!({
            "type": ["string", "null"],
            "maxLength": MAX_TITLE_CHARS,
            "pattern": TITLE_PATTERN,
            "description": description,
        });
    }
    schemas["TaskDocument"]["properties"]["assignee"] = json!({
        "description": "Who is assigned in each run: `runner` (who starts the run), a member's user id or an email address.",
        "anyOf": [
            {"type": "string", "const": "runner"},
            {"type": "string", "format": "uuid"},
            {"type": "string", "format": "email"},
            {"type": "null"},
        ],
    });
    schemas["ElementDocument"]["allOf"] = element_rules();
    // A task's assignee in an update: a user id or an email (null unassigns); the comment of
    // a decision as long as `run::patch` takes it.
    for schema in ["UpdateTask", "TaskUpdate"] {
        let properties = &mut document["components"]["schemas"][schema]["properties"];
        let assignee = &mut properties["assignee"];
        let description = assignee["description"].clone();
        *assignee = json!({
            "description": description,
            "anyOf": [
                {"type": "string", "format": "uuid"},
                {"type": "string", "format": "email"},
                {"type": "null"},
            ],
        });
        properties["comment"]["maxLength"] = json!(MAX_COMMENT_CHARS);
    }
    let names: Vec<String> = request_schemas(document);
    for name in names {
        text_without_nul(&mut document["components"]["schemas"][&name]);
    }
    // `title` is another name for `name`: both given is refused.
    document["components"]["schemas"]["CreateRun"]["not"] = json!({
        "required": ["name", "title"],
        "properties": {"name": {"type": "string"}, "title": {"type": "string"}},
    });
    if let Some(body) = document
        .pointer_mut("/paths/~1instance~1{run_id}~1tasks~1{task_id}/post/requestBody/content/application~1x-www-form-urlencoded")
    {
        body["schema"] = guest_form();
    }
    if let Some(body) = document
        .pointer_mut("/paths/~1instance~1{run_id}~1tasks~1{task_id}~1comments/post/requestBody/content/application~1x-www-form-urlencoded")
    {
        body["schema"] = guest_comment_form();
    }
}

/// What an element of an authoring document must carry by its type (`template::document`):
/// a label that is not blank on input elements, options exactly on those that have some, a
/// `file_url` exactly on files, the content of display-only ones, a default of the type's kind
/// on input ones (none on dropdowns and multichoices: it must be one of their `options`, which
/// a schema cannot say).
///
/// Each rule comes from an exhaustive `match` over [`ElementType`] (the domain's predicates and
/// [`value_rule`]), so that a new element type cannot be left out of the document.
fn element_rules() -> Value {
    let types = |keep: &dyn Fn(ElementType) -> bool| -> Value {
        let names: Vec<&str> = ElementType::ALL
            .into_iter()
            .filter(|kind| keep(*kind))
            .map(ElementType::as_str)
            .collect();
        json!({"properties": {"type": {"enum": names}}, "required": ["type"]})
    };
    let mut rules = vec![
        json!({
            "if": types(&|kind| !kind.is_display_only()),
            "then": {"required": ["label"], "properties": {"label": {"pattern": TITLE_PATTERN}}},
        }),
        json!({
            "if": types(&ElementType::has_options),
            "then": {
                "required": ["options"],
                "properties": {"options": {
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": true,
                    "items": {"type": "string", "maxLength": MAX_TITLE_CHARS, "pattern": TITLE_PATTERN},
                }},
            },
            "else": {"properties": {"options": {"type": "null"}}},
        }),
    ];
    // One `if` per value rule, the types that share it together, in the order `ValueRule`
    // declares them.
    let by_rule: BTreeSet<ValueRule> = ElementType::ALL.into_iter().map(value_rule).collect();
    rules.extend(by_rule.into_iter().map(|rule| {
        json!({
            "if": types(&|kind| value_rule(kind) == rule),
            "then": rule.then(),
        })
    }));
    rules.push(json!({
        "if": types(&ElementType::has_file_url),
        "then": {"required": ["file_url"], "properties": {"file_url": {"type": "string"}}},
        "else": {"properties": {"file_url": {"type": "null"}}},
    }));
    Value::Array(rules)
}

/// What the `value` of an authoring document's element may be, by the element's type.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum ValueRule {
    /// The HTML content, required.
    Html,
    /// The URL shown, required.
    Media,
    /// None: the type has no value, or a default a schema cannot check (one of the options).
    Nothing,
    /// A text default.
    Text,
    /// A number default.
    Number,
    /// A boolean default.
    Boolean,
    /// An email address default.
    Email,
    /// A URL default.
    Website,
    /// A calendar date default.
    Date,
}

/// The rule of an element type's `value`: every type named, so that a new one is a compile
/// error here until the document says what its value may be.
fn value_rule(kind: ElementType) -> ValueRule {
    match kind {
        ElementType::Text => ValueRule::Html,
        ElementType::Image | ElementType::Video => ValueRule::Media,
        ElementType::File
        | ElementType::LineBreak
        | ElementType::Dropdown
        | ElementType::Multichoice => ValueRule::Nothing,
        ElementType::ShortText | ElementType::LongText => ValueRule::Text,
        ElementType::Number => ValueRule::Number,
        ElementType::Checkbox => ValueRule::Boolean,
        ElementType::Email => ValueRule::Email,
        ElementType::Website => ValueRule::Website,
        ElementType::Date => ValueRule::Date,
    }
}

impl ValueRule {
    /// The `then` of the rule's `if`.
    fn then(self) -> Value {
        match self {
            Self::Html => {
                json!({"required": ["value"], "properties": {"value": {"type": "string", "maxLength": MAX_TEXT_CHARS, "pattern": TITLE_PATTERN}}})
            }
            Self::Media => {
                json!({"required": ["value"], "properties": {"value": {"type": "string", "format": "uri", "maxLength": MAX_URL_BYTES}}})
            }
            Self::Nothing => json!({"properties": {"value": {"type": "null"}}}),
            Self::Text => {
                json!({"properties": {"value": {"type": ["string", "null"], "maxLength": MAX_TEXT_CHARS, "pattern": TEXT_PATTERN}}})
            }
            Self::Number => json!({"properties": {"value": {"type": ["number", "null"]}}}),
            Self::Boolean => json!({"properties": {"value": {"type": ["boolean", "null"]}}}),
            Self::Email => {
                json!({"properties": {"value": {"type": ["string", "null"], "format": "email"}}})
            }
            Self::Website => {
                json!({"properties": {"value": {"type": ["string", "null"], "format": "uri", "maxLength": MAX_URL_BYTES}}})
            }
            Self::Date => {
                json!({"properties": {"value": {"type": ["string", "null"], "format": "date"}}})
            }
        }
    }
}

/// The names of the component schemas a request body refers to, directly or through others.
fn request_schemas(document: &Value) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    if let Some(paths) = document["paths"].as_object() {
        for operation in paths
            .values()
            .filter_map(Value::as_object)
            .flat_map(|o| o.values())
        {
            references(&operation["requestBody"], &mut pending);
        }
    }
    while let Some(name) = pending.pop() {
        if names.contains(&name) {
            continue;
        }
        references(&document["components"]["schemas"][&name], &mut pending);
        names.push(name);
    }
    names
}

fn references(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            if let Some(name) = object
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                found.push(name.to_owned());
            }
            object.values().for_each(|v| references(v, found));
        }
        Value::Array(items) => items.iter().for_each(|v| references(v, found)),
        _ => {}
    }
}

/// Every free text of a schema (a string without a format, pattern or set of values, or a
/// value of any type, whose strings are texts) refuses NUL, as the server does. `pattern`
/// constrains strings only, so it also says so of a value of any type.
fn text_without_nul(schema: &mut Value) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    let kind = object.get("type");
    let string = match kind {
        Some(Value::String(kind)) => kind == "string",
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k == "string"),
        _ => false,
    };
    let any = kind.is_none()
        && ![
            "$ref",
            "anyOf",
            "oneOf",
            "allOf",
            "not",
            "if",
            "enum",
            "const",
            "properties",
            "items",
        ]
        .iter()
        .any(|k| object.contains_key(*k));
    let constrained = ["format", "pattern", "enum", "const", "anyOf", "oneOf"]
        .iter()
        .any(|k| object.contains_key(*k));
    if (string || any) && !constrained {
        object.insert("pattern".into(), json!(TEXT_PATTERN));
    }
    for (keyword, value) in object.iter_mut() {
        match keyword.as_str() {
            "properties" | "patternProperties" => {
                if let Some(fields) = value.as_object_mut() {
                    fields.values_mut().for_each(text_without_nul);
                }
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                if let Some(schemas) = value.as_array_mut() {
                    schemas.iter_mut().for_each(text_without_nul);
                }
            }
            "items" | "additionalProperties" => text_without_nul(value),
            _ => {}
        }
    }
}

/// The form of one task as the guest page's forms send it (`crate::guest::read_form`). The
/// `el-<element id>` fields are the task's own (any other is refused): the operation's
/// description names them, a schema cannot (they depend on the task of the path).
fn guest_form() -> Value {
    json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": GuestIntent::NAMES, "description": "The button pressed."},
            "comment": {"type": "string", "maxLength": MAX_COMMENT_CHARS, "pattern": TEXT_PATTERN, "description": "The comment of an approval (approve or reject)."},
        },
        "required": ["action"],
        "additionalProperties": false,
    })
}

/// The comment form of a task as the guest page sends it (`crate::guest::read_comment`): one
/// `text`, as the API's comments take it (1 to 10,000 characters, not blank, no NUL), and
/// nothing else.
fn guest_comment_form() -> Value {
    json!({
        "type": "object",
        "properties": {
            "text": {
                "type": "string",
                "minLength": 1,
                "maxLength": procflow_domain::comment::MAX_COMMENT_CHARS,
                "pattern": TITLE_PATTERN,
                "description": "The comment: plain text, never rendered as HTML; `@<email>` of an active team member mentions them.",
            },
        },
        "required": ["text"],
        "additionalProperties": false,
    })
}
