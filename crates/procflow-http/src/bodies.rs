//! Request bodies, each read strictly (unknown fields refused) and parsed into a use-case
//! request of validated types: ids, emails, assignees and element writes are checked here,
//! with the field's name, so the use cases take only values that are valid.

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use futures_util::future::LocalBoxFuture;
use procflow_domain::actor::Assignee;
use procflow_domain::error::{Resource, ValidationError};
use procflow_domain::ids::TemplateId;
use procflow_domain::json;
use procflow_domain::run::{Decision, ElementWrite, Prefill};
use procflow_domain::service::{CreateRun, UpdateTask};
use procflow_domain::sharing::Invitation;
use procflow_domain::values::Email;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{Date, OffsetDateTime};

use crate::error::ApiError;
use crate::params;

mod batch;

pub use batch::UpdateTasksBody;
pub mod webhooks;

pub use webhooks::{CreateWebhookBody, TestWebhookBody, UpdateWebhookBody};

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

/// `absent` → `None`, `null` → `Some(None)`, a value → `Some(Some(v))`.
fn nullable<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// Create a run (spec 4.6).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateRun)]
pub struct CreateRunBody {
    /// The template to run; it must be published.
    #[schema(format = "uuid")]
    template_id: String,
    /// The run's title; the template's title when omitted.
    #[serde(default)]
    name: Option<String>,
    /// Another name for `name` (spec 4.6); give one of the two.
    #[serde(default)]
    title: Option<String>,
    /// An RFC 3339 timestamp, or a `YYYY-MM-DD` date (midnight UTC).
    #[serde(default)]
    due_date: Option<String>,
    /// The email of an active team member to attribute the run to; `api` otherwise.
    #[serde(default)]
    actor_email: Option<String>,
    /// Values pre-filled into form fields of the template's tasks.
    #[serde(default)]
    custom_elements: Vec<PrefillBody>,
}

/// A value pre-filled into a form field when a run starts.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Prefill)]
struct PrefillBody {
    /// A template task id.
    #[schema(format = "uuid")]
    task_id: String,
    /// The id of an input element of that task.
    #[schema(format = "uuid")]
    element_id: String,
    /// A value of the element type's kind (spec 2.7).
    value: Value,
}

impl CreateRunBody {
    /// The use-case request.
    ///
    /// # Errors
    /// 404 for a template id that is no id; 400 for a bad due date or pre-fill id.
    pub fn into_request(self) -> Result<CreateRun, ApiError> {
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
                            format!("{:?} is not a task id", item.task_id),
                        )
                    })?,
                    element_id: item.element_id.parse().map_err(|_| {
                        ApiError::invalid_field(
                            &format!("custom_elements[{i}].element_id"),
                            format!("{:?} is not an element id", item.element_id),
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
                format!("{text:?} is not an ISO 8601 date or timestamp"),
            )
        })
}

/// Update a task (spec 4.11, API contract 6): every field optional, several per request.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdateTask)]
pub struct UpdateTaskBody {
    /// True completes the task (approves an approval task), false reopens it.
    #[serde(default)]
    completed: Option<bool>,
    /// True skips a task that is not essential; not with `completed: true`.
    #[serde(default)]
    skipped: Option<bool>,
    /// A member's user id or email, or any other email (an external assignee); null
    /// unassigns.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    assignee: Option<Option<String>>,
    /// Who acts: `completed_by` becomes that member's user id, else `api`.
    #[serde(default)]
    actor_email: Option<String>,
    /// Values written to input elements; `value: null` clears one.
    #[serde(default)]
    custom_elements: Vec<ElementWriteBody>,
    /// Only on approval tasks: `approved` completes it, `rejected` leaves it open.
    #[serde(default)]
    decision: Option<Decision>,
    /// Recorded with the decision.
    #[serde(default)]
    comment: Option<String>,
}

/// A value written to a form field.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ElementWrite)]
struct ElementWriteBody {
    /// The element's id.
    #[schema(format = "uuid")]
    id: String,
    /// A value of the element type's kind (spec 2.7), or null to clear it.
    value: Value,
}

impl UpdateTaskBody {
    /// The use-case request.
    ///
    /// # Errors
    /// 400 for an assignee that is neither a user id nor an email, or an element id that is
    /// no id.
    pub fn into_request(self) -> Result<UpdateTask, ApiError> {
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
                        format!("{:?} is not an element id", write.id),
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

/// Share a run with a guest (spec 4.7); `{}` is valid.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Invite)]
pub struct InviteBody {
    /// The guest's email: an invitation with the link is sent to it.
    #[serde(default)]
    #[schema(format = Email)]
    email: Option<String>,
    /// Remind a guest who has not opened the link; only with `email`. False when omitted.
    #[serde(default)]
    enable_reminders: Option<bool>,
    /// Days before the reminder; 7 when omitted.
    #[serde(default)]
    #[schema(minimum = 1, maximum = 365)]
    reminder_days: Option<i64>,
}

impl InviteBody {
    /// The invitation.
    ///
    /// # Errors
    /// 400 for an email that is no email.
    pub fn into_invitation(self) -> Result<Invitation, ApiError> {
        let email = self
            .email
            .map(|e| {
                e.parse().map_err(|_| {
                    ApiError::invalid_field("email", format!("{e:?} is not a valid email address"))
                })
            })
            .transpose()?;
        Ok(Invitation {
            email,
            enable_reminders: self.enable_reminders.unwrap_or(false),
            reminder_days: self.reminder_days,
        })
    }
}

/// Publish or unpublish a template (API contract 5).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Publish)]
pub struct PublishBody {
    /// `true` publishes, `false` unpublishes.
    pub published: bool,
}
