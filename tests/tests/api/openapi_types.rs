//! No type lost (issue 28): every schema of the committed document that describes a value
//! says which JSON type it is, so that a generated client (Python, TypeScript, Rust) gets a
//! type for it rather than `Any` / `unknown`. A schema is typed when it has a `type`, or a
//! `$ref`, `const` or `enum` (which imply one), or is an `anyOf`/`oneOf` whose every branch is
//! typed, or an `allOf` with a typed member.
//!
//! Walked: components, parameters, headers and media types, and, inside a schema, its
//! `properties`, `items`, `prefixItems`, `additionalProperties`, `patternProperties` and the
//! branches of `anyOf`/`oneOf`. Not walked as values: `not`, `if`/`then`/`else`, `contains` and
//! the members of an `allOf` beside a type: they constrain a value that is typed already.

use procflow_tests::committed_document;
use serde_json::{Value, json};

/// The deliberately free fields: a form element's `value`. Its JSON kind (string, number,
/// boolean, list of strings, null) depends on the sibling `type` of the element, which a
/// per-property union cannot tie to it: a union would still let a client send a number to a
/// text field, so the server's check against the element (`CustomElement::validate_write`) is
/// the authority, and clients keep the value as any JSON. `ElementDocument` states the kind
/// per element type in its `allOf` of `if`/`then` rules. A rule's condition compares with
/// such a value (its kind is the element's, checked against it when the template is written).
const FREE: &[&str] = &[
    "#/components/schemas/Condition/properties/value",
    "#/components/schemas/Element/properties/value",
    "#/components/schemas/ElementDocument/properties/value",
    "#/components/schemas/ElementWrite/properties/value",
    "#/components/schemas/Prefill/properties/value",
];

/// JSON Pointer escaping of one reference token.
fn token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// Whether `schema` says its type itself or through a composition.
fn typed(schema: &Value) -> bool {
    let Some(object) = schema.as_object() else {
        // `true` / `false`: any value, or none.
        return schema == &Value::Bool(false);
    };
    if ["type", "$ref", "const", "enum"]
        .iter()
        .any(|key| object.contains_key(*key))
    {
        return true;
    }
    let every = |key: &str| {
        object
            .get(key)
            .and_then(Value::as_array)
            .is_some_and(|branches| !branches.is_empty() && branches.iter().all(typed))
    };
    let some = |key: &str| {
        object
            .get(key)
            .and_then(Value::as_array)
            .is_some_and(|members| members.iter().any(typed))
    };
    every("anyOf") || every("oneOf") || some("allOf")
}

/// Every untyped value schema at or under `schema` (at `pointer`), but the free ones.
fn untyped(schema: &Value, pointer: &str, found: &mut Vec<String>) {
    if !FREE.contains(&pointer) && !typed(schema) {
        found.push(format!("{pointer}: {schema}"));
    }
    let Some(object) = schema.as_object() else {
        return;
    };
    for key in ["properties", "patternProperties"] {
        if let Some(properties) = object.get(key).and_then(Value::as_object) {
            for (name, property) in properties {
                untyped(property, &format!("{pointer}/{key}/{}", token(name)), found);
            }
        }
    }
    for key in ["items", "additionalProperties"] {
        // `additionalProperties: false` closes an object: no value to type.
        if let Some(inner) = object.get(key).filter(|inner| inner.is_object()) {
            untyped(inner, &format!("{pointer}/{key}"), found);
        }
    }
    for key in ["prefixItems", "anyOf", "oneOf"] {
        for (i, branch) in object
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            untyped(branch, &format!("{pointer}/{key}/{i}"), found);
        }
    }
}

/// Every untyped value schema of an OpenAPI document.
fn untyped_in(document: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let schemas = document["components"]["schemas"].as_object();
    for (name, schema) in schemas.into_iter().flatten() {
        untyped(
            schema,
            &format!("#/components/schemas/{}", token(name)),
            &mut found,
        );
    }
    let paths = document["paths"].as_object();
    for (path, item) in paths.into_iter().flatten() {
        for (method, operation) in item.as_object().into_iter().flatten() {
            let at = format!("#/paths/{}/{method}", token(path));
            let parameters = operation["parameters"].as_array();
            for (i, parameter) in parameters.into_iter().flatten().enumerate() {
                if let Some(schema) = parameter.get("schema") {
                    untyped(schema, &format!("{at}/parameters/{i}/schema"), &mut found);
                }
            }
            let body = operation["requestBody"]["content"].as_object();
            for (media, content) in body.into_iter().flatten() {
                if let Some(schema) = content.get("schema") {
                    let pointer = format!("{at}/requestBody/content/{}/schema", token(media));
                    untyped(schema, &pointer, &mut found);
                }
            }
            let responses = operation["responses"].as_object();
            for (status, response) in responses.into_iter().flatten() {
                let at = format!("{at}/responses/{status}");
                for (media, content) in response["content"].as_object().into_iter().flatten() {
                    if let Some(schema) = content.get("schema") {
                        let pointer = format!("{at}/content/{}/schema", token(media));
                        untyped(schema, &pointer, &mut found);
                    }
                }
                for (name, header) in response["headers"].as_object().into_iter().flatten() {
                    if let Some(schema) = header.get("schema") {
                        let pointer = format!("{at}/headers/{}/schema", token(name));
                        untyped(schema, &pointer, &mut found);
                    }
                }
            }
        }
    }
    found
}

#[test]
fn every_value_schema_of_the_document_has_a_type_but_the_named_free_fields() {
    let document = committed_document();
    assert_eq!(untyped_in(&document), Vec::<String>::new());
    // The free fields are still in the document, so the list above names no field that has
    // gone: a stale name would hide a new free field of the same path.
    for free in FREE {
        let pointer = free.trim_start_matches('#');
        assert!(document.pointer(pointer).is_some(), "{free} is gone");
    }
}

#[test]
fn the_walk_finds_a_branch_without_a_type() {
    // The four properties as the document had them before issue 28: a type list beside
    // format-only branches, which every generator turned into `Any` / `unknown`.
    let document = json!({"components": {"schemas": {"CreateRun": {
        "type": "object",
        "properties": {"due_date": {
            "type": ["string", "null"],
            "anyOf": [{"format": "date-time"}, {"format": "date"}, {"type": "null"}],
        }, "tasks": {"type": "array", "items": {"description": "anything"}}},
    }}}, "paths": {"/x": {"get": {"parameters": [{"name": "q", "schema": {}}],
        "responses": {"200": {"content": {"application/json": {"schema": {
            "oneOf": [{"$ref": "#/components/schemas/CreateRun"}, {"minimum": 1}]
        }}}}}}}}});
    assert_eq!(
        untyped_in(&document),
        vec![
            "#/components/schemas/CreateRun/properties/due_date/anyOf/0: {\"format\":\"date-time\"}",
            "#/components/schemas/CreateRun/properties/due_date/anyOf/1: {\"format\":\"date\"}",
            "#/components/schemas/CreateRun/properties/tasks/items: {\"description\":\"anything\"}",
            "#/paths/~1x/get/parameters/0/schema: {}",
            "#/paths/~1x/get/responses/200/content/application~1json/schema: {\"oneOf\":[{\"$ref\":\"#/components/schemas/CreateRun\"},{\"minimum\":1}]}",
            "#/paths/~1x/get/responses/200/content/application~1json/schema/oneOf/1: {\"minimum\":1}",
        ]
    );
}
