//! Schemas of types the views and bodies use but that live in `procflow-domain`, which knows
//! nothing of HTTP or OpenAPI: each mirrors the domain type's JSON form exactly, and the tests
//! below hold them to it.

#![allow(dead_code, reason = "schemas only: described, never built")]

use serde::Serialize;
use utoipa::ToSchema;

/// The 14 types of a custom element (spec 2.7); the last five are display only.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) enum ElementType {
    ShortText,
    LongText,
    Number,
    Email,
    Website,
    Date,
    Checkbox,
    Dropdown,
    Multichoice,
    Text,
    Image,
    Video,
    File,
    LineBreak,
}

/// A run's status: `active` until every task is completed or skipped, then `completed`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum RunStatus {
    Active,
    Completed,
}

/// `task`, or `approval` (done by an `approved` decision).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TaskType {
    Task,
    Approval,
}

/// The decision on an approval task: `approved` completes it, `rejected` leaves it open.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Decision {
    Approved,
    Rejected,
}

/// What a relative due date counts from.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RelativeTo {
    RunStart,
}

/// The due-date rule of a template task: a fixed moment, or a time after the run starts.
#[derive(Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum DueDateRule {
    /// Due at a fixed moment.
    Fixed {
        /// The moment, RFC 3339.
        #[schema(value_type = String, format = DateTime)]
        at: String,
    },
    /// Due a fixed time after the run starts.
    Relative {
        /// What the offset counts from.
        from: RelativeTo,
        /// An ISO 8601 duration of weeks, days, hours, minutes and seconds (`P3D`, `PT4H`,
        /// `P1DT12H`); years and months are refused. At most about ten years.
        #[schema(pattern = "^P([0-9]+W)?([0-9]+D)?(T([0-9]+H)?([0-9]+M)?([0-9]+S)?)?$")]
        offset: String,
    },
}

/// The authoring document of a template (API contract 5): sections holding tasks holding form
/// fields. Omitted fields take their defaults; unknown fields are refused.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TemplateDocument {
    /// The title; not blank.
    #[schema(min_length = 1, max_length = 500)]
    title: String,
    #[schema(max_length = 100_000)]
    description: Option<String>,
    /// An absolute http or https URL.
    #[schema(format = "uri", max_length = 2048)]
    cover_image: Option<String>,
    #[schema(max_length = 500)]
    icon: Option<String>,
    /// Free text, such as `emoji` or `image`.
    #[schema(max_length = 500)]
    icon_type: Option<String>,
    /// The sections, in order; a template holds at most 1000 tasks in all.
    #[serde(default)]
    sections: Vec<SectionDocument>,
}

/// A section of an authoring document.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SectionDocument {
    /// Kept when given, so that edits keep ids stable.
    #[schema(value_type = Option<String>, format = "uuid")]
    id: Option<String>,
    /// The title; not blank.
    #[schema(min_length = 1, max_length = 500)]
    title: String,
    #[schema(max_length = 100_000)]
    description: Option<String>,
    /// `#RRGGBB`.
    #[schema(pattern = "^#[0-9A-Fa-f]{6}$")]
    color: Option<String>,
    /// The tasks, in order.
    #[serde(default)]
    tasks: Vec<TaskDocument>,
}

/// A task of an authoring document.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TaskDocument {
    /// Kept when given, so that pre-fill ids stay stable across edits.
    #[schema(value_type = Option<String>, format = "uuid")]
    id: Option<String>,
    /// The title; not blank.
    #[schema(min_length = 1, max_length = 500)]
    title: String,
    /// `task` when omitted.
    #[serde(rename = "type", default)]
    task_type: Option<TaskType>,
    /// Essential tasks cannot be skipped; false when omitted.
    #[serde(default)]
    is_essential: bool,
    /// A member's user id, an email, or `runner` (whoever the run is attributed to).
    assignee: Option<String>,
    /// The due-date rule; none when omitted.
    due_date: Option<DueDateRule>,
    /// Whether completing the task sends a webhook; false when omitted.
    #[serde(default)]
    webhook_enabled: bool,
    /// The form fields, in order; at most 100.
    #[serde(default)]
    #[schema(max_items = 100)]
    custom_elements: Vec<ElementDocument>,
}

/// A form field of an authoring document. `options` is required on (and only allowed on)
/// dropdown and multichoice; `file_url` on file; display-only `text`, `image` and `video`
/// carry their content (HTML, a URL) in `value`.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ElementDocument {
    /// Kept when given.
    #[schema(value_type = Option<String>, format = "uuid")]
    id: Option<String>,
    #[serde(rename = "type")]
    element_type: ElementType,
    /// The label; not blank on input elements.
    #[serde(default)]
    #[schema(max_length = 500)]
    label: String,
    /// False when omitted.
    #[serde(default)]
    required: bool,
    /// A default value on input elements (the type's value, see spec 2.7); the content of
    /// `text`, `image` and `video`.
    value: Option<serde_json::Value>,
    /// The choices of dropdown and multichoice elements: distinct, not blank.
    #[schema(min_items = 1)]
    options: Option<Vec<String>>,
    /// The attachment of a file element: an absolute http or https URL.
    #[schema(format = "uri", max_length = 2048)]
    file_url: Option<String>,
}

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

/// Every error: `{"error": {"code", "message"}}`.
#[derive(Serialize, ToSchema)]
pub(crate) struct Error {
    error: ErrorBody,
}

/// What went wrong.
#[derive(Serialize, ToSchema)]
pub(crate) struct ErrorBody {
    /// Machine-readable, stable: `validation_error`, `not_found`, `unauthorized`, ...
    code: String,
    /// For people; 5xx messages are generic.
    message: String,
    /// The request's `X-Request-Id`, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    request_id: Option<String>,
}

#[cfg(test)]
mod tests {
    use procflow_domain::element::ElementType as DomainElementType;
    use procflow_domain::run::{Decision as DomainDecision, RunStatus as DomainRunStatus};
    use procflow_domain::template::TaskType as DomainTaskType;
    use serde_json::{Value, json};
    use utoipa::PartialSchema;

    fn enum_of<T: PartialSchema>() -> Vec<Value> {
        let schema = serde_json::to_value(T::schema()).unwrap_or_default();
        schema["enum"].as_array().cloned().unwrap_or_default()
    }

    fn names<T: serde::Serialize>(values: &[T]) -> Vec<Value> {
        values
            .iter()
            .map(|v| serde_json::to_value(v).unwrap_or_default())
            .collect()
    }

    #[test]
    fn the_mirrored_enums_list_exactly_the_domain_values() {
        assert_eq!(
            enum_of::<super::ElementType>(),
            names(&DomainElementType::ALL)
        );
        assert_eq!(
            enum_of::<super::RunStatus>(),
            names(&[DomainRunStatus::Active, DomainRunStatus::Completed])
        );
        assert_eq!(
            enum_of::<super::TaskType>(),
            names(&[DomainTaskType::Task, DomainTaskType::Approval])
        );
        assert_eq!(
            enum_of::<super::Decision>(),
            names(&[DomainDecision::Approved, DomainDecision::Rejected])
        );
    }

    #[test]
    fn the_due_date_rule_schema_reads_what_the_domain_writes() {
        let schema = serde_json::to_string(&super::DueDateRule::schema()).unwrap_or_default();
        for field in [
            "\"fixed\"",
            "\"relative\"",
            "\"at\"",
            "\"from\"",
            "\"offset\"",
        ] {
            assert!(schema.contains(field), "{field} missing in {schema}");
        }
        let fixed: procflow_domain::template::DueDateRule =
            serde_json::from_value(json!({"type": "fixed", "at": "2026-01-01T00:00:00Z"}))
                .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            fixed,
            procflow_domain::template::DueDateRule::Fixed { .. }
        ));
    }
}
