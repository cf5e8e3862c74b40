//! Answers: the views of `procflow-wire` (one per resource shape of spec 2, shared with the
//! client) in the envelopes of spec 2.1, as actix responses.

pub use procflow_wire::views::{
    CreatedRunView, DeliveryView, ElementView, RunTaskListView, RunTaskView, RunView,
    ShareResultView, TemplateListView, TemplateTaskView, TemplateView, WebhookView,
    WebhookWithSecretView,
};
pub use procflow_wire::{Data, List, Pagination};

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use procflow_domain::values::Page;
use serde::Serialize;

/// 200 with `{ "data": view }`.
pub fn data<T: Serialize>(view: T) -> HttpResponse {
    with_status(StatusCode::OK, view)
}

/// `status` with `{ "data": view }`.
pub fn with_status<T: Serialize>(status: StatusCode, view: T) -> HttpResponse {
    HttpResponse::build(status).json(Data { data: view })
}

/// 200 with a list envelope made from a page, each item through `view`.
pub fn list<'a, T: 'a, V: Serialize>(page: &'a Page<T>, view: impl Fn(&'a T) -> V) -> HttpResponse {
    HttpResponse::Ok().json(List {
        data: page.items.iter().map(view).collect(),
        pagination: Pagination {
            next_cursor: page.next_cursor.map(|c| c.to_string()),
            has_more: page.has_more,
        },
    })
}
