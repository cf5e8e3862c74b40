//! Request bodies, each read strictly (unknown fields refused) and turned into a use-case
//! request; values the domain does not type yet are checked here with the field's name.

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use futures_util::future::LocalBoxFuture;
use procflow_domain::error::{Resource, ValidationError};
use procflow_domain::guest::Invitation;
use procflow_domain::ids::TemplateId;
use procflow_domain::run::{Decision, Prefill};
use procflow_domain::service::{CreateRun, UpdateTask};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{Date, OffsetDateTime};

use crate::error::ApiError;
use crate::params;

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
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let cause = error.into_inner();
        if path == "." {
            ApiError::validation(format!("invalid request body: {cause}"))
        } else {
            invalid(&path, cause.to_string())
        }
    })
}

fn invalid(field: &str, message: impl Into<String>) -> ApiError {
    ApiError::validation(ValidationError::field(field, message).to_string())
}

/// `absent` → `None`, `null` → `Some(None)`, a value → `Some(Some(v))`.
fn nullable<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// Create a run (spec 4.6).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateRunBody {
    template_id: String,
    #[serde(default, alias = "title")]
    name: Option<String>,
    #[serde(default)]
    due_date: Option<String>,
    #[serde(default)]
    actor_email: Option<String>,
    #[serde(default)]
    custom_elements: Vec<PrefillBody>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PrefillBody {
    task_id: String,
    element_id: String,
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
                        invalid(
                            &format!("custom_elements[{i}].task_id"),
                            format!("{:?} is not a task id", item.task_id),
                        )
                    })?,
                    element_id: item.element_id.parse().map_err(|_| {
                        invalid(
                            &format!("custom_elements[{i}].element_id"),
                            format!("{:?} is not an element id", item.element_id),
                        )
                    })?,
                    value: item.value,
                })
            })
            .collect::<Result<_, ApiError>>()?;
        Ok(CreateRun {
            template_id: Some(template_id),
            name: self.name,
            due_date,
            actor_email: self.actor_email,
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
            invalid(
                "due_date",
                format!("{text:?} is not an ISO 8601 date or timestamp"),
            )
        })
}

/// Update a task (spec 4.11, API contract 6).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateTaskBody {
    #[serde(default)]
    completed: Option<bool>,
    #[serde(default)]
    skipped: Option<bool>,
    #[serde(default, deserialize_with = "nullable")]
    assignee: Option<Option<String>>,
    #[serde(default)]
    actor_email: Option<String>,
    #[serde(default)]
    custom_elements: Vec<ElementWriteBody>,
    #[serde(default)]
    decision: Option<Decision>,
    #[serde(default)]
    comment: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ElementWriteBody {
    id: String,
    value: Value,
}

impl From<UpdateTaskBody> for UpdateTask {
    fn from(body: UpdateTaskBody) -> Self {
        Self {
            completed: body.completed,
            skipped: body.skipped,
            assignee: body.assignee,
            actor_email: body.actor_email,
            custom_elements: body
                .custom_elements
                .into_iter()
                .map(|w| (w.id, w.value))
                .collect(),
            decision: body.decision,
            comment: body.comment,
        }
    }
}

/// Share a run with a guest (spec 4.7).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InviteBody {
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    enable_reminders: Option<bool>,
    #[serde(default)]
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
                e.parse()
                    .map_err(|_| invalid("email", format!("{e:?} is not a valid email address")))
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
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishBody {
    /// `true` publishes, `false` unpublishes.
    pub published: bool,
}
