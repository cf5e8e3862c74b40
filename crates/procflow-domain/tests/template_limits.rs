//! The caps of `template::limits` leave room for the templates people write: the demo's, and
//! the bench's (50 tasks of 3 fields), each far inside every cap.

#![expect(
    clippy::expect_used,
    reason = "test helpers: a document that does not build fails the test"
)]

use procflow_domain::ids::TeamId;
use procflow_domain::template::TemplateDocument;
use procflow_domain::template::limits::{MAX_STORED_BYTES, stored_bytes};
use procflow_memory::SequentialIds;
use serde_json::{Value, json};
use time::macros::datetime;
use uuid::Uuid;

fn built_size(document: Value) -> usize {
    let template = TemplateDocument::from_json(document)
        .and_then(|d| {
            d.build(
                TeamId::from_uuid(Uuid::from_u128(1)),
                None,
                &SequentialIds::default(),
                datetime!(2026-03-01 9:00 UTC),
            )
        })
        .expect("the document builds");
    stored_bytes(&template)
}

/// `bench/gen-template.sh 50`: 50 tasks of 3 fields in 5 sections.
fn bench_document() -> Value {
    let sections: Vec<Value> = (0..5)
        .map(|s| {
            let tasks: Vec<Value> = (0..10)
                .map(|t| {
                    let n = s * 10 + t;
                    json!({"title": format!("Task {}", n + 1), "webhook_enabled": true,
                        "custom_elements": [
                            {"type": "shortText", "label": format!("Name {n}"), "required": true},
                            {"type": "number", "label": format!("Amount {n}")},
                            {"type": "email", "label": format!("Contact {n}")}]})
                })
                .collect();
            json!({"title": format!("Section {}", s + 1), "color": "#3B82F6", "tasks": tasks})
        })
        .collect();
    json!({"title": "Bench 50 tasks", "description": "procflow bench: 50 tasks x 3 fields",
        "sections": sections})
}

#[test]
fn the_demo_and_the_bench_templates_are_far_inside_the_caps() {
    let demo: Value =
        serde_json::from_str(include_str!("../../../docs/examples/demo-template.json")).unwrap();
    let demo = built_size(demo);
    let bench = built_size(bench_document());
    assert!(demo < MAX_STORED_BYTES / 100, "demo: {demo} bytes");
    assert!(bench < MAX_STORED_BYTES / 10, "bench: {bench} bytes");
}

#[test]
fn the_built_size_counts_ids_and_defaults_a_document_leaves_out() {
    let sparse = json!({"title": "t", "sections": [{"title": "s", "tasks": [
        {"title": "a", "custom_elements": [{"type": "lineBreak"}]}]}]});
    let written = serde_json::to_vec(&sparse).unwrap().len();
    // Three ids of 36 characters and every default: several times what was written.
    assert!(built_size(sparse) > 3 * written, "{written}");
}
