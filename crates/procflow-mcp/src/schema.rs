//! A tool's input schema and call plan from an operation of the OpenAPI document: its path
//! parameters (required strings), its query parameters and the properties of its JSON body
//! become the properties of one object; the component schemas they refer to go along under
//! `$defs`, so the schema stands alone.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use crate::tools::ToolSpec;

/// Where each argument of a tool goes in the request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// `get`, `post`, ...
    pub method: String,
    /// The path with `{name}` parameters.
    pub path: String,
    /// Path parameters: (name in the path, argument name).
    pub path_params: Vec<(String, String)>,
    /// Query parameters, by name.
    pub query_params: Vec<String>,
    /// Whether the operation takes a JSON body (the other arguments).
    pub body: bool,
    /// Whether `if_match` is an argument (the operation takes `If-Match`).
    pub if_match: bool,
}

/// Why a tool cannot be built from the document.
#[derive(Debug, thiserror::Error)]
#[error("the API's document has no usable operation {0}")]
pub struct MissingOperation(pub String);

const COMPONENTS: &str = "#/components/schemas/";

/// The input schema and the plan of `tool`.
///
/// # Errors
/// The operation is not in `document`.
pub fn build(
    document: &Value,
    tool: &ToolSpec,
) -> Result<(Map<String, Value>, Plan), MissingOperation> {
    let missing = || MissingOperation(tool.operation_id.to_owned());
    let (path, method, operation) = find(document, tool.operation_id).ok_or_else(missing)?;
    let mut plan = Plan {
        method: method.clone(),
        path: path.clone(),
        path_params: Vec::new(),
        query_params: Vec::new(),
        body: false,
        if_match: false,
    };
    let mut properties = Map::new();
    let mut required: Vec<Value> = Vec::new();
    for parameter in operation["parameters"].as_array().into_iter().flatten() {
        let parameter = resolve(document, parameter);
        let name = parameter["name"].as_str().unwrap_or_default().to_owned();
        let mut schema = parameter["schema"].clone();
        if let Some(description) = parameter["description"].as_str() {
            schema["description"] = json!(description);
        }
        match parameter["in"].as_str() {
            Some("path") => {
                let argument = tool
                    .renames
                    .iter()
                    .find(|(from, _)| *from == name)
                    .map_or(name.clone(), |(_, to)| (*to).to_owned());
                properties.insert(argument.clone(), schema);
                required.push(json!(argument));
                plan.path_params.push((name, argument));
            }
            Some("query") => {
                properties.insert(name.clone(), schema);
                plan.query_params.push(name);
            }
            Some("header") if name.eq_ignore_ascii_case("If-Match") => {
                properties.insert(
                    "if_match".into(),
                    json!({"type": "string", "description": "The task's ETag as read before: \
                        the update applies only if the task has not changed since."}),
                );
                plan.if_match = true;
            }
            _ => {}
        }
    }
    let body = &operation["requestBody"]["content"]["application/json"]["schema"];
    if !body.is_null() {
        plan.body = true;
        let body = resolve(document, body);
        for (name, schema) in body["properties"].as_object().into_iter().flatten() {
            properties.insert(name.clone(), schema.clone());
        }
        required.extend(body["required"].as_array().into_iter().flatten().cloned());
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    let mut properties = Value::Object(properties);
    let defs = definitions(document, &properties);
    rewrite(&mut properties);
    schema.insert("properties".into(), properties);
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    if !defs.is_empty() {
        schema.insert("$defs".into(), Value::Object(defs));
    }
    Ok((schema, plan))
}

/// The path, method and operation object of `operation_id`.
fn find(document: &Value, operation_id: &str) -> Option<(String, String, Value)> {
    document["paths"]
        .as_object()?
        .iter()
        .find_map(|(path, item)| {
            item.as_object()?.iter().find_map(|(method, operation)| {
                (operation["operationId"] == operation_id)
                    .then(|| (path.clone(), method.clone(), operation.clone()))
            })
        })
}

/// A `$ref` (to a parameter or a schema of the document) followed once.
fn resolve(document: &Value, value: &Value) -> Value {
    match value["$ref"].as_str().and_then(|r| r.strip_prefix("#/")) {
        Some(pointer) => document
            .pointer(&format!("/{pointer}"))
            .cloned()
            .unwrap_or(Value::Null),
        None => value.clone(),
    }
}

/// Every component schema `value` refers to, transitively, refs rewritten to `$defs`.
fn definitions(document: &Value, value: &Value) -> Map<String, Value> {
    let mut seen = BTreeSet::new();
    let mut pending = Vec::new();
    references(value, &mut pending);
    let mut defs = Map::new();
    while let Some(name) = pending.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let schema = document["components"]["schemas"][&name].clone();
        references(&schema, &mut pending);
        let mut schema = schema;
        rewrite(&mut schema);
        defs.insert(name, schema);
    }
    defs
}

fn references(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                match (key.as_str(), inner.as_str()) {
                    ("$ref", Some(reference)) => {
                        if let Some(name) = reference.strip_prefix(COMPONENTS) {
                            found.push(name.to_owned());
                        }
                    }
                    _ => references(inner, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| references(item, found)),
        _ => {}
    }
}

fn rewrite(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                if key == "$ref"
                    && let Some(name) = inner.as_str().and_then(|r| r.strip_prefix(COMPONENTS))
                {
                    *inner = json!(format!("#/$defs/{name}"));
                } else {
                    rewrite(inner);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(rewrite),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::TOOLS;

    fn document() -> Value {
        json!({
            "paths": {"/api/v1/process-runs/{id}/tasks/{task_id}": {"patch": {
                "operationId": "updateRunTask",
                "parameters": [
                    {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
                    {"name": "task_id", "in": "path", "required": true, "schema": {"type": "string"}},
                    {"$ref": "#/components/parameters/If-Match"},
                    {"name": "validate_only", "in": "query", "schema": {"type": "boolean"}}],
                "requestBody": {"content": {"application/json": {"schema":
                    {"$ref": "#/components/schemas/UpdateTaskBody"}}}}}}},
            "components": {
                "parameters": {"If-Match": {"name": "If-Match", "in": "header"}},
                "schemas": {
                    "UpdateTaskBody": {"type": "object", "properties": {
                        "completed": {"type": "boolean"},
                        "custom_elements": {"type": "array",
                            "items": {"$ref": "#/components/schemas/ElementWrite"}}}},
                    "ElementWrite": {"type": "object", "properties": {"id": {"type": "string"}}},
                    "Unused": {"type": "string"}}}
        })
    }

    #[test]
    fn an_operation_becomes_one_standalone_object_schema_and_a_plan() {
        let tool = TOOLS.iter().find(|t| t.name == "update_task").unwrap();
        let (schema, plan) = build(&document(), tool).unwrap();
        let schema = Value::Object(schema);
        assert_eq!(schema["required"], json!(["run_id", "task_id"]));
        assert_eq!(
            schema["properties"]["completed"],
            json!({"type": "boolean"})
        );
        assert_eq!(
            schema["properties"]["custom_elements"]["items"]["$ref"],
            "#/$defs/ElementWrite"
        );
        assert!(schema["$defs"]["ElementWrite"].is_object());
        assert!(schema["$defs"]["Unused"].is_null());
        assert!(schema["properties"]["if_match"].is_object());
        assert_eq!(
            plan.path_params,
            [
                ("id".into(), "run_id".into()),
                ("task_id".into(), "task_id".into())
            ]
        );
        assert_eq!(plan.query_params, ["validate_only"]);
        assert!(plan.body && plan.if_match);
    }

    #[test]
    fn an_operation_the_document_lacks_is_an_error() {
        let tool = TOOLS.iter().find(|t| t.name == "my_tasks").unwrap();
        assert!(build(&document(), tool).is_err());
    }
}
