//! The error envelope every refusal answers: `{"error": {"code", "message", "request_id"?}}`.

use serde::{Deserialize, Serialize};

// Named `ErrorResponse`, not `Error`: openapi-python-client names a model's local variable
// after the model, and for a model `Error` with a field `error` that code does not pass
// `mypy --strict` (docs/clients.md). (Not a doc comment: that is the schema's description.)
/// Every error: `{"error": {"code", "message"}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ErrorResponse {
    // What went wrong (no doc comment: the `$ref` stands alone in the document).
    pub error: ErrorBody,
}

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// Machine-readable, stable: `validation_error`, `not_found`, `unauthorized`, ...
    pub code: String,
    /// For people; 5xx messages are generic.
    pub message: String,
    /// The request's `X-Request-Id`, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}
