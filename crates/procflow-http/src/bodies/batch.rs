//! A batch update of a run's tasks (API contract 11) read into the use case's request: each
//! item checked as a single task PATCH's body is.

use procflow_domain::limits::MAX_BATCH_TASKS;
use procflow_domain::service::UpdateTasks;

use super::{IntoRequest, UpdateTaskBody, UpdateTasksBody, actor_email};
use crate::error::ApiError;
use procflow_domain::quote::quote;

impl IntoRequest for UpdateTasksBody {
    type Request = UpdateTasks;

    /// The use-case request.
    ///
    /// # Errors
    /// 400 for no task or more than 100, or for an item whose id is no id or whose fields a
    /// single PATCH would refuse, naming the item's index (and its id).
    fn into_request(self) -> Result<UpdateTasks, ApiError> {
        if self.tasks.is_empty() || self.tasks.len() > MAX_BATCH_TASKS {
            return Err(ApiError::invalid_field(
                "tasks",
                format!(
                    "must hold 1 to {MAX_BATCH_TASKS} tasks, not {}",
                    self.tasks.len()
                ),
            ));
        }
        let tasks = self
            .tasks
            .into_iter()
            .enumerate()
            .map(|(index, item)| {
                let id = item.id.parse().map_err(|_| {
                    ApiError::invalid_field(
                        &format!("tasks[{index}].id"),
                        format!("{} is not a task id", quote(&item.id)),
                    )
                })?;
                let fields = UpdateTaskBody {
                    completed: item.completed,
                    skipped: item.skipped,
                    assignee: item.assignee,
                    actor_email: item.actor_email,
                    custom_elements: item.custom_elements,
                    decision: item.decision,
                    comment: item.comment,
                };
                let update = fields.into_request().map_err(|error| {
                    ApiError::validation(format!("tasks[{index}] (task {id}): {}", error.message()))
                })?;
                Ok((id, update))
            })
            .collect::<Result<_, ApiError>>()?;
        Ok(UpdateTasks {
            tasks,
            actor_email: actor_email(self.actor_email)?,
            if_match: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::bodies::typed;

    fn refusal(body: Value) -> String {
        typed::<UpdateTasksBody>(body)
            .and_then(UpdateTasksBody::into_request)
            .unwrap_err()
            .message()
            .to_owned()
    }

    #[test]
    fn an_item_takes_the_fields_of_a_single_update_and_its_id() {
        let task = "0190d3c4-6f1e-7a4b-9c7d-2b1a3e4f5a6b";
        let request = typed::<UpdateTasksBody>(json!({
            "tasks": [{"id": task, "completed": true, "assignee": null,
                       "actor_email": "a@b.co"}],
            "actor_email": "c@d.co",
        }))
        .and_then(UpdateTasksBody::into_request)
        .unwrap();
        assert_eq!(request.tasks.len(), 1);
        assert_eq!(request.tasks[0].0.to_string(), task);
        assert_eq!(request.tasks[0].1.completed, Some(true));
        assert_eq!(request.tasks[0].1.assignee, Some(None));
        assert_eq!(
            request.tasks[0].1.actor_email.as_ref().unwrap().as_str(),
            "a@b.co"
        );
        assert_eq!(request.actor_email.unwrap().as_str(), "c@d.co");
    }

    #[test]
    fn a_refused_item_is_named_by_its_index_and_id() {
        let task = "0190d3c4-6f1e-7a4b-9c7d-2b1a3e4f5a6b";
        assert_eq!(
            refusal(json!({"tasks": []})),
            "tasks: must hold 1 to 100 tasks, not 0"
        );
        assert_eq!(
            refusal(json!({"tasks": [{"id": task}, {"id": "nope"}]})),
            "tasks[1].id: \"nope\" is not a task id"
        );
        assert_eq!(
            refusal(json!({"tasks": [{"id": task, "assignee": "neither"}]})),
            format!(
                "tasks[0] (task {task}): assignee: \"neither\" is neither a user id nor an email address"
            )
        );
        assert!(
            refusal(json!({"tasks": [{"id": task, "completed": "yes"}]}))
                .starts_with("tasks[0].completed: invalid type")
        );
        assert!(refusal(json!({"tasks": [{"id": task, "colour": 1}]})).starts_with("tasks[0]"));
        assert!(refusal(json!({"tasks": [{"id": task}], "if_match": "x"})).contains("if_match"));
    }
}
