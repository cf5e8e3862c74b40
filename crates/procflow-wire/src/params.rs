//! Query parameters of list operations that the client sends and the server reads, as Rust
//! types: the document's parameters come from their `IntoParams` derive, and a tool's input
//! schema (`procflow-mcp`) from their `ToSchema` derive, so neither is written twice. Every
//! field is text, as a query string is: the server parses each into the domain's value and
//! names the parameter at fault.

use serde::{Deserialize, Serialize};

/// The inbox's parameters (API contract 15.1, `GET /api/v1/tasks`).
#[derive(
    Clone,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    utoipa::IntoParams,
    utoipa::ToSchema,
)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct InboxQuery {
    /// Items per page.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100, default = 20)]
    #[schema(value_type = Option<i64>, minimum = 1, maximum = 100, default = 20)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(format = "uuid")]
    #[schema(format = "uuid")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Only tasks assigned to this member (user id or email) or external email.
    #[param(schema_with = crate::schemas::assignee_filter)]
    #[schema(schema_with = crate::schemas::assignee_filter)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignee: Option<String>,
    /// Only tasks in this state (default `open`).
    #[param(value_type = Option<procflow_domain::run::TaskStatus>)]
    #[schema(value_type = Option<procflow_domain::run::TaskStatus>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Only tasks due strictly before this instant (RFC 3339); tasks without a due date are
    /// left out.
    #[param(format = DateTime)]
    #[schema(format = DateTime)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due_before: Option<String>,
    /// Only tasks due strictly after this instant (RFC 3339); tasks without a due date are
    /// left out.
    #[param(format = DateTime)]
    #[schema(format = DateTime)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due_after: Option<String>,
    /// `true`: only open tasks past due now; `false`: only tasks not past due (or without a
    /// due date).
    #[param(value_type = Option<bool>)]
    #[schema(value_type = Option<bool>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overdue: Option<String>,
    /// Only tasks of runs of this template.
    #[param(format = "uuid")]
    #[schema(format = "uuid")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template_id: Option<String>,
    /// Only tasks of runs in this status (default `active`).
    #[param(value_type = Option<procflow_domain::run::RunStatus>)]
    #[schema(value_type = Option<procflow_domain::run::RunStatus>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_status: Option<String>,
}

impl InboxQuery {
    /// The parameters that are set, as `(name, value)` pairs of a query string.
    #[must_use]
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        [
            ("limit", &self.limit),
            ("cursor", &self.cursor),
            ("assignee", &self.assignee),
            ("status", &self.status),
            ("due_before", &self.due_before),
            ("due_after", &self.due_after),
            ("overdue", &self.overdue),
            ("template_id", &self.template_id),
            ("run_status", &self.run_status),
        ]
        .into_iter()
        .filter_map(|(name, value)| value.clone().map(|v| (name, v)))
        .collect()
    }
}
