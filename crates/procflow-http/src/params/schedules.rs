//! Path and query parameters of the schedule operations.

use procflow_domain::error::Resource;
use procflow_domain::ids::ScheduleId;
use procflow_domain::ports::ScheduleFilter;
use procflow_domain::values::PageRequest;
use serde::Deserialize;

use super::{id, page};
use crate::error::ApiError;
use procflow_domain::quote::quote;

/// `/schedules/{id}`
pub fn schedule_id(text: &str) -> Result<ScheduleId, ApiError> {
    id(text, Resource::Schedule)
}

/// The list of schedules: a page, a template, enabled or not.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct SchedulesQuery {
    /// Items per page.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100, default = 20)]
    limit: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(format = "uuid")]
    cursor: Option<String>,
    /// Only the schedules of this template.
    #[param(format = "uuid")]
    template_id: Option<String>,
    /// Only enabled (`true`) or disabled (`false`) schedules.
    #[param(value_type = Option<bool>)]
    enabled: Option<String>,
}

impl SchedulesQuery {
    /// The page asked for.
    ///
    /// # Errors
    /// 400 for a bad limit or cursor.
    pub fn page(&self) -> Result<PageRequest, ApiError> {
        page(self.limit.as_deref(), self.cursor.as_deref())
    }

    /// The filter asked for.
    ///
    /// # Errors
    /// 400 for a template id that is no id, or `enabled` other than `true` or `false`.
    pub fn filter(&self) -> Result<ScheduleFilter, ApiError> {
        let template_id = self
            .template_id
            .as_deref()
            .map(|text| {
                text.parse().map_err(|_| {
                    ApiError::invalid_field("template_id", format!("{} is not an id", quote(text)))
                })
            })
            .transpose()?;
        let enabled = match self.enabled.as_deref() {
            None => None,
            Some("true") => Some(true),
            Some("false") => Some(false),
            Some(other) => {
                return Err(ApiError::invalid_field(
                    "enabled",
                    format!("{} is not true or false", quote(other)),
                ));
            }
        };
        Ok(ScheduleFilter {
            template_id,
            enabled,
        })
    }
}
