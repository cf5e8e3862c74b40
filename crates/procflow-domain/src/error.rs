//! The outcomes a use case can answer instead of its result, named in the spec's words, and
//! the one table of the error codes clients and operators see ([`ErrorCode`]).

use std::fmt;

/// Everything a business operation can refuse with, plus one opaque store failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
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
    /// A template without tasks cannot be published; give it a task first.
    #[error("the process template has no task: give it one before publishing it")]
    TemplateHasNoTask,
    /// A team member cannot be a guest (spec 4.7 rule 4).
    #[error(
        "the guest email belongs to a team member; use actor_email when creating a run to bring a team member in"
    )]
    GuestIsTeamMember,
    /// A run has at most one guest (spec 4.7 rule 3).
    #[error("the process run already has a different guest")]
    GuestAlreadyInvited,
    /// No change may touch a task while a rule hides it (API contract 12.2).
    #[error(
        "{}task {task} is hidden by a rule of its process run: it cannot be changed while hidden",
        item_prefix(*item)
    )]
    TaskHidden {
        /// The task, by title and id.
        task: String,
        /// The batch item, when the task is one of a batch's.
        item: Option<usize>,
    },
    /// A task cannot be completed or approved while a task it depends on is open (API
    /// contract 12.2).
    #[error(
        "{}task {task} is blocked: it waits for {} to be completed, skipped or hidden",
        item_prefix(*item),
        quoted(waiting_for)
    )]
    TaskBlocked {
        /// The task, by title and id.
        task: String,
        /// The titles of its open prerequisites.
        waiting_for: Vec<String>,
        /// The batch item, when the task is one of a batch's.
        item: Option<usize>,
    },
    /// The guest of a shared run may act only on unassigned tasks and tasks assigned to the
    /// guest's email (API contract 7.1).
    #[error("the task is assigned to someone else: the guest cannot change it")]
    NotGuestsTask,
    /// The run's team has no active subscription: its share links open nothing until it has
    /// one again (API contract 7.1, `docs/api.md`).
    #[error("the team's subscription is not active: its shared runs are not available")]
    SubscriptionInactive,
    /// A record with the same unique key exists already (for example a member's email).
    #[error("{0}")]
    Conflict(String),
    /// The write's `If-Match` names no current tag of the resource: it changed since the
    /// client read it (API contract 11). Nothing was written.
    #[error(
        "the resource changed since the ETag in If-Match was read; nothing was changed: read it again and retry"
    )]
    PreconditionFailed,
    /// A write that began before its caller's admission answered was not cleared to write
    /// ([`Clearance`](crate::ports::Clearance)): the admission refused the caller, or admitted
    /// another one. Nothing was written; the adapter answers what the admission found instead.
    #[error("the caller of this write was not admitted as it ran; nothing was written")]
    NotCleared,
    /// The store failed; the cause is for the log, never for the client.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl DomainError {
    /// The code a client or an operator sees for this error.
    ///
    /// ```
    /// use procflow_domain::error::{DomainError, ErrorCode};
    ///
    /// let code = DomainError::RunCompleted.code();
    /// assert_eq!((code.as_str(), code.http_status()), ("run_completed", 409));
    /// ```
    #[must_use]
    pub const fn code(&self) -> ErrorCode {
        match self {
            Self::NotFound(_) => ErrorCode::NotFound,
            Self::Validation(_) => ErrorCode::ValidationError,
            Self::TemplateNotPublished => ErrorCode::TemplateNotPublished,
            Self::RunCompleted => ErrorCode::RunCompleted,
            Self::TaskHidden { .. } => ErrorCode::TaskHidden,
            Self::TaskBlocked { .. } => ErrorCode::TaskBlocked,
            Self::TemplatePublished => ErrorCode::TemplatePublished,
            Self::TemplateHasNoTask => ErrorCode::TemplateHasNoTask,
            Self::GuestIsTeamMember => ErrorCode::GuestIsTeamMember,
            Self::GuestAlreadyInvited => ErrorCode::GuestAlreadyInvited,
            Self::NotGuestsTask | Self::SubscriptionInactive => ErrorCode::Forbidden,
            Self::Conflict(_) => ErrorCode::Conflict,
            Self::PreconditionFailed => ErrorCode::PreconditionFailed,
            // Answered by nobody: the adapter answers the admission's refusal, or runs the
            // write again as the admitted caller. Should it ever escape, a retry is right.
            Self::NotCleared => ErrorCode::Unavailable,
            Self::Store(StoreError::Unavailable(_)) => ErrorCode::Unavailable,
            Self::Store(StoreError::Other(_)) => ErrorCode::InternalError,
        }
    }
}

/// Writes the [`ErrorCode`] enum and its table from one list of rows.
macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident = ($code:literal, $status:literal),)+) => {
        /// The machine-readable codes of every error answer (API contract 1), each with its
        /// HTTP status: the one table that the HTTP errors, the command line's errors and the
        /// OpenAPI document read.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)+
        }

        impl ErrorCode {
            /// Every code, in the order of the table.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// The code as clients read it, such as `validation_error`.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $code,)+
                }
            }

            /// The HTTP status it is answered with.
            #[must_use]
            pub const fn http_status(self) -> u16 {
                match self {
                    $(Self::$variant => $status,)+
                }
            }
        }
    };
}

error_codes! {
    /// A request field, query value, body or element value the rules refuse.
    ValidationError = ("validation_error", 400),
    /// A missing, malformed, unknown or revoked API key.
    Unauthorized = ("unauthorized", 401),
    /// The team's subscription is not active, or the key's scope does not allow the operation.
    Forbidden = ("forbidden", 403),
    /// No such resource for this team, or no such route.
    NotFound = ("not_found", 404),
    /// A known route asked with a method it does not serve.
    MethodNotAllowed = ("method_not_allowed", 405),
    /// A run can only be started from a published template.
    TemplateNotPublished = ("template_not_published", 409),
    /// The tasks of a completed run cannot change.
    RunCompleted = ("run_completed", 409),
    /// A task hidden by a rule cannot change.
    TaskHidden = ("task_hidden", 409),
    /// A task cannot be completed or approved while a prerequisite is open.
    TaskBlocked = ("task_blocked", 409),
    /// A published template cannot be edited.
    TemplatePublished = ("template_published", 409),
    /// A template without tasks cannot be published (a state of the template, not of the
    /// request's body).
    TemplateHasNoTask = ("template_has_no_task", 409),
    /// A team member cannot be a guest.
    GuestIsTeamMember = ("guest_is_team_member", 409),
    /// The run already has another guest.
    GuestAlreadyInvited = ("guest_already_invited", 409),
    /// A record with the same unique key exists already.
    Conflict = ("conflict", 409),
    /// A request with the same `Idempotency-Key` is still running.
    IdempotencyInFlight = ("idempotency_in_flight", 409),
    /// `If-Match` names no current `ETag` of the resource; nothing was changed.
    PreconditionFailed = ("precondition_failed", 412),
    /// The request's head, or its body, did not arrive within its time limit.
    RequestTimeout = ("request_timeout", 408),
    /// The body is over the limit.
    PayloadTooLarge = ("payload_too_large", 413),
    /// The request target (path and query) is over the limit.
    UriTooLong = ("uri_too_long", 414),
    /// The body is not sent as JSON.
    UnsupportedMediaType = ("unsupported_media_type", 415),
    /// The `Idempotency-Key` was used with another request.
    IdempotencyKeyReused = ("idempotency_key_reused", 422),
    /// Over the API key's rate limit.
    RateLimited = ("rate_limited", 429),
    /// The request's headers are over the limit, in bytes or in number.
    HeadersTooLarge = ("headers_too_large", 431),
    /// Anything unexpected; the cause goes to the log only.
    InternalError = ("internal_error", 500),
    /// The database cannot be reached or the pool is exhausted.
    Unavailable = ("unavailable", 503),
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The kinds of resource a [`DomainError::NotFound`] can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
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
    /// A webhook endpoint.
    Webhook,
    /// A delivery of an event to a webhook endpoint.
    Delivery,
    /// A schedule.
    Schedule,
    /// A comment on a task.
    Comment,
    /// A stored file (the bytes of an attachment).
    File,
    /// A file attached to a task.
    Attachment,
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
            Self::Webhook => "webhook",
            Self::Delivery => "webhook delivery",
            Self::Schedule => "schedule",
            Self::Comment => "comment",
            Self::File => "file",
            Self::Attachment => "attachment",
        })
    }
}

/// A refused value, with a message that names the field or element at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
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
        expected: String,
    },
    /// A dropdown or multichoice value outside the element's options (spec 4.11 rule 3).
    #[error(
        "element {element}: {} is not an allowed option; allowed options: {}",
        crate::quote::quote(value),
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
    /// One item of a batch was refused: which one, and why (API contract 11).
    #[error("tasks[{index}] (task {task}): {error}")]
    Item {
        /// Its 0-based position in the batch.
        index: usize,
        /// The id it names.
        task: String,
        /// Why it was refused.
        error: Box<ValidationError>,
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

fn item_prefix(item: Option<usize>) -> String {
    item.map(|index| format!("tasks[{index}]: "))
        .unwrap_or_default()
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
    fn every_code_is_distinct_and_every_status_an_error() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "{code} twice");
            assert!((400..600).contains(&code.http_status()), "{code}");
            assert!(
                code.as_str()
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '_')
            );
        }
    }

    #[test]
    fn store_failures_are_503_or_500() {
        let unavailable = DomainError::from(StoreError::Unavailable("down".into()));
        assert_eq!(unavailable.code(), ErrorCode::Unavailable);
        assert_eq!(unavailable.code().http_status(), 503);
        let other = DomainError::from(StoreError::Other("bug".into()));
        assert_eq!(other.code().http_status(), 500);
    }

    #[test]
    fn not_found_names_the_resource() {
        assert_eq!(
            DomainError::NotFound(Resource::Template).to_string(),
            "process template not found"
        );
    }
}
