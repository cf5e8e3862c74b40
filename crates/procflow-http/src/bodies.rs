//! Request bodies, each read strictly (unknown fields refused) and parsed into a use-case
//! request of validated types: ids, emails, assignees and element writes are checked here,
//! with the field's name, so the use cases take only values that are valid.

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, error as actix_error, web};
use futures_util::future::LocalBoxFuture;
use procflow_domain::actor::Assignee;
use procflow_domain::error::{Resource, ValidationError};
use procflow_domain::ids::TemplateId;
use procflow_domain::json;
use procflow_domain::run::{ElementWrite, Prefill};
use procflow_domain::service::{CreateRun, UpdateTask};
use procflow_domain::sharing::Invitation;
use procflow_domain::values::Email;
use serde::de::DeserializeOwned;
use serde_json::Value;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{Date, OffsetDateTime};

use crate::error::ApiError;
use crate::params;
use procflow_domain::quote::quote;

mod batch;
mod comments;
mod schedules;
mod webhooks;

pub use procflow_wire::bodies::{CreateCommentBody, UpdateCommentBody};
pub use procflow_wire::bodies::{
    CreateRunBody, CreateScheduleBody, CreateWebhookBody, ElementWriteBody, InviteBody,
    PrefillBody, PublishBody, ScheduleRunBody, TaskUpdateBody, TestWebhookBody, UpdateScheduleBody,
    UpdateTaskBody, UpdateTasksBody, UpdateWebhookBody,
};

/// A body of `procflow-wire` read into the use case's request of validated types. The bodies
/// are the wire's (the client writes them too); what they mean to the domain is the server's.
pub trait IntoRequest {
    /// The use case's request.
    type Request;

    /// Parses every field, naming the one at fault.
    ///
    /// # Errors
    /// 400 `validation_error` (or 404 for an id in the body that names nothing, as the path's).
    fn into_request(self) -> Result<Self::Request, ApiError>;
}

/// A JSON body read strictly: the framework's checks (content type, size, syntax), then the
/// typed reading, whose refusals name the path of the field at fault.
#[derive(Debug)]
pub struct Body<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for Body<T> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, actix_web::Error>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let json = web::Json::<Value>::from_request(request, payload);
        Box::pin(async move { Ok(Body(typed(json.await?.into_inner())?)) })
    }
}

/// Reads a JSON value as `T`, naming the path of the first field at fault.
///
/// # Errors
/// 400 `validation_error` such as `completed: invalid type: string "yes", expected a boolean`.
pub fn typed<T: DeserializeOwned>(value: Value) -> Result<T, ApiError> {
    // serde would read a struct from an array of its fields in order: only objects are bodies.
    if !value.is_object() {
        return Err(ApiError::validation(
            "invalid request body: expected a JSON object",
        ));
    }
    json::read(&value).map_err(|refused| match refused {
        ValidationError::Field { field, message } if field == "body" => {
            ApiError::validation(format!("invalid request body: {message}"))
        }
        other => ApiError::from_validation(other),
    })
}

/// `actor_email` as spec 4.6 rule 6 reads it: text that is no email names no member, so the
/// request acts as `api`, without an error; but text with NUL is refused, as in every text input.
fn actor_email(text: Option<String>) -> Result<Option<Email>, ApiError> {
    if let Some(text) = &text
        && let Err(message) = procflow_domain::limits::check_text(text, usize::MAX)
    {
        return Err(ApiError::invalid_field("actor_email", message));
    }
    Ok(text.and_then(|text| text.parse().ok()))
}

impl IntoRequest for CreateRunBody {
    type Request = CreateRun;

    /// The use-case request.
    ///
    /// # Errors
    /// 404 for a template id that is no id; 400 for a bad due date or pre-fill id.
    fn into_request(self) -> Result<CreateRun, ApiError> {
        let template_id: TemplateId = params::id(&self.template_id, Resource::Template)?;
        let due_date = self.due_date.as_deref().map(due_date).transpose()?;
        let custom_elements = self
            .custom_elements
            .into_iter()
            .enumerate()
            .map(|(i, item)| {
                Ok(Prefill {
                    task_id: item.task_id.parse().map_err(|_| {
                        ApiError::invalid_field(
                            &format!("custom_elements[{i}].task_id"),
                            format!("{} is not a task id", quote(&item.task_id)),
                        )
                    })?,
                    element_id: item.element_id.parse().map_err(|_| {
                        ApiError::invalid_field(
                            &format!("custom_elements[{i}].element_id"),
                            format!("{} is not an element id", quote(&item.element_id)),
                        )
                    })?,
                    value: item.value,
                })
            })
            .collect::<Result<_, ApiError>>()?;
        let name = match (self.name, self.title) {
            (Some(_), Some(_)) => {
                return Err(ApiError::invalid_field(
                    "title",
                    "is another name for name: give one of the two",
                ));
            }
            (name, title) => name.or(title),
        };
        Ok(CreateRun {
            template_id,
            name,
            due_date,
            actor_email: actor_email(self.actor_email)?,
            custom_elements,
        })
    }
}

/// An ISO 8601 moment (RFC 3339) or calendar date (taken as midnight UTC).
fn due_date(text: &str) -> Result<OffsetDateTime, ApiError> {
    OffsetDateTime::parse(text, &Rfc3339)
        .or_else(|_| {
            Date::parse(text, format_description!("[year]-[month]-[day]"))
                .map(|date| date.midnight().assume_utc())
        })
        .map_err(|_| {
            ApiError::invalid_field(
                "due_date",
                format!("{} is not an ISO 8601 date or timestamp", quote(text)),
            )
        })
}

impl IntoRequest for UpdateTaskBody {
    type Request = UpdateTask;

    /// The use-case request.
    ///
    /// # Errors
    /// 400 for an assignee that is neither a user id nor an email, or an element id that is
    /// no id.
    fn into_request(self) -> Result<UpdateTask, ApiError> {
        let assignee = self
            .assignee
            .map(|assignee| assignee.map(|text| text.parse::<Assignee>()).transpose())
            .transpose()
            .map_err(ApiError::from_validation)?;
        let custom_elements = self
            .custom_elements
            .into_iter()
            .enumerate()
            .map(|(i, write)| {
                let id = write.id.parse().map_err(|_| {
                    ApiError::invalid_field(
                        &format!("custom_elements[{i}].id"),
                        format!("{} is not an element id", quote(&write.id)),
                    )
                })?;
                Ok(ElementWrite {
                    id,
                    value: write.value,
                })
            })
            .collect::<Result<_, ApiError>>()?;
        Ok(UpdateTask {
            completed: self.completed,
            skipped: self.skipped,
            assignee,
            actor_email: actor_email(self.actor_email)?,
            custom_elements,
            decision: self.decision,
            comment: self.comment,
            if_match: None,
        })
    }
}

impl IntoRequest for InviteBody {
    type Request = Invitation;

    /// The invitation.
    ///
    /// # Errors
    /// 400 for an email that is no email.
    fn into_request(self) -> Result<Invitation, ApiError> {
        let email = self
            .email
            .map(|e| e.parse::<Email>().map_err(ApiError::from_validation))
            .transpose()?;
        Ok(Invitation {
            email,
            enable_reminders: self.enable_reminders.unwrap_or(false),
            reminder_days: self.reminder_days,
        })
    }
}

/// The JSON body configuration every route shares.
#[must_use]
pub fn json_config(limit: usize) -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(limit)
        .error_handler(json_error)
}

/// Bodies: malformed JSON, wrong types and unknown fields are 400; too large 413; not JSON 415.
pub fn json_error(error: actix_error::JsonPayloadError, request: &HttpRequest) -> actix_web::Error {
    use actix_error::JsonPayloadError as E;
    // A body the transport guard ended (too slow, or a broken chunked encoding) reads as
    // incomplete here: its answer says why.
    if let (E::Payload(_) | E::Deserialize(_), Some(fault)) =
        (&error, crate::transport::body_fault(request))
    {
        return fault.into();
    }
    let api = match &error {
        E::ContentType => ApiError::unsupported_media_type(),
        E::OverflowKnownLength { limit, .. } | E::Overflow { limit } => {
            ApiError::payload_too_large(*limit)
        }
        E::Deserialize(cause) if cause.is_data() => {
            ApiError::validation(format!("invalid request body: {cause}"))
        }
        E::Deserialize(cause) => ApiError::validation(format!("malformed JSON: {cause}")),
        other => ApiError::validation(format!("unreadable request body: {other}")),
    };
    api.into()
}
