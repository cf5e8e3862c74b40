//! `/api/v1/process-runs/{id}/tasks/{task_id}/attachments` and `/api/v1/attachments/{id}`
//! (API contract 14.2): files attached to a task. Every id is the caller team's.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use procflow_domain::actor::Actor;
use procflow_domain::service::Upload;

use crate::AppState;
use crate::auth::Caller;
use crate::error::ApiError;
use crate::params::{self, PageQuery};
use crate::upload;
use crate::views::{self, AttachmentView};

/// The multipart body of an upload, for the document.
#[derive(utoipa::ToSchema)]
#[schema(as = UploadAttachment)]
#[expect(
    dead_code,
    reason = "describes the multipart body; the handler streams it"
)]
pub struct UploadBody {
    /// The file's bytes; the part's `filename` is kept for display, its `Content-Type` as
    /// declared.
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
}

/// `POST /process-runs/{id}/tasks/{task_id}/attachments`
#[utoipa::path(
    post,
    path = "/api/v1/process-runs/{id}/tasks/{task_id}/attachments",
    tag = "attachments",
    operation_id = "uploadTaskAttachment",
    summary = "Attach a file to a task",
    description = "`multipart/form-data` with one part named `file` (other parts are ignored; a part whose headers cannot be read, such as a name with control characters, is 400). The file is streamed to storage, at most `PROCFLOW_UPLOAD_MAX_BYTES` (25 MiB by default): larger is 413, answered as soon as the declared `Content-Length` or the bytes read pass it. Its filename is kept for display only (path parts and control characters removed). Allowed on completed runs; a task hidden by a rule refuses it (409 `task_hidden`). Raises `task.attachment_added`. With `Idempotency-Key`, a retry is read again (its bytes dropped) and replays the first answer only when its file has the SHA-256 of the attachment first stored; another file is 422 `idempotency_key_reused`.",
    params(("id" = String, Path, format = "uuid", description = "The run's id"), ("task_id" = String, Path, format = "uuid", description = "The run task's id")),
    request_body(content = UploadBody, content_type = "multipart/form-data"),
    responses((status = 201, description = "The attachment", body = crate::openapi::envelopes::AttachmentData))
)]
pub async fn upload(
    state: web::Data<AppState>,
    caller: Caller,
    request: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let max = state.config.upload_max_bytes;
    upload::check_head(&request, max)?;
    let (run, task) = (params::run_id(&path.0)?, params::task_id(&path.1)?);
    let mut part = upload::file_part(&request, payload).await?;
    let details = Upload {
        filename: part.filename.take(),
        content_type: part.content_type.take(),
        uploaded_by: Actor::Api,
        uploader_email: None,
    };
    let attachments = state.attachments();
    let team = &caller.team;
    let stored = upload::stream(part, max, |mut source| async move {
        attachments
            .upload(team, run, task, details, &mut source)
            .await
    })
    .await;
    match stored {
        Ok(attachment) => Ok(views::with_status(
            StatusCode::CREATED,
            AttachmentView::from(&attachment),
        )),
        Err(upload::Unstored::TooLarge) => Err(upload::too_large(max)),
        Err(upload::Unstored::Refused(error)) => Err(error.into()),
    }
}

/// `GET /process-runs/{id}/tasks/{task_id}/attachments`
#[utoipa::path(
    get,
    path = "/api/v1/process-runs/{id}/tasks/{task_id}/attachments",
    tag = "attachments",
    operation_id = "listTaskAttachments",
    summary = "List a task's attachments",
    description = "Oldest first.",
    params(("id" = String, Path, format = "uuid", description = "The run's id"), ("task_id" = String, Path, format = "uuid", description = "The run task's id"), PageQuery),
    responses((status = 200, description = "A page of attachments", body = crate::openapi::envelopes::AttachmentList))
)]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, String)>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let (run, task) = (params::run_id(&path.0)?, params::task_id(&path.1)?);
    let page = state
        .attachments()
        .list(&caller.team, run, task, query.page()?)
        .await?;
    Ok(views::list(
        &page,
        |item| item.id.as_uuid(),
        AttachmentView::from,
    ))
}

/// `DELETE /attachments/{id}`
#[utoipa::path(
    delete,
    path = "/api/v1/attachments/{id}",
    tag = "attachments",
    operation_id = "deleteAttachment",
    summary = "Delete an attachment",
    description = "Its row and its bytes; comments that showed it no longer do.",
    params(("id" = String, Path, format = "uuid", description = "The attachment's id")),
    responses((status = 204, description = "Deleted"))
)]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = params::attachment_id(&id)?;
    state.attachments().delete(caller.team.id, id).await?;
    Ok(HttpResponse::NoContent().finish())
}
