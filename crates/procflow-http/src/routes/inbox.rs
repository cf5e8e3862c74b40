//! `/api/v1/tasks`: the inbox, tasks across the team's runs (API contract 15.1).

use actix_web::{HttpResponse, web};

use crate::AppState;
use crate::auth::Caller;
use crate::error::ApiError;
use crate::params::{InboxParams, InboxQuery};
use crate::views::{self, InboxTaskView};

/// `GET /tasks`.
#[utoipa::path(
    get,
    path = "/api/v1/tasks",
    tag = "tasks",
    operation_id = "listTasks",
    summary = "List tasks across runs (the inbox)",
    description = "The team's run tasks across its runs, by due date (tasks without one last) then id; each is a run task as Get a task answers it, with `run: {id, title}`. By default the open tasks of active runs; hidden tasks never appear. `overdue` is judged at the moment of the request. A page costs the same however many runs the team has.",
    params(InboxQuery),
    responses((status = 200, description = "A page of tasks", body = crate::openapi::envelopes::InboxTaskList))
)]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<InboxQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = state
        .procflow()
        .list_inbox(&caller.team, query.filter()?, query.page()?)
        .await?;
    Ok(views::list_written(
        &page,
        |item| item.task.id.as_uuid(),
        InboxTaskView::from,
    ))
}
