//! `/api/v1/process-runs/{id}/tasks`: list, get and update a run's tasks, one or several at
//! once.

use actix_web::{HttpResponse, web};

use crate::AppState;
use crate::auth::{Caller, CallerClearance};
use procflow_domain::service::{UpdateTask, UpdateTasks};

use crate::bodies::{Body, IntoRequest, UpdateTaskBody, UpdateTasksBody};
use crate::conditional::{self, IfMatchHeader, IfNoneMatch};
use crate::error::ApiError;
use crate::params::{self, PageQuery};
use crate::validate_only::{self, ValidateOnly};
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
    Ok(views::list_written(
        &page,
        |item| item.id.as_uuid(),
        RunTaskListView::from,
    ))
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
    held: IfNoneMatch,
) -> Result<HttpResponse, ApiError> {
    let (run, task) = (params::run_id(&path.0)?, params::task_id(&path.1)?);
    let task = state.procflow().get_task(&caller.team, run, task).await?;
    Ok(held.answer_written(&task, RunTaskView::from))
}

/// `PATCH /process-runs/{id}/tasks/{task_id}` (spec 4.11): answers the full task.
#[utoipa::path(
    patch,
    path = "/api/v1/process-runs/{id}/tasks/{task_id}",
    tag = "tasks",
    operation_id = "updateRunTask",
    summary = "Update a run task",
    description = "Complete, reopen, skip, assign, decide and fill in form fields, several at once. When no task of the run is left open, the run becomes completed.",
    params(("id" = String, Path, format = "uuid", description = "The run's id"), ("task_id" = String, Path, format = "uuid", description = "The run task's id"), ValidateOnly),
    request_body = crate::bodies::UpdateTaskBody,
    responses((status = 200, description = "The task", body = crate::openapi::envelopes::RunTaskData))
)]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, String)>,
    IfMatchHeader(if_match): IfMatchHeader,
    query: web::Query<ValidateOnly>,
    Body(body): Body<UpdateTaskBody>,
    clearance: CallerClearance,
) -> Result<HttpResponse, ApiError> {
    let dry = query.dry()?;
    let (run, task) = (params::run_id(&path.0)?, params::task_id(&path.1)?);
    let request = UpdateTask {
        if_match,
        ..body.into_request()?
    };
    // The caller may still be under admission: the store writes once it is admitted.
    let change = ValidateOnly::service(dry, &state)
        .update_task_cleared(&caller.team, run, task, request, &*clearance)
        .await?;
    if !change.missing_required.is_empty() {
        tracing::info!(
            run.id = %run,
            task.id = %task,
            missing_required = change.missing_required.len(),
            "task completed with required fields empty"
        );
    }
    Ok(validate_only::answer(
        conditional::tagged_written(&change.task, RunTaskView::from),
        dry,
    ))
}

/// `PATCH /process-runs/{id}/tasks`: several tasks at once, all or nothing (API contract 11).
#[utoipa::path(
    patch,
    path = "/api/v1/process-runs/{id}/tasks",
    tag = "tasks",
    operation_id = "updateRunTasks",
    summary = "Update several tasks of a run",
    description = "Each item is a task's `id` with the fields of a single task update, validated as that update is. All items apply, in one transaction under one lock of the run, or none does; each task raises the events its single update would, and a batch that closes the run's last open task completes the run once. Answers the tasks in the order given. Counts as one request against the rate limit.",
    params(("id" = String, Path, format = "uuid", description = "The run's id"), ValidateOnly),
    request_body = crate::bodies::UpdateTasksBody,
    responses((status = 200, description = "The tasks, in the order given", body = crate::openapi::envelopes::RunTaskBatch))
)]
pub async fn update_many(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    IfMatchHeader(if_match): IfMatchHeader,
    query: web::Query<ValidateOnly>,
    Body(body): Body<UpdateTasksBody>,
) -> Result<HttpResponse, ApiError> {
    let dry = query.dry()?;
    let run = params::run_id(&id)?;
    let request = UpdateTasks {
        if_match,
        ..body.into_request()?
    };
    let change = ValidateOnly::service(dry, &state)
        .update_tasks(&caller.team, run, request)
        .await?;
    if !change.missing_required.is_empty() {
        tracing::info!(
            run.id = %run,
            tasks = change.tasks.len(),
            missing_required = change.missing_required.len(),
            "tasks completed with required fields empty"
        );
    }
    let views: Vec<RunTaskView<'_>> = change.tasks.iter().map(RunTaskView::from).collect();
    Ok(validate_only::answer(views::data(views), dry))
}
