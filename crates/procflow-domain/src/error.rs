//! The outcomes a use case can answer instead of its result, named in the spec's words.
//!
//! They are mapped to HTTP statuses in exactly one place, `procflow-http`'s error module.

use std::fmt;

/// Everything a business operation can refuse with, plus one opaque store failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DomainError {
    /// The resource does not exist, or belongs to another team (the two are indistinguishable).
    #[error("{0} not found")]
    NotFound(Resource),
    /// The request names a field or value the rules refuse.
    #[error(transparent)]
    Validation(#[from] ValidationError),
    /// A run can only be started from a published template.
    #[error("the process template is not published")]
    TemplateNotPublished,
    /// The tasks of a completed run cannot be updated (spec 3.1 rule 1).
    #[error("the process run is completed; its tasks cannot be updated")]
    RunCompleted,
    /// A published template cannot be edited; unpublish it first.
    #[error("the process template is published; unpublish it before editing it")]
    TemplatePublished,
    /// A team member cannot be a guest (spec 4.7 rule 4).
    #[error(
        "the guest email belongs to a team member; use actor_email when creating a run to bring a team member in"
    )]
    GuestIsTeamMember,
    /// A run has at most one guest (spec 4.7 rule 3).
    #[error("the process run already has a different guest")]
    GuestAlreadyInvited,
    /// A record with the same unique key exists already (for example a member's email).
    #[error("{0}")]
    Conflict(String),
    /// The store failed; the cause is for the log, never for the client.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The kinds of resource a [`DomainError::NotFound`] can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    /// A team.
    Team,
    /// A member of a team.
    Member,
    /// An API key.
    ApiKey,
    /// A process template.
    Template,
    /// A process run.
    Run,
    /// A task of a run or of a template.
    Task,
    /// The guest of a run.
    Guest,
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Team => "team",
            Self::Member => "team member",
            Self::ApiKey => "API key",
            Self::Template => "process template",
            Self::Run => "process run",
            Self::Task => "task",
            Self::Guest => "guest",
        })
    }
}

/// A refused value, with a message that names the field or element at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValidationError {
    /// A request field is missing, malformed or out of range.
    #[error("{field}: {message}")]
    Field {
        /// The field's path in the request, for example `custom_elements[2].value`.
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// A value of the wrong type or syntax for its element.
    #[error("element {element}: expected {expected}")]
    InvalidValue {
        /// The element, by label and id.
        element: String,
        /// What the element accepts.
        expected: &'static str,
    },
    /// A dropdown or multichoice value outside the element's options (spec 4.11 rule 3).
    #[error(
        "element {element}: {value:?} is not an allowed option; allowed options: {}",
        quoted(allowed)
    )]
    InvalidOption {
        /// The element, by label and id.
        element: String,
        /// The refused value.
        value: String,
        /// The element's options.
        allowed: Vec<String>,
    },
    /// A display-only element was written (spec 4.11 rule 4).
    #[error("element {element} is display-only and cannot be written")]
    DisplayOnly {
        /// The element, by label and id.
        element: String,
    },
    /// An essential task cannot be skipped.
    #[error("task {task} is essential and cannot be skipped")]
    EssentialTask {
        /// The task, by title and id.
        task: String,
    },
}

impl ValidationError {
    /// A refusal of one request field.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Field {
            field: field.into(),
            message: message.into(),
        }
    }
}

fn quoted(items: &[String]) -> String {
    items
        .iter()
        .map(|item| format!("{item:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The few outcomes a store failure reduces to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The database cannot be reached or the pool is exhausted; the caller may retry later.
    #[error("the store is unavailable: {0}")]
    Unavailable(String),
    /// Anything else; a bug or a broken invariant.
    #[error("the store failed: {0}")]
    Other(String),
}

/// Shorthand for results of domain operations.
pub type DomainResult<T> = Result<T, DomainError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_option_error_names_the_element_and_lists_the_allowed_options() {
        let error = ValidationError::InvalidOption {
            element: "\"Department\"".into(),
            value: "HR".into(),
            allowed: vec!["Eng".into(), "Sales".into()],
        };
        assert_eq!(
            error.to_string(),
            "element \"Department\": \"HR\" is not an allowed option; allowed options: \"Eng\", \"Sales\""
        );
    }

    #[test]
    fn not_found_names_the_resource() {
        assert_eq!(
            DomainError::NotFound(Resource::Template).to_string(),
            "process template not found"
        );
    }
}
