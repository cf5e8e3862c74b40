//! The bodies of the schedule operations (API contract 13.1) read into the domain's requests.

use procflow_domain::error::Resource;
use procflow_domain::quote::quote;
use procflow_domain::schedule::{PrefillValue, ScheduledInvite, ScheduledRun};
use procflow_domain::service::{NewSchedule, SchedulePatch};
use procflow_domain::template::IsoDuration;
use procflow_domain::values::Email;

use super::{CreateScheduleBody, IntoRequest, ScheduleRunBody, UpdateScheduleBody};
use crate::error::ApiError;
use crate::params;

fn email(field: &str, text: &str) -> Result<Email, ApiError> {
    text.parse::<Email>().map_err(|_| {
        ApiError::invalid_field(field, format!("{} is not an email address", quote(text)))
    })
}

/// The run part of a schedule, every field checked and named under `run.`.
fn run(body: ScheduleRunBody) -> Result<ScheduledRun, ApiError> {
    let custom_elements = body
        .custom_elements
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            Ok(PrefillValue {
                task_id: item.task_id.parse().map_err(|_| {
                    ApiError::invalid_field(
                        &format!("run.custom_elements[{i}].task_id"),
                        format!("{} is not a task id", quote(&item.task_id)),
                    )
                })?,
                element_id: item.element_id.parse().map_err(|_| {
                    ApiError::invalid_field(
                        &format!("run.custom_elements[{i}].element_id"),
                        format!("{} is not an element id", quote(&item.element_id)),
                    )
                })?,
                value: item.value,
            })
        })
        .collect::<Result<_, ApiError>>()?;
    let invite = body
        .invite
        .map(|invite| {
            let reminder_days = invite
                .reminder_days
                .map(|days| {
                    u16::try_from(days)
                        .ok()
                        .filter(|d| {
                            (procflow_domain::limits::MIN_REMINDER_DAYS
                                ..=procflow_domain::limits::MAX_REMINDER_DAYS)
                                .contains(d)
                        })
                        .map(i64::from)
                        .ok_or_else(|| {
                            ApiError::invalid_field(
                                "run.invite.reminder_days",
                                format!(
                                    "must be an integer from {} to {}",
                                    procflow_domain::limits::MIN_REMINDER_DAYS,
                                    procflow_domain::limits::MAX_REMINDER_DAYS
                                ),
                            )
                        })
                })
                .transpose()?;
            Ok::<_, ApiError>(ScheduledInvite {
                email: email("run.invite.email", &invite.email)?,
                enable_reminders: invite.enable_reminders.unwrap_or(false),
                reminder_days,
            })
        })
        .transpose()?;
    Ok(ScheduledRun {
        name: body.name,
        actor_email: body
            .actor_email
            .as_deref()
            .map(|text| email("run.actor_email", text))
            .transpose()?,
        due_in: body
            .due_in
            .as_deref()
            .map(|text| {
                text.parse::<IsoDuration>().map_err(|_| {
                    ApiError::invalid_field(
                        "run.due_in",
                        format!(
                            "{} is not an ISO 8601 duration of weeks, days, hours, minutes and seconds, such as P3D or PT4H",
                            quote(text)
                        ),
                    )
                })
            })
            .transpose()?,
        custom_elements,
        invite,
    })
}

impl IntoRequest for CreateScheduleBody {
    type Request = NewSchedule;

    /// The domain's request.
    ///
    /// # Errors
    /// 404 for a template id that is no id; 400 for a bad run field.
    fn into_request(self) -> Result<NewSchedule, ApiError> {
        Ok(NewSchedule {
            template_id: params::id(&self.template_id, Resource::Template)?,
            name: self.name,
            recurrence: self.recurrence,
            timezone: self.timezone,
            enabled: self.enabled,
            run: self.run.map(run).transpose()?.unwrap_or_default(),
        })
    }
}

impl IntoRequest for UpdateScheduleBody {
    type Request = SchedulePatch;

    /// The domain's patch (without its `If-Match`, which the handler adds).
    ///
    /// # Errors
    /// 400 for a bad run field.
    fn into_request(self) -> Result<SchedulePatch, ApiError> {
        Ok(SchedulePatch {
            name: self.name,
            recurrence: self.recurrence,
            timezone: self.timezone,
            enabled: self.enabled,
            run: self.run.map(run).transpose()?,
            if_match: None,
        })
    }
}
