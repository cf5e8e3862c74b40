//! The guest page's files (API contract 14.2, 7.1):
//! `POST /instance/{run_id}/tasks/{task_id}/attachments?token=...` takes the file of a task's
//! upload form, `GET /instance/{run_id}/attachments/{attachment_id}?token=...` serves one. The
//! upload goes through the API's streaming and use case; the download through its headers.
//!
//! An upload is a form of its own, not a part of the task's answer form: a refused answer
//! then never loses an upload, and an upload never applies half a form.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use procflow_domain::error::DomainError;
use procflow_domain::ids::{AttachmentId, TaskId};
use procflow_domain::service::GuestUpload;

use super::attachment_content::{self, Binary};
use super::attachments::UploadBody;
use super::guest::admit;
use crate::AppState;
use crate::guest::{self, Link};
use crate::upload::{self, Unstored};

/// Attaches the guest's file to a task, then back to the page at the task
/// (post-redirect-get).
#[utoipa::path(
    post,
    path = "/instance/{run_id}/tasks/{task_id}/attachments",
    tag = "guest",
    operation_id = "guestUploadAttachment",
    summary = "A guest's file on one task",
    description = "What a task's upload form on the guest page posts: `multipart/form-data` with one part named `file` carrying a filename (other parts are ignored). Taken on the tasks the guest may act on (unassigned, or assigned to the invited email) of an active run. Stored through the same use case as `POST /api/v1/process-runs/{id}/tasks/{task_id}/attachments`, as the guest (`uploaded_by.is_guest: true`, with the invited email): the same storage, `PROCFLOW_UPLOAD_MAX_BYTES` limit (25 MiB by default), filename sanitising and `task.attachment_added` event; the file is streamed, never held whole. Rate-limited per run and per client address, with the task forms' and comments' posts.",
    params(
        ("run_id" = String, Path, description = "The run's id"),
        ("task_id" = String, Path, description = "The task's id"),
        ("token" = String, Query, description = "The share token of the link"),
    ),
    request_body(content = UploadBody, content_type = "multipart/form-data", description = "The upload form, as a browser sends it"),
    responses(
        (status = 303, description = "Attached: back to the run's page, at the task",
            headers(("Location" = String, description = "The run's page at the task, relative to this address"))),
        (status = 400, description = "No file (no part named `file`, or one without a filename: the file input left empty), or a multipart body that cannot be read: a page saying so; nothing was stored", content_type = "text/html", body = String),
        (status = 403, description = "The task is assigned to someone else, or the run's team has no active subscription: nothing was stored", content_type = "text/html", body = String),
        (status = 404, description = "The same page for a wrong or void token, an unknown run or task, a task of another run, a malformed id or query string", content_type = "text/html", body = String),
        (status = 409, description = "The task is hidden by a rule, or the run is completed: nothing was stored", content_type = "text/html", body = String),
        (status = 408, description = "The body did not arrive within its time limit (30 s by default)", content_type = "text/html", body = String),
        (status = 413, description = "The file is over `PROCFLOW_UPLOAD_MAX_BYTES` (25 MiB by default): refused on a `Content-Length` over it (plus 64 KiB for the multipart envelope) before the body is read, else as soon as the file's bytes pass it; nothing was stored", content_type = "text/html", body = String),
        (status = 415, description = "The body is not `multipart/form-data`", content_type = "text/html", body = String),
        (status = 429, description = "Over the post limits of the run or of the client address", content_type = "text/html", body = String,
            headers(("Retry-After" = u32, description = "Seconds to wait before retrying"))),
        (status = 500, description = "An unexpected failure, as an HTML page; details go to the log", content_type = "text/html", body = String),
        (status = 503, description = "The database does not answer, as an HTML page", content_type = "text/html", body = String,
            headers(("Retry-After" = u32, description = "Seconds to wait before retrying"))),
    )
)]
pub async fn upload(
    state: web::Data<AppState>,
    request: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> HttpResponse {
    let Some((token, run, task)) = guest::address::<TaskId>(request.query_string(), &path) else {
        return guest::not_found();
    };
    let link = Link::from_upload(run, token.expose());
    let token = &token;
    let back = link.at_task(task);
    let max = state.config.upload_max_bytes;
    if let Err(answer) = admit(&state, &request, (run, token, task), &link).await {
        return answer;
    }
    if !upload::is_multipart(request.headers()) {
        return guest::unreadable(StatusCode::UNSUPPORTED_MEDIA_TYPE, back);
    }
    if upload::declared_too_large(&request, max) {
        return guest::refused_upload(StatusCode::PAYLOAD_TOO_LARGE, max, back);
    }
    let attachments = state.attachments();
    // No file (or none readable): the link is checked first, so that a wrong one is the 404
    // page whatever the body.
    let no_file =
        async |status: StatusCode| match attachments.guest_may_upload(run, token, task).await {
            Ok(_) => guest::refused_upload(body_status(&request, status), max, link.at_task(task)),
            Err(error) => guest::refusal(error, Some(link.at_task(task))),
        };
    let mut part = match upload::file_part(&request, payload).await {
        Ok(part) => part,
        Err(_) => return no_file(StatusCode::BAD_REQUEST).await,
    };
    if part.filename.as_deref().is_none_or(str::is_empty) {
        return no_file(StatusCode::BAD_REQUEST).await;
    }
    let details = GuestUpload {
        filename: part.filename.take(),
        content_type: part.content_type.take(),
    };
    let stored = upload::stream(part, max, |mut source| async move {
        attachments
            .upload_as_guest(run, token, task, details, &mut source)
            .await
    })
    .await;
    match stored {
        Ok(attachment) => {
            tracing::info!(
                run.id = %run,
                task.id = %task,
                attachment.id = %attachment.id,
                attachment.size = attachment.size,
                "guest attachment stored"
            );
            guest::see_task(&link, task)
        }
        Err(Unstored::TooLarge) => {
            guest::refused_upload(StatusCode::PAYLOAD_TOO_LARGE, max, link.at_task(task))
        }
        // The body failed on its way in (the client went away, or it was too slow).
        Err(Unstored::Refused(DomainError::Validation(_))) => guest::refused_upload(
            body_status(&request, StatusCode::BAD_REQUEST),
            max,
            link.at_task(task),
        ),
        Err(Unstored::Refused(error)) => guest::refusal(error, Some(link.at_task(task))),
    }
}

/// `status`, or what the transport guard says of a body it ended (408 for one too slow).
fn body_status(request: &HttpRequest, status: StatusCode) -> StatusCode {
    crate::transport::body_fault(request).map_or(status, |fault| fault.status())
}

/// An upload's address opened as a page (a refused upload's address, reloaded or
/// bookmarked): the run's page at that task, as the task's and the comments' addresses do.
#[utoipa::path(
    get,
    path = "/instance/{run_id}/tasks/{task_id}/attachments",
    tag = "guest",
    operation_id = "guestUploadPage",
    summary = "A task's upload address, opened as a page",
    description = "Sends the browser to the run's page at the task (the address of a refused upload, reloaded or bookmarked).",
    params(
        ("run_id" = String, Path, description = "The run's id"),
        ("task_id" = String, Path, description = "The task's id"),
        ("token" = String, Query, description = "The share token of the link"),
    ),
    responses(
        (status = 303, description = "The run's page at the task",
            headers(("Location" = String, description = "The run's page at the task, relative to this address"))),
        (status = 404, description = "The same page for a malformed id or query string", content_type = "text/html", body = String),
        (status = 500, description = "An unexpected failure, as an HTML page", content_type = "text/html", body = String),
    )
)]
pub async fn upload_page(request: HttpRequest, path: web::Path<(String, String)>) -> HttpResponse {
    guest::task_at(request.query_string(), &path, Link::from_upload)
}

/// One file of a visible task of the shared run, as a download.
#[utoipa::path(
    get,
    path = "/instance/{run_id}/attachments/{attachment_id}",
    tag = "guest",
    operation_id = "guestDownloadAttachment",
    summary = "A file of the shared run, for its guest",
    description = "The bytes of an attachment of a visible task of the shared run, streamed, with the headers of `GET /api/v1/attachments/{id}/content`: `Content-Disposition: attachment; filename*=UTF-8''...`, `X-Content-Type-Options: nosniff`, `Content-Security-Policy: sandbox`, and the stored content type only when it is PNG, JPEG, GIF, WebP, PDF or plain text, else `application/octet-stream`. Any other attachment (of another run or team, of a hidden task, deleted, none) is the same 404 page as a wrong link.",
    params(
        ("run_id" = String, Path, description = "The run's id"),
        ("attachment_id" = String, Path, description = "The attachment's id"),
        ("token" = String, Query, description = "The share token of the link"),
    ),
    responses(
        (status = 200, description = "The bytes, as one of the types of the safe list or as `application/octet-stream`", content(
            (Binary = "application/octet-stream"),
            (Binary = "image/png"),
            (Binary = "image/jpeg"),
            (Binary = "image/gif"),
            (Binary = "image/webp"),
            (Binary = "application/pdf"),
            (Binary = "text/plain"),
        ), headers(
            ("Content-Disposition" = String, description = "`attachment; filename*=UTF-8''<the filename, percent-encoded>`"),
            ("X-Content-Type-Options" = String, description = "`nosniff`"),
            ("Content-Security-Policy" = String, description = "`sandbox`"),
        )),
        (status = 403, description = "A right link to a run whose team has no active subscription: a page saying the run is not available now", content_type = "text/html", body = String),
        (status = 404, description = "The same page for a wrong or void token, an unknown or unshared run, an attachment that is not of a visible task of that run, a malformed id or query string", content_type = "text/html", body = String),
        (status = 500, description = "An unexpected failure, as an HTML page; details go to the log", content_type = "text/html", body = String),
        (status = 503, description = "The database does not answer, as an HTML page", content_type = "text/html", body = String,
            headers(("Retry-After" = u32, description = "Seconds to wait before retrying"))),
    )
)]
pub async fn download(
    state: web::Data<AppState>,
    request: HttpRequest,
    path: web::Path<(String, String)>,
) -> HttpResponse {
    let Some((token, run, id)) = guest::address::<AttachmentId>(request.query_string(), &path)
    else {
        return guest::not_found();
    };
    match state.attachments().guest_content(run, &token, id).await {
        Ok((attachment, bytes)) => attachment_content::respond(&attachment, bytes),
        Err(error) => guest::refusal(error, None),
    }
}
