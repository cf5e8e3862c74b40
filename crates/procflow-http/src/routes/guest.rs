//! The guest page (API contract 7.1): `GET /instance/{run_id}?token=...` shows the shared run,
//! `POST /instance/{run_id}/tasks/{task_id}?token=...` applies one task's form. HTML only, no
//! JavaScript; a wrong or void token, an unknown or unshared run, a malformed id or an odd
//! query string all get the same 404 page.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use futures_util::StreamExt as _;
use procflow_domain::error::DomainError;
use procflow_domain::ids::{RunId, TaskId};
use procflow_domain::service::GuestPost;
use procflow_domain::values::ShareToken;

use crate::AppState;
use crate::guest::{self, Link, PageView};

/// The shared run, or the 404 page.
#[utoipa::path(
    get,
    path = "/instance/{run_id}",
    tag = "guest",
    operation_id = "guestPage",
    summary = "The shared run, for a guest",
    description = "An HTML page (no JavaScript) of the run's title, status, progress, sections and tasks, with a form on each task the guest may act on (unassigned, or assigned to the invited email), and on every visible task its files and comments (oldest first) and a comment form; the tasks the guest may act on have an upload form of their own. Opening it records the guest's first engagement.",
    params(
        ("run_id" = String, Path, description = "The run's id"),
        ("token" = String, Query, description = "The share token of the link"),
    ),
    responses(
        (status = 200, description = "The run's page", content_type = "text/html", body = String),
        (status = 403, description = "A right link to a run whose team has no active subscription: a page saying the run is not available now", content_type = "text/html", body = String),
        (status = 404, description = "The same page for a wrong or void token, an unknown run, a run no longer shared, a malformed id or query string", content_type = "text/html", body = String),
        (status = 500, description = "An unexpected failure, as an HTML page; details go to the log", content_type = "text/html", body = String),
        (status = 503, description = "The database does not answer, as an HTML page", content_type = "text/html", body = String,
            headers(("Retry-After" = u32, description = "Seconds to wait before retrying"))),
    )
)]
pub async fn page(
    state: web::Data<AppState>,
    request: HttpRequest,
    run_id: web::Path<String>,
) -> HttpResponse {
    let (Some(token), Ok(run)) = (
        guest::query_token(request.query_string()),
        run_id.parse::<RunId>(),
    ) else {
        return guest::not_found();
    };
    match state.procflow().open_shared_run(run, &token).await {
        Ok(shared) => {
            let link = Link::from_page(run, token.expose());
            let threads = match state.comments().guest_threads(&shared).await {
                Ok(threads) => threads,
                Err(error) => return guest::refusal(error, None),
            };
            let files = match state.attachments().guest_files(&shared).await {
                Ok(files) => files,
                Err(error) => return guest::refusal(error, None),
            };
            let page = PageView::new(&shared, &link, state.procflow().now(), None)
                .with_comments(&threads, None)
                .with_attachments(&files, state.config.upload_max_bytes);
            guest::html(StatusCode::OK, &page)
        }
        Err(error) => guest::refusal(error, None),
    }
}

/// Applies one task's form, then back to the page (post-redirect-get).
#[utoipa::path(
    post,
    path = "/instance/{run_id}/tasks/{task_id}",
    tag = "guest",
    operation_id = "guestPostTask",
    summary = "A guest's form on one task",
    description = "What a task's form on the guest page posts: `action` (the button: save, complete, reopen, approve or reject), `el-<element id>` per input (an empty field is null, an unchecked checkbox false, one `el-` field per checked option of a multichoice) and, on approval tasks, `comment`. Applied through the same use case as the API, as the guest (`completed_by: guest`). Rate-limited per run and per client address.",
    params(
        ("run_id" = String, Path, description = "The run's id"),
        ("task_id" = String, Path, description = "The task's id"),
        ("token" = String, Query, description = "The share token of the link"),
    ),
    request_body(content = String, content_type = "application/x-www-form-urlencoded", description = "The task's form, as a browser sends it"),
    responses(
        (status = 303, description = "Applied: back to the run's page, at the task",
            headers(("Location" = String, description = "The run's page at the task, relative to this address"))),
        (status = 400, description = "A value refused: the page again, with what was sent kept and each refusal beside its field; nothing was stored. Or a form that cannot be read", content_type = "text/html", body = String),
        (status = 403, description = "The task is assigned to someone else, or the run's team has no active subscription: nothing was changed", content_type = "text/html", body = String),
        (status = 404, description = "The same page for a wrong or void token, an unknown run or task, a task of another run, a malformed id or query string", content_type = "text/html", body = String),
        (status = 409, description = "The run is completed, or the task does not take this action in its current state (a decision on a task that is no approval, a reopen of an open task): nothing was changed", content_type = "text/html", body = String),
        (status = 408, description = "The body did not arrive within its time limit (30 s by default)", content_type = "text/html", body = String),
        (status = 413, description = "The body is over the limit (1 MiB by default)", content_type = "text/html", body = String),
        (status = 415, description = "The body is not a web form (`application/x-www-form-urlencoded`)", content_type = "text/html", body = String),
        (status = 429, description = "Over the post limits of the run or of the client address", content_type = "text/html", body = String,
            headers(("Retry-After" = u32, description = "Seconds to wait before retrying"))),
        (status = 500, description = "An unexpected failure, as an HTML page; details go to the log", content_type = "text/html", body = String),
        (status = 503, description = "The database does not answer, as an HTML page", content_type = "text/html", body = String,
            headers(("Retry-After" = u32, description = "Seconds to wait before retrying"))),
    )
)]
pub async fn post_task(
    state: web::Data<AppState>,
    request: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> HttpResponse {
    let Some((token, run, task)) = guest::address::<TaskId>(request.query_string(), &path) else {
        return guest::not_found();
    };
    let link = Link::from_task(run, token.expose());
    let body = match admitted_body(&state, &request, payload, (run, &token, task), &link).await {
        Ok(body) => body,
        Err(answer) => return answer,
    };
    let Ok(posted) = guest::read_form(&body) else {
        return guest::unreadable(StatusCode::BAD_REQUEST, link.at_task(task));
    };
    let form = match posted.to_guest_form() {
        Ok(form) => form,
        Err(errors) => {
            return guest::refused_post(&state, (run, &token, task), &posted, &errors).await;
        }
    };
    match state
        .procflow()
        .post_as_guest(run, &token, task, &form)
        .await
    {
        Ok(GuestPost::Applied(change)) => {
            tracing::info!(
                run.id = %run,
                task.id = %task,
                guest.action = form.intent.as_str(),
                run.completed = change.run.is_completed(),
                "guest post applied"
            );
            guest::see_task(&link, task)
        }
        Ok(GuestPost::Invalid(errors)) => {
            guest::refused_post(&state, (run, &token, task), &posted, &errors).await
        }
        Err(error) => guest::refusal(error, Some(link.at_task(task))),
    }
}

/// Writes the guest's comment on a task, then back to the page at the comment
/// (post-redirect-get).
#[utoipa::path(
    post,
    path = "/instance/{run_id}/tasks/{task_id}/comments",
    tag = "guest",
    operation_id = "guestPostComment",
    summary = "A guest's comment on one task",
    description = "What a task's comment form on the guest page posts: `text`, plain text (a textarea's CRLF line breaks are stored as `\\n`). Any visible task takes one, the guest's or not, on a completed run too. Written through the same use case as `POST /api/v1/process-runs/{id}/tasks/{task_id}/comments`, as the guest (`author.is_guest: true`, with the invited email): the same `task.comment_created` event and emails. Rate-limited per run and per client address, with the task forms' posts.",
    params(
        ("run_id" = String, Path, description = "The run's id"),
        ("task_id" = String, Path, description = "The task's id"),
        ("token" = String, Query, description = "The share token of the link"),
    ),
    request_body(content = String, content_type = "application/x-www-form-urlencoded", description = "The comment form, as a browser sends it"),
    responses(
        (status = 303, description = "Written: back to the run's page, at the new comment",
            headers(("Location" = String, description = "The run's page at the comment, relative to this address"))),
        (status = 400, description = "A text refused (blank, over 10,000 characters): the page again, with the text kept and the refusal beside it; nothing was written. Or a form that cannot be read", content_type = "text/html", body = String),
        (status = 403, description = "The run's team has no active subscription: nothing was written", content_type = "text/html", body = String),
        (status = 404, description = "The same page for a wrong or void token, an unknown run or task, a task of another run, a malformed id or query string", content_type = "text/html", body = String),
        (status = 409, description = "The task is hidden by a rule: nothing was written", content_type = "text/html", body = String),
        (status = 408, description = "The body did not arrive within its time limit (30 s by default)", content_type = "text/html", body = String),
        (status = 413, description = "The body is over the limit (1 MiB by default)", content_type = "text/html", body = String),
        (status = 415, description = "The body is not a web form (`application/x-www-form-urlencoded`)", content_type = "text/html", body = String),
        (status = 429, description = "Over the post limits of the run or of the client address", content_type = "text/html", body = String,
            headers(("Retry-After" = u32, description = "Seconds to wait before retrying"))),
        (status = 500, description = "An unexpected failure, as an HTML page; details go to the log", content_type = "text/html", body = String),
        (status = 503, description = "The database does not answer, as an HTML page", content_type = "text/html", body = String,
            headers(("Retry-After" = u32, description = "Seconds to wait before retrying"))),
    )
)]
pub async fn post_comment(
    state: web::Data<AppState>,
    request: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> HttpResponse {
    let Some((token, run, task)) = guest::address::<TaskId>(request.query_string(), &path) else {
        return guest::not_found();
    };
    // The same gate as a task's form: limits, then a readable form body.
    let link = Link::from_comment(run, token.expose());
    let body = match admitted_body(&state, &request, payload, (run, &token, task), &link).await {
        Ok(body) => body,
        Err(answer) => return answer,
    };
    let Ok(posted) = guest::read_comment(&body) else {
        return guest::unreadable(StatusCode::BAD_REQUEST, link.at_task(task));
    };
    if let Some(refusal) = posted.refusal {
        let at = (run, &token, task);
        return guest::refused_comment(&state, at, &posted.text, refusal.to_owned()).await;
    }
    match state
        .comments()
        .add_as_guest(run, &token, task, &posted.text)
        .await
    {
        Ok(comment) => {
            tracing::info!(
                run.id = %run,
                task.id = %task,
                comment.id = %comment.id,
                "guest comment written"
            );
            guest::see_comment(&link, comment.id)
        }
        Err(DomainError::Validation(error)) => {
            let message = guest::comment_message(&error);
            guest::refused_comment(&state, (run, &token, task), &posted.text, message).await
        }
        Err(error) => guest::refusal(error, Some(link.at_task(task))),
    }
}

/// A task's address opened as a page (a refused post's address, bookmarked or reloaded): the
/// run's page at that task.
#[utoipa::path(
    get,
    path = "/instance/{run_id}/tasks/{task_id}",
    tag = "guest",
    operation_id = "guestTaskPage",
    summary = "A task's address, opened as a page",
    description = "Sends the browser to the run's page at the task (the address of a refused post, reloaded or bookmarked).",
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
pub async fn task_page(request: HttpRequest, path: web::Path<(String, String)>) -> HttpResponse {
    guest::task_at(request.query_string(), &path, Link::from_task)
}

/// A comment post's address opened as a page (a refused comment's address, bookmarked or
/// reloaded): the run's page at that task.
#[utoipa::path(
    get,
    path = "/instance/{run_id}/tasks/{task_id}/comments",
    tag = "guest",
    operation_id = "guestCommentsPage",
    summary = "A task's comment address, opened as a page",
    description = "Sends the browser to the run's page at the task (the address of a refused comment, reloaded or bookmarked).",
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
pub async fn comments_page(
    request: HttpRequest,
    path: web::Path<(String, String)>,
) -> HttpResponse {
    guest::task_at(request.query_string(), &path, Link::from_comment)
}

/// What every guest form post passes before its fields are read: the post limits of the run
/// and of the client address, then a web form body within its size and time limits. `Err` is
/// the page that answers instead, pointing back at the task.
async fn admitted_body(
    state: &AppState,
    request: &HttpRequest,
    payload: web::Payload,
    (run, token, task): (RunId, &ShareToken, TaskId),
    link: &Link,
) -> Result<Vec<u8>, HttpResponse> {
    admit(state, request, (run, token, task), link).await?;
    if !is_form(request) {
        return Err(guest::unreadable(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            link.at_task(task),
        ));
    }
    read_body(payload, state.config.body_limit_bytes)
        .await
        .map_err(|status| {
            // A body the transport guard ended says why: too slow (408) or malformed.
            let status =
                crate::transport::body_fault(request).map_or(status, |fault| fault.status());
            guest::unreadable(status, link.at_task(task))
        })
}

/// Counts one guest post against the post limits of the run and of the client address; `Err`
/// is the 429 page (or the refusal of a store that failed), pointing back at the task.
pub(super) async fn admit(
    state: &AppState,
    request: &HttpRequest,
    (run, token, task): (RunId, &ShareToken, TaskId),
    link: &Link,
) -> Result<(), HttpResponse> {
    let client = request.peer_addr().map(|address| address.ip());
    match guest::admit_post(state, run, token, client).await {
        Ok(decision) if decision.allowed => Ok(()),
        Ok(decision) => Err(guest::too_many(
            &decision,
            state.procflow().now(),
            link.at_task(task),
        )),
        Err(error) => Err(guest::refusal(error, None)),
    }
}

/// Whether the body is declared a web form (`application/x-www-form-urlencoded`, any
/// parameters).
pub(super) fn is_form(request: &HttpRequest) -> bool {
    crate::media_type::declares(request.headers(), "application/x-www-form-urlencoded")
}

/// The whole body, refused past `limit` bytes (413) or when the connection fails (400).
pub(super) async fn read_body(
    mut payload: web::Payload,
    limit: usize,
) -> Result<Vec<u8>, StatusCode> {
    let mut body = Vec::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|_| StatusCode::BAD_REQUEST)?;
        if body.len() + chunk.len() > limit {
            return Err(StatusCode::PAYLOAD_TOO_LARGE);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
