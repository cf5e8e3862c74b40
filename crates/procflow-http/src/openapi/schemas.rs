//! Schemas of answers that have no type of their own: the health checks (the error envelope
//! is `procflow-wire`'s). The domain's types describe themselves (its `openapi` feature).

#![allow(dead_code, reason = "schemas only: described, never built")]

use serde::Serialize;
use utoipa::ToSchema;

/// `/healthz`: the process answers.
#[derive(Serialize, ToSchema)]
pub(crate) struct Liveness {
    #[schema(pattern = "^ok$")]
    status: String,
}

/// `/readyz`: the database answers.
#[derive(Serialize, ToSchema)]
pub(crate) struct Readiness {
    #[schema(pattern = "^ready$")]
    status: String,
}

#[cfg(test)]
mod tests {
    use procflow_domain::element::ElementType;
    use procflow_domain::run::{Decision, RunStatus};
    use procflow_domain::template::TaskType;
    use serde_json::Value;

    /// The enum of a schema of the served document.
    fn enum_of(name: &str) -> Vec<Value> {
        let document = crate::openapi::document();
        document["components"]["schemas"][name]["enum"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    fn names(names: &[&str]) -> Vec<Value> {
        names.iter().map(|name| Value::from(*name)).collect()
    }

    #[test]
    fn the_documented_enums_list_exactly_the_domain_values() {
        assert_eq!(enum_of("ElementType"), names(ElementType::NAMES));
        assert_eq!(enum_of("RunStatus"), names(RunStatus::NAMES));
        assert_eq!(enum_of("TaskType"), names(TaskType::NAMES));
        assert_eq!(enum_of("Decision"), names(Decision::NAMES));
        assert_eq!(
            enum_of("WebhookEvent"),
            names(procflow_domain::webhook::WebhookEvent::NAMES)
        );
        assert_eq!(
            enum_of("DeliveryStatus"),
            names(procflow_domain::webhook::DeliveryStatus::NAMES)
        );
        assert_eq!(
            enum_of("DisabledReason"),
            names(procflow_domain::webhook::DisabledReason::NAMES)
        );
    }

    #[test]
    fn the_due_date_rule_schema_reads_what_the_domain_writes() {
        let document = crate::openapi::document();
        let schema = document["components"]["schemas"]["DueDateRule"].to_string();
        for field in [
            "\"fixed\"",
            "\"relative\"",
            "\"at\"",
            "\"from\"",
            "\"offset\"",
        ] {
            assert!(schema.contains(field), "{field} missing in {schema}");
        }
        let fixed: procflow_domain::template::DueDateRule = serde_json::from_value(
            serde_json::json!({"type": "fixed", "at": "2026-01-01T00:00:00Z"}),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            fixed,
            procflow_domain::template::DueDateRule::Fixed { .. }
        ));
    }
}
