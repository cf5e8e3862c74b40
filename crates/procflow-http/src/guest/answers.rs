//! The answers of the guest routes to each outcome: the page, the redirect after a post, the
//! page again with the refusals, and a message page for every refusal.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header;
use procflow_domain::error::{DomainError, StoreError};
use procflow_domain::guest::FieldError;
use procflow_domain::ids::{CommentId, RunId, TaskId};
use procflow_domain::ports::RateDecision;
use procflow_domain::values::ShareToken;
use time::OffsetDateTime;

use super::form::PostedForm;
use super::messages::Message;
use super::page::{CommentDraft, Link, PageView, Posted};
use super::respond::{address, html};
use crate::AppState;

/// The one 404 page.
pub(crate) fn not_found() -> HttpResponse {
    html(StatusCode::NOT_FOUND, &Message::not_found())
}

/// The page of a use case's refusal; `back` links to the run where it helps.
pub(crate) fn refusal(error: DomainError, back: Option<String>) -> HttpResponse {
    match error {
        DomainError::NotFound(_) => not_found(),
        DomainError::NotGuestsTask => html(StatusCode::FORBIDDEN, &Message::not_yours(back)),
        DomainError::SubscriptionInactive => html(StatusCode::FORBIDDEN, &Message::not_available()),
        DomainError::RunCompleted => html(StatusCode::CONFLICT, &Message::run_completed(back)),
        DomainError::TaskHidden { .. } => html(StatusCode::CONFLICT, &Message::task_hidden(back)),
        DomainError::TaskBlocked { waiting_for, .. } => html(
            StatusCode::CONFLICT,
            &Message::task_blocked(&waiting_for, back),
        ),
        // The page offers the buttons the task takes when it is rendered: one it does not take
        // now (a reopen of an open task, a decision on a task that takes none) conflicts with
        // its current state.
        DomainError::Validation(_) => html(StatusCode::CONFLICT, &Message::refused(back)),
        DomainError::Store(StoreError::Unavailable(cause)) => {
            tracing::warn!(error.cause = %cause, "store unavailable");
            let mut response = html(StatusCode::SERVICE_UNAVAILABLE, &Message::unavailable());
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("5"));
            response
        }
        other => {
            tracing::error!(error.cause = %other, "guest page failure");
            html(StatusCode::INTERNAL_SERVER_ERROR, &Message::failed())
        }
    }
}

/// 303 to the run's page at the task: reloading the page then asks for nothing again.
pub(crate) fn see_task(link: &Link, task: TaskId) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, link.at_task(task)))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .finish()
}

/// A form's address opened as a page (a refused post's address, reloaded or bookmarked): 303
/// to the run's page at its task, or the 404 page for a malformed address. `link` makes the
/// links of the form's address (the `Location` is relative to it).
pub(crate) fn task_at(
    query: &str,
    path: &(String, String),
    link: fn(RunId, &str) -> Link,
) -> HttpResponse {
    match address::<TaskId>(query, path) {
        Some((token, run, task)) => see_task(&link(run, token.expose()), task),
        None => not_found(),
    }
}

/// 303 to the run's page at a comment just written.
pub(crate) fn see_comment(link: &Link, comment: CommentId) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, link.at_comment(comment)))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .finish()
}

/// 429 with `Retry-After`: whole seconds until every limit has room again (at least 1).
pub(crate) fn too_many(decision: &RateDecision, now: OffsetDateTime, back: String) -> HttpResponse {
    let wait = (decision.reset_at - now).whole_seconds().max(0) + 1;
    let mut response = html(
        StatusCode::TOO_MANY_REQUESTS,
        &Message::too_many(Some(back)),
    );
    if let Ok(value) = header::HeaderValue::from_str(&wait.to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

/// What a refused post is answered with: the page, status 400, with what the guest sent kept
/// and each refusal beside its field; or the refusal that comes first (a wrong link, someone
/// else's task, a completed run).
pub(crate) async fn refused_post(
    state: &AppState,
    (run, token, task): (RunId, &ShareToken, TaskId),
    posted: &PostedForm,
    errors: &[FieldError],
) -> HttpResponse {
    let link = Link::from_task(run, token.expose());
    let shared = match state.procflow().open_shared_run(run, token).await {
        Ok(shared) => shared,
        Err(error) => return refusal(error, Some(link.at_task(task))),
    };
    let Some(current) = shared.tasks.iter().find(|t| t.id == task) else {
        return not_found();
    };
    if shared.run.is_completed() {
        return refusal(DomainError::RunCompleted, Some(link.at_task(task)));
    }
    if !shared.may_act(current) {
        return refusal(DomainError::NotGuestsTask, Some(link.at_task(task)));
    }
    let threads = match state.comments().guest_threads(&shared).await {
        Ok(threads) => threads,
        Err(error) => return refusal(error, Some(link.at_task(task))),
    };
    let files = match state.attachments().guest_files(&shared).await {
        Ok(files) => files,
        Err(error) => return refusal(error, Some(link.at_task(task))),
    };
    let posted = Posted {
        task,
        form: posted,
        errors,
    };
    let page = PageView::new(&shared, &link, state.procflow().now(), Some(&posted))
        .with_comments(&threads, None)
        .with_attachments(&files, state.config.upload_max_bytes);
    html(StatusCode::BAD_REQUEST, &page)
}

/// What a refused comment is answered with: the page, status 400, with the text kept in the
/// task's comment form and the refusal beside it; or the refusal that comes first (a wrong
/// link, a task of another run, a hidden task).
pub(crate) async fn refused_comment(
    state: &AppState,
    (run, token, task): (RunId, &ShareToken, TaskId),
    text: &str,
    error: String,
) -> HttpResponse {
    let link = Link::from_comment(run, token.expose());
    let shared = match state.procflow().open_shared_run(run, token).await {
        Ok(shared) => shared,
        Err(error) => return refusal(error, Some(link.at_task(task))),
    };
    let Some(current) = shared.tasks.iter().find(|t| t.id == task) else {
        return not_found();
    };
    if current.hidden {
        let hidden = DomainError::TaskHidden {
            task: current.name(),
            item: None,
        };
        return refusal(hidden, Some(link.page()));
    }
    let threads = match state.comments().guest_threads(&shared).await {
        Ok(threads) => threads,
        Err(error) => return refusal(error, Some(link.at_task(task))),
    };
    let files = match state.attachments().guest_files(&shared).await {
        Ok(files) => files,
        Err(error) => return refusal(error, Some(link.at_task(task))),
    };
    let draft = CommentDraft { task, text, error };
    let page = PageView::new(&shared, &link, state.procflow().now(), None)
        .with_comments(&threads, Some(&draft))
        .with_attachments(&files, state.config.upload_max_bytes);
    html(StatusCode::BAD_REQUEST, &page)
}

/// The page for an upload refused before it reached the use case: no file (400), over the
/// size limit (413, with the limit), or a body the transport ended (408); `back` links to the
/// task.
pub(crate) fn refused_upload(status: StatusCode, max_bytes: u64, back: String) -> HttpResponse {
    let message = match status {
        StatusCode::PAYLOAD_TOO_LARGE => {
            Message::file_too_large(&super::page::human_size(max_bytes), Some(back))
        }
        StatusCode::BAD_REQUEST => Message::no_file(Some(back)),
        _ => Message::unreadable(Some(back)),
    };
    html(status, &message)
}

/// The page for an unreadable body (415, 413 or 400) with a link back.
pub(crate) fn unreadable(status: StatusCode, back: String) -> HttpResponse {
    let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
        Message::too_large(Some(back))
    } else {
        Message::unreadable(Some(back))
    };
    html(status, &message)
}
