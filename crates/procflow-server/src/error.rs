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
    use actix_web::ResponseError;
    use actix_web::body::MessageBody;
    use procflow_domain::error::{Resource, ValidationError};
    use procflow_http::error::ApiError;

    use super::*;

    /// One of every `DomainError` variant.
    fn domain_errors() -> Vec<DomainError> {
        vec![
            DomainError::NotFound(Resource::Run),
            ValidationError::field("name", "must not be empty").into(),
            DomainError::TemplateNotPublished,
            DomainError::RunCompleted,
            DomainError::TaskHidden {
                task: "\"Ship a laptop\" (id)".into(),
                item: Some(1),
            },
            DomainError::TaskBlocked {
                task: "\"Grant access\" (id)".into(),
                waiting_for: vec!["Security training".into()],
                item: None,
            },
            DomainError::TemplatePublished,
            DomainError::TemplateHasNoTask,
            DomainError::GuestIsTeamMember,
            DomainError::GuestAlreadyInvited,
            DomainError::Conflict("taken".into()),
            StoreError::Unavailable("down".into()).into(),
            StoreError::Other("bug".into()).into(),
        ]
    }

    /// The code and status of every error example the OpenAPI document gives.
    fn documented(document: &Value) -> Vec<(String, u16)> {
        let mut found = Vec::new();
        for item in document["paths"].as_object().into_iter().flatten() {
            for operation in item.1.as_object().into_iter().flatten() {
                for (status, response) in operation.1["responses"].as_object().into_iter().flatten()
                {
                    let examples = &response["content"]["application/json"]["examples"];
                    for code in examples.as_object().into_iter().flatten().map(|e| e.0) {
                        found.push((code.clone(), status.parse().unwrap_or_default()));
                    }
                }
            }
        }
        found
    }

    #[test]
    fn every_error_code_agrees_across_http_the_cli_and_openapi() {
        let document = procflow_http::openapi::document();
        let description = document["info"]["description"].as_str().unwrap_or_default();
        let documented = documented(&document);
        for &code in ErrorCode::ALL {
            let api = ApiError::new(code, "message");
            assert_eq!(api.status().as_u16(), code.http_status(), "{code}");
            let body = api.error_response().into_body().try_into_bytes().unwrap();
            let body: Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(body["error"]["code"], code.as_str());
            let cli = CommandError::api(code, "message").to_json();
            assert_eq!(cli["error"]["code"], code.as_str());
            let row = format!("| `{code}` | {} |", code.http_status());
            assert!(
                description.contains(&row),
                "{row} missing from the document"
            );
            for (documented_code, status) in &documented {
                if documented_code == code.as_str() {
                    assert_eq!(*status, code.http_status(), "{code} documented at {status}");
                }
            }
        }
        assert!(
            documented
                .iter()
                .all(|(code, _)| ErrorCode::ALL.iter().any(|c| c.as_str() == code)),
            "the document gives a code outside the table"
        );
        for error in domain_errors() {
            let code = error.code();
            assert_eq!(ApiError::from(error.clone()).code(), code, "{error}");
            assert_eq!(CommandError::from(error).code, CommandCode::Api(code));
        }
    }

    #[test]
    fn the_error_table_of_the_api_reference_lists_every_code_with_its_status() {
        let reference = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/api.md");
        let text = std::fs::read_to_string(reference).unwrap();
        for code in ErrorCode::ALL {
            let cell = format!("| {} | `{code}`", code.http_status());
            assert!(
                text.contains(&cell),
                "docs/api.md lacks a row ending {cell}"
            );
        }
    }

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
