//! Path and query parameters: ids that name nothing are 404, bad query values 400.

use actix_web::{HttpRequest, error as actix_error, web};
use procflow_domain::actor::Assignee;
use procflow_domain::error::Resource;
use procflow_domain::ids::{RunId, TaskId, TemplateId};
use procflow_domain::run::{InboxFilter, RunFilter, RunStatus, TaskStatus};
use procflow_domain::values::{Cursor, Limit, PageRequest};
use serde::Deserialize;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::error::ApiError;
use procflow_domain::quote::quote;

pub mod no_query;
pub mod schedules;
pub mod webhooks;

/// Parses an id from the path; text that is no id names no resource: 404.
pub fn id<T: std::str::FromStr>(text: &str, resource: Resource) -> Result<T, ApiError> {
    text.parse()
        .map_err(|_| ApiError::resource_not_found(resource))
}

/// `/process-templates/{id}`
pub fn template_id(text: &str) -> Result<TemplateId, ApiError> {
    id(text, Resource::Template)
}

/// `/process-runs/{id}`
pub fn run_id(text: &str) -> Result<RunId, ApiError> {
    id(text, Resource::Run)
}

/// `/process-runs/{id}/tasks/{task_id}`
pub fn task_id(text: &str) -> Result<TaskId, ApiError> {
    id(text, Resource::Task)
}

/// `/comments/{id}`
pub fn comment_id(text: &str) -> Result<procflow_domain::ids::CommentId, ApiError> {
    id(text, Resource::Comment)
}

/// `/attachments/{id}`
pub fn attachment_id(text: &str) -> Result<procflow_domain::ids::AttachmentId, ApiError> {
    id(text, Resource::Attachment)
}

/// `limit` and `cursor` (spec 4.1).
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Items per page.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100, default = 20)]
    limit: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(format = "uuid")]
    cursor: Option<String>,
}

impl PageQuery {
    /// The page asked for.
    ///
    /// # Errors
    /// 400 for a limit outside 1..=100 or a cursor that is no id.
    pub fn page(&self) -> Result<PageRequest, ApiError> {
        page(self.limit.as_deref(), self.cursor.as_deref())
    }
}

pub(crate) fn page(limit: Option<&str>, cursor: Option<&str>) -> Result<PageRequest, ApiError> {
    let invalid = ApiError::from_validation;
    Ok(PageRequest {
        limit: limit
            .map(str::parse::<Limit>)
            .transpose()
            .map_err(invalid)?
            .unwrap_or_default(),
        cursor: cursor
            .map(str::parse::<Cursor>)
            .transpose()
            .map_err(invalid)?,
    })
}

/// List runs' parameters (spec 4.5).
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct RunsQuery {
    /// Items per page.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100, default = 20)]
    limit: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(format = "uuid")]
    cursor: Option<String>,
    /// Only runs of this template.
    #[param(format = "uuid")]
    template_id: Option<String>,
    /// Only runs in this status.
    #[param(value_type = Option<procflow_domain::run::RunStatus>)]
    status: Option<String>,
}

impl RunsQuery {
    /// The page asked for.
    ///
    /// # Errors
    /// As for [`PageQuery::page`].
    pub fn page(&self) -> Result<PageRequest, ApiError> {
        page(self.limit.as_deref(), self.cursor.as_deref())
    }

    /// The filter asked for.
    ///
    /// # Errors
    /// 400 for a template id that is no id or a status other than active or completed.
    pub fn filter(&self) -> Result<RunFilter, ApiError> {
        let template_id = self
            .template_id
            .as_deref()
            .map(|t| {
                t.parse::<TemplateId>().map_err(|_| {
                    ApiError::invalid_field(
                        "template_id",
                        format!("{} is not a template id", quote(t)),
                    )
                })
            })
            .transpose()?;
        let status = self
            .status
            .as_deref()
            .map(str::parse::<RunStatus>)
            .transpose()
            .map_err(|unknown| ApiError::invalid_field("status", unknown.to_string()))?;
        Ok(RunFilter {
            template_id,
            status,
        })
    }
}

pub use procflow_wire::params::InboxQuery;

/// The inbox's page and filter, read from its parameters.
pub trait InboxParams {
    /// The page asked for.
    ///
    /// # Errors
    /// As for [`PageQuery::page`].
    fn page(&self) -> Result<PageRequest, ApiError>;

    /// The filter asked for.
    ///
    /// # Errors
    /// 400 naming the parameter: an assignee that is neither a user id nor an email, an
    /// unknown status or run status, a date that is not RFC 3339, `overdue` other than `true`
    /// or `false` (or `true` with a status other than `open`), a template id that is no id.
    fn filter(&self) -> Result<InboxFilter, ApiError>;
}

impl InboxParams for InboxQuery {
    fn page(&self) -> Result<PageRequest, ApiError> {
        page(self.limit.as_deref(), self.cursor.as_deref())
    }

    fn filter(&self) -> Result<InboxFilter, ApiError> {
        let assignee = self
            .assignee
            .as_deref()
            .map(str::parse::<Assignee>)
            .transpose()
            .map_err(ApiError::from_validation)?;
        let status = self
            .status
            .as_deref()
            .map(str::parse::<TaskStatus>)
            .transpose()
            .map_err(|unknown| ApiError::invalid_field("status", unknown.to_string()))?
            .unwrap_or(TaskStatus::Open);
        let run_status = self
            .run_status
            .as_deref()
            .map(str::parse::<RunStatus>)
            .transpose()
            .map_err(|unknown| ApiError::invalid_field("run_status", unknown.to_string()))?
            .unwrap_or(RunStatus::Active);
        let overdue = match self.overdue.as_deref() {
            None => None,
            Some("true") => Some(true),
            Some("false") => Some(false),
            Some(other) => {
                return Err(ApiError::invalid_field(
                    "overdue",
                    format!("{} is neither true nor false", quote(other)),
                ));
            }
        };
        if overdue == Some(true) && status != TaskStatus::Open {
            return Err(ApiError::invalid_field(
                "overdue",
                "only open tasks are overdue; leave status out or make it open",
            ));
        }
        Ok(InboxFilter {
            assignee,
            status,
            due_before: instant("due_before", self.due_before.as_deref())?,
            due_after: instant("due_after", self.due_after.as_deref())?,
            overdue,
            template_id: template_filter(self.template_id.as_deref())?,
            run_status,
        })
    }
}

fn instant(name: &str, text: Option<&str>) -> Result<Option<OffsetDateTime>, ApiError> {
    text.map(|t| {
        OffsetDateTime::parse(t, &Rfc3339).map_err(|_| {
            ApiError::invalid_field(
                name,
                format!(
                    "{} is not an RFC 3339 date-time (such as 2026-12-01T09:00:00Z)",
                    quote(t)
                ),
            )
        })
    })
    .transpose()
}

fn template_filter(text: Option<&str>) -> Result<Option<TemplateId>, ApiError> {
    text.map(|t| {
        t.parse::<TemplateId>().map_err(|_| {
            ApiError::invalid_field("template_id", format!("{} is not a template id", quote(t)))
        })
    })
    .transpose()
}

/// The query configuration every route shares.
#[must_use]
pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(query_error)
}

/// Query strings: a bad value or an unknown parameter is 400.
pub fn query_error(error: actix_error::QueryPayloadError, _: &HttpRequest) -> actix_web::Error {
    ApiError::validation(format!("invalid query: {error}")).into()
}
