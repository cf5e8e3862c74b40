//! `/api/v1/process-runs/{id}/tasks`: list, get and update a run's tasks.

use actix_web::{HttpResponse, web};

use crate::AppState;
use crate::auth::Caller;
use crate::bodies::{Body, UpdateTaskBody};
use crate::error::ApiError;
use crate::params::{self, PageQuery};
use crate::views::{self, RunTaskListView, RunTaskView};

/// `GET /process-runs/{id}/tasks` (spec 4.9).
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
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, String)>,
    Body(body): Body<UpdateTaskBody>,
) -> Result<HttpResponse, ApiError> {
    let (run, task) = (params::run_id(&path.0)?, params::task_id(&path.1)?);
    let change = state
        .procflow()
        .update_task(&caller.team, run, task, body.into())
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
