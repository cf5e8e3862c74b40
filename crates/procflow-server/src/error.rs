//! How a command's failure is reported: `{"error":{"code","message"}}` on stdout and a non-zero
//! exit status, with the codes of the HTTP API where they apply.

use procflow_domain::error::{DomainError, StoreError};
use serde_json::{Value, json};

/// A command's refusal or failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct CommandError {
    /// Machine-readable: `not_found`, `validation_error`, `conflict`, `forbidden`,
    /// `unavailable`, `configuration_error`, `io_error` or `internal_error`.
    pub code: &'static str,
    /// For people: names the field, record or file at fault.
    pub message: String,
}

impl CommandError {
    /// A failure with this code and message.
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// A refused argument or document.
    pub fn validation(message: impl Into<String>) -> Self {
        Self::new("validation_error", message)
    }

    /// The error envelope printed on stdout.
    #[must_use]
    pub fn to_json(&self) -> Value {
        json!({"error": {"code": self.code, "message": self.message}})
    }
}

impl From<DomainError> for CommandError {
    fn from(error: DomainError) -> Self {
        let code = match &error {
            DomainError::NotFound(_) => "not_found",
            DomainError::Validation(_) => "validation_error",
            DomainError::TemplateNotPublished => "template_not_published",
            DomainError::RunCompleted => "run_completed",
            DomainError::TemplatePublished => "template_published",
            DomainError::GuestIsTeamMember => "guest_is_team_member",
            DomainError::GuestAlreadyInvited => "guest_already_invited",
            DomainError::Conflict(_) => "conflict",
            DomainError::Store(StoreError::Unavailable(_)) => "unavailable",
            DomainError::Store(StoreError::Other(_)) => "internal_error",
        };
        // An operator runs these commands: store causes help them and hold no secrets.
        Self::new(code, error.to_string())
    }
}

impl From<StoreError> for CommandError {
    fn from(error: StoreError) -> Self {
        DomainError::from(error).into()
    }
}

#[cfg(test)]
mod tests {
    use procflow_domain::error::{Resource, ValidationError};

    use super::*;

    #[test]
    fn domain_errors_keep_the_api_codes() {
        let cases = [
            (
                DomainError::NotFound(Resource::Team),
                "not_found",
                "team not found",
            ),
            (
                ValidationError::field("sections[0].title", "must not be empty").into(),
                "validation_error",
                "sections[0].title: must not be empty",
            ),
            (
                DomainError::Conflict("the team has a member with this email".into()),
                "conflict",
                "the team has a member with this email",
            ),
            (
                StoreError::Unavailable("connection refused".into()).into(),
                "unavailable",
                "the store is unavailable: connection refused",
            ),
        ];
        for (error, code, message) in cases {
            let error = CommandError::from(error);
            assert_eq!(
                error.to_json(),
                json!({"error": {"code": code, "message": message}})
            );
        }
    }
}
