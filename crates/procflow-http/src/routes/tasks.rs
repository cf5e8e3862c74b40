//! `/api/v1/process-runs/{id}/tasks`: list, get and update a run's tasks.

use actix_web::{HttpResponse, web};

use crate::AppState;
use crate::auth::Caller;
use crate::bodies::{Body, UpdateTaskBody};
use crate::error::ApiError;
use crate::params::{self, PageQuery};
use crate::views::{self, RunTaskListView, RunTaskView};

/// `GET /process-runs/{id}/tasks` (spec 4.9).
#[utoipa::path(
    get,
    path = "/api/v1/process-runs/{id}/tasks",
    tag = "tasks",
    operation_id = "listRunTasks",
    summary = "List a run's tasks",
    description = "By position, each with its state and form values.",
    params(("id" = String, Path, format = "uuid", description = "The run's id"), PageQuery),
    responses((status = 200, description = "A page of run tasks", body = crate::openapi::envelopes::RunTaskList))
)]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = state
        .procflow()
        .list_tasks(&caller.team, params::run_id(&id)?, query.page()?)
        .await?;
    Ok(views::list(&page, RunTaskListView::from))
}

/// `GET /process-runs/{id}/tasks/{task_id}` (spec 4.10).
#[utoipa::path(
    get,
    path = "/api/v1/process-runs/{id}/tasks/{task_id}",
    tag = "tasks",
    operation_id = "getRunTask",
    summary = "Get a run task",
    params(("id" = String, Path, format = "uuid", description = "The run's id"), ("task_id" = String, Path, format = "uuid", description = "The run task's id")),
    responses((status = 200, description = "The task", body = crate::openapi::envelopes::RunTaskData))
)]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (run, task) = (params::run_id(&path.0)?, params::task_id(&path.1)?);
    let task = state.procflow().get_task(&caller.team, run, task).await?;
    Ok(views::data(RunTaskView::from(&task)))
}

/// `PATCH /process-runs/{id}/tasks/{task_id}` (spec 4.11): answers the full task.
#[utoipa::path(
    patch,
    path = "/api/v1/process-runs/{id}/tasks/{task_id}",
    tag = "tasks",
    operation_id = "updateRunTask",
    summary = "Update a run task",
    description = "Complete, reopen, skip, assign, decide and fill in form fields, several at once. When no task of the run is left open, the run becomes completed.",
    params(("id" = String, Path, format = "uuid", description = "The run's id"), ("task_id" = String, Path, format = "uuid", description = "The run task's id")),
    request_body = crate::bodies::UpdateTaskBody,
    responses((status = 200, description = "The task", body = crate::openapi::envelopes::RunTaskData))
)]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, String)>,
    Body(body): Body<UpdateTaskBody>,
) -> Result<HttpResponse, ApiError> {
    let (run, task) = (params::run_id(&path.0)?, params::task_id(&path.1)?);
    let change = state
        .procflow()
        .update_task(&caller.team, run, task, body.into_request()?)
        .await?;
    if !change.missing_required.is_empty() {
        tracing::info!(
            run.id = %run,
            task.id = %task,
            missing_required = change.missing_required.len(),
            "task completed with required fields empty"
        );
    }
    Ok(views::data(RunTaskView::from(&change.task)))
}
