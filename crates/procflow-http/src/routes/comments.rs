//! `/api/v1/process-runs/{id}/tasks/{task_id}/comments` and `/api/v1/comments/{id}` (API
//! contract 14.1): a task's thread. Every id is the caller team's.

use actix_web::{HttpResponse, web};

use crate::AppState;
use crate::auth::Caller;
use crate::bodies::{Body, CreateCommentBody, IntoRequest, UpdateCommentBody};
use crate::conditional::{self, IfMatchHeader};
use crate::error::ApiError;
use crate::params::{self, PageQuery};
use crate::views::{self, CommentView};

/// `GET /process-runs/{id}/tasks/{task_id}/comments`
#[utoipa::path(
    get,
    path = "/api/v1/process-runs/{id}/tasks/{task_id}/comments",
    tag = "comments",
    operation_id = "listTaskComments",
    summary = "List a task's comments",
    description = "Oldest first; deleted comments keep their place, without their text.",
    params(("id" = String, Path, format = "uuid", description = "The run's id"), ("task_id" = String, Path, format = "uuid", description = "The run task's id"), PageQuery),
    responses((status = 200, description = "A page of comments", body = crate::openapi::envelopes::CommentList))
)]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, String)>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let (run, task) = (params::run_id(&path.0)?, params::task_id(&path.1)?);
    let page = state
        .comments()
        .list(&caller.team, run, task, query.page()?)
        .await?;
    Ok(views::list_written(
        &page,
        |item| item.id.as_uuid(),
        CommentView::from,
    ))
}

/// `POST /process-runs/{id}/tasks/{task_id}/comments`
#[utoipa::path(
    post,
    path = "/api/v1/process-runs/{id}/tasks/{task_id}/comments",
    tag = "comments",
    operation_id = "createTaskComment",
    summary = "Comment on a task",
    description = "Plain text; `@<email>` of an active member mentions them. Allowed on completed runs; a task hidden by a rule refuses it (409 `task_hidden`). Raises `task.comment_created` and emails the task's assignee and the members mentioned (not the author; the guest with their share link).",
    params(("id" = String, Path, format = "uuid", description = "The run's id"), ("task_id" = String, Path, format = "uuid", description = "The run task's id")),
    request_body = crate::bodies::CreateCommentBody,
    responses((status = 201, description = "The comment, with its `ETag` for an edit's `If-Match` (absent on an answer replayed for a repeated `Idempotency-Key`)", body = crate::openapi::envelopes::CommentData, headers(("ETag" = String, description = "The comment's entity tag"))))
)]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, String)>,
    Body(body): Body<CreateCommentBody>,
) -> Result<HttpResponse, ApiError> {
    let (run, task) = (params::run_id(&path.0)?, params::task_id(&path.1)?);
    let comment = state
        .comments()
        .add(&caller.team, run, task, body.into_request()?)
        .await?;
    Ok(conditional::created(&comment, CommentView::from))
}

/// `PATCH /comments/{id}`
#[utoipa::path(
    patch,
    path = "/api/v1/comments/{id}",
    tag = "comments",
    operation_id = "updateComment",
    summary = "Edit a comment",
    description = "Replaces its text (and so its mentions, which are not emailed again), under `If-Match` with the `ETag` of the create or of the last edit. A deleted comment cannot be edited (409 `conflict`).",
    params(("id" = String, Path, format = "uuid", description = "The comment's id")),
    request_body = crate::bodies::UpdateCommentBody,
    responses((status = 200, description = "The comment", body = crate::openapi::envelopes::CommentData))
)]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    IfMatchHeader(if_match): IfMatchHeader,
    Body(body): Body<UpdateCommentBody>,
) -> Result<HttpResponse, ApiError> {
    let id = params::comment_id(&id)?;
    let text = body.into_request()?;
    let comment = state
        .comments()
        .edit(&caller.team, id, &text, if_match.as_ref())
        .await?;
    Ok(conditional::tagged(&comment, CommentView::from))
}

/// `DELETE /comments/{id}`
#[utoipa::path(
    delete,
    path = "/api/v1/comments/{id}",
    tag = "comments",
    operation_id = "deleteComment",
    summary = "Delete a comment",
    description = "It stays in its thread as deleted, its text gone. Deleting it again answers 204 too.",
    params(("id" = String, Path, format = "uuid", description = "The comment's id")),
    responses((status = 204, description = "Deleted"))
)]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = params::comment_id(&id)?;
    state.comments().delete(&caller.team, id).await?;
    Ok(HttpResponse::NoContent().finish())
}
