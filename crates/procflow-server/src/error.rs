//! How a command's failure is reported: `{"error":{"code","message"}}` on stdout and a non-zero
//! exit status, with the codes of the API's one error table ([`ErrorCode`]) where they apply.

use std::fmt;

use procflow_domain::error::{DomainError, ErrorCode, StoreError};
use serde_json::{Value, json};

/// The code of a command's failure: one of the API's, or one only the command line has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandCode {
    /// A code of the API's error table (`not_found`, `validation_error`, `forbidden`, ...).
    Api(ErrorCode),
    /// The configuration cannot be used (no `DATABASE_URL`, ...).
    Configuration,
    /// A file could not be read.
    Io,
}

impl CommandCode {
    /// The code as printed.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Api(code) => code.as_str(),
            Self::Configuration => "configuration_error",
            Self::Io => "io_error",
        }
    }
}

impl fmt::Display for CommandCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A command's refusal or failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct CommandError {
    /// Machine-readable.
    pub code: CommandCode,
    /// For people: names the field, record or file at fault.
    pub message: String,
}

impl CommandError {
    /// A failure with this code and message.
    pub fn new(code: CommandCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// A failure with a code of the API's table.
    pub fn api(code: ErrorCode, message: impl Into<String>) -> Self {
        Self::new(CommandCode::Api(code), message)
    }

    /// A refused argument or document.
    pub fn validation(message: impl Into<String>) -> Self {
        Self::api(ErrorCode::ValidationError, message)
    }

    /// The error envelope printed on stdout.
    #[must_use]
    pub fn to_json(&self) -> Value {
        json!({"error": {"code": self.code.as_str(), "message": self.message}})
    }
}

impl From<DomainError> for CommandError {
    fn from(error: DomainError) -> Self {
        // An operator runs these commands: store causes help them and hold no secrets.
        Self::api(error.code(), error.to_string())
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
