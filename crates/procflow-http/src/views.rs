//! Response bodies: the envelopes of spec 2.1 and one view per resource shape of spec 2.

mod element;
mod run;
mod share;
mod task;
mod template;
mod webhook;

pub use element::ElementView;
pub use run::{CreatedRunView, RunView};
pub use share::ShareResultView;
pub use task::{RunTaskListView, RunTaskView, TemplateTaskView};
pub use template::{TemplateListView, TemplateView};
pub use webhook::{DeliveryView, WebhookView, WebhookWithSecretView};

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use procflow_domain::values::Page;
use serde::Serialize;

/// `{ "data": <object> }`
#[derive(Serialize)]
pub struct Data<T> {
    /// The resource.
    pub data: T,
}

/// `{ "data": [...], "pagination": { "next_cursor", "has_more" } }`
#[derive(Serialize)]
pub struct List<T> {
    /// The page's items.
    pub data: Vec<T>,
    /// Where the next page starts.
    pub pagination: Pagination,
}

/// The pagination block of a list.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Pagination {
    /// The last item's id, to pass back as `cursor`; null on an empty page.
    #[schema(format = "uuid", required = true)]
    pub next_cursor: Option<String>,
    /// Whether more items follow.
    pub has_more: bool,
}

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
