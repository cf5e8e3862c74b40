//! Answers: the views of `procflow-wire` (one per resource shape of spec 2, shared with the
//! client) in the envelopes of spec 2.1, as actix responses.

pub use procflow_wire::views::{AttachmentView, CommentView};
pub use procflow_wire::views::{
    CreatedRunView, DeliveryView, ElementView, InboxTaskView, RunLinkView, RunTaskListView,
    RunTaskView, RunView, ScheduleView, ShareResultView, TemplateListView, TemplateTaskView,
    TemplateView, WebhookView, WebhookWithSecretView,
};
pub use procflow_wire::views::{WriteJson, write_json};
pub use procflow_wire::{Data, List, Pagination};

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use procflow_domain::values::{MAX_PAGE_BYTES, Page};
use serde::Serialize;
use uuid::Uuid;

/// 200 with `{ "data": view }`.
pub fn data<T: Serialize>(view: T) -> HttpResponse {
    with_status(StatusCode::OK, view)
}

/// `status` with `{ "data": view }`.
pub fn with_status<T: Serialize>(status: StatusCode, view: T) -> HttpResponse {
    HttpResponse::build(status).json(Data { data: view })
}

/// [`data`] of a view written field by field ([`write_json`]): the same bytes, without
/// serde_json's escape checks of a task's stored elements and of every key (a task update's
/// body: 19,200 instructions through serde, 10,800 written).
pub fn data_written<V: WriteJson>(view: &V) -> HttpResponse {
    let mut body = Vec::with_capacity(2048);
    body.extend_from_slice(b"{\"data\":");
    if let Err(error) = write_json(view, &mut body) {
        tracing::error!(%error, "cannot write a view as JSON");
        return crate::error::ApiError::internal().error_response();
    }
    body.push(b'}');
    HttpResponse::Ok()
        .insert_header(actix_web::http::header::ContentType::json())
        .body(body)
}

/// 200 with a list envelope made from a page, each item through `view`; `key` is an item's
/// id, its cursor. A body that would grow past [`MAX_PAGE_BYTES`] is cut short after the last
/// item that fits (at least one), and its pagination then points after that item.
pub fn list<'a, T: 'a, V: Serialize>(
    page: &'a Page<T>,
    key: impl Fn(&T) -> Uuid,
    view: impl Fn(&'a T) -> V,
) -> HttpResponse {
    list_within(
        page,
        key,
        |item, body| serde_json::to_writer(body, &view(item)),
        MAX_PAGE_BYTES,
    )
}

/// [`list`] of views written field by field ([`write_json`]: run tasks with their stored
/// elements copied into place, inbox items, runs).
pub fn list_written<'a, T: 'a, V: WriteJson>(
    page: &'a Page<T>,
    key: impl Fn(&T) -> Uuid,
    view: impl Fn(&'a T) -> V,
) -> HttpResponse {
    list_within(
        page,
        key,
        |item, body| write_json(&view(item), body),
        MAX_PAGE_BYTES,
    )
}

/// [`list`] with each item appended to the body by `write`, and a cap of `max_bytes`.
fn list_within<'a, T: 'a>(
    page: &'a Page<T>,
    key: impl Fn(&T) -> Uuid,
    write: impl Fn(&'a T, &mut Vec<u8>) -> Result<(), serde_json::Error>,
    max_bytes: usize,
) -> HttpResponse {
    let mut body = Vec::with_capacity(4096);
    body.extend_from_slice(b"{\"data\":[");
    let mut shown: Option<&T> = None;
    let mut cut = false;
    for item in &page.items {
        let mark = body.len();
        if shown.is_some() {
            body.push(b',');
        }
        if let Err(error) = write(item, &mut body) {
            tracing::error!(%error, "cannot write a list item as JSON");
            return crate::error::ApiError::internal().error_response();
        }
        if shown.is_none() {
            body.reserve(room_after_first(body.len(), page.items.len(), max_bytes));
        }
        // Room for the pagination after the items.
        if shown.is_some() && body.len() + PAGINATION_BYTES > max_bytes {
            body.truncate(mark);
            cut = true;
            break;
        }
        shown = Some(item);
    }
    let pagination = if cut {
        Pagination {
            next_cursor: shown.map(|item| key(item).to_string()),
            has_more: true,
        }
    } else {
        Pagination {
            next_cursor: page.next_cursor.map(|c| c.to_string()),
            has_more: page.has_more,
        }
    };
    body.extend_from_slice(b"],\"pagination\":");
    if serde_json::to_writer(&mut body, &pagination).is_err() {
        return crate::error::ApiError::internal().error_response();
    }
    body.push(b'}');
    HttpResponse::Ok()
        .insert_header(actix_web::http::header::ContentType::json())
        .body(body)
}

/// More than the pagination block takes: `],"pagination":{"next_cursor":"<uuid>","has_more":false}}`.
const PAGINATION_BYTES: usize = 96;

/// What to reserve once the first of `items` is written and the body is `written` bytes long:
/// the others at the first one's size plus an eighth, and the pagination, within `max_bytes`.
/// Growing by doubling from a small buffer copied the body three times for a page of 50 tasks
/// (2.6 % of the request's instructions).
fn room_after_first(written: usize, items: usize, max_bytes: usize) -> usize {
    let per_item = written + written / 8;
    per_item
        .saturating_mul(items.saturating_sub(1))
        .saturating_add(PAGINATION_BYTES)
        .min(max_bytes.saturating_sub(written))
}

#[cfg(test)]
mod tests {
    use actix_web::body::MessageBody;
    use procflow_domain::values::{Cursor, Limit};

    use super::*;

    fn page(n: u128) -> Page<Uuid> {
        let ids: Vec<Uuid> = (1..=n + 1).map(Uuid::from_u128).collect();
        Page::from_fetched(ids, Limit::new(i64::try_from(n).unwrap()).unwrap(), |id| {
            *id
        })
    }

    /// Writes each item as `view` makes it.
    fn json<V: Serialize>(
        view: impl Fn(&Uuid) -> V,
    ) -> impl Fn(&Uuid, &mut Vec<u8>) -> Result<(), serde_json::Error> {
        move |id, body| serde_json::to_writer(body, &view(id))
    }

    fn read(response: HttpResponse) -> serde_json::Value {
        let bytes = response.into_body().try_into_bytes().unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    /// A view whose writer writes what its `Serialize` does.
    #[derive(Serialize)]
    struct Named {
        id: Uuid,
        name: &'static str,
    }

    impl WriteJson for Named {
        fn write_fields(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
            out.extend_from_slice(b"\"id\":");
            serde_json::to_writer(&mut *out, &self.id)?;
            out.extend_from_slice(b",\"name\":");
            serde_json::to_writer(out, self.name)
        }
    }

    #[test]
    fn a_view_written_field_by_field_is_answered_as_data_answers_it() {
        let view = Named {
            id: Uuid::from_u128(7),
            name: "Ada \"<b>\"",
        };
        let (written, serialised) = (data_written(&view), data(&view));
        assert_eq!(written.status(), serialised.status());
        assert_eq!(
            written.headers().get("content-type"),
            serialised.headers().get("content-type")
        );
        let body = |response: HttpResponse| response.into_body().try_into_bytes().unwrap();
        assert_eq!(body(written), body(serialised));
    }

    #[test]
    fn a_page_within_the_cap_is_answered_whole_and_as_json_writes_it() {
        let page = page(3);
        let answer = read(list_within(
            &page,
            |id| *id,
            json(|id| id.to_string()),
            10_000,
        ));
        let expected = serde_json::to_value(List {
            data: page.items.iter().map(ToString::to_string).collect(),
            pagination: Pagination {
                next_cursor: page.next_cursor.map(|c: Cursor| c.to_string()),
                has_more: true,
            },
        })
        .unwrap();
        assert_eq!(answer, expected);
    }

    #[test]
    fn a_page_over_the_cap_is_cut_short_and_points_after_its_last_item() {
        let page = page(10);
        let big = |id: &Uuid| format!("{id}{}", "x".repeat(1_000));
        let answer = list_within(&page, |id| *id, json(big), 3_500);
        let size = answer.body().size();
        let answer = read(answer);
        let data = answer["data"].as_array().unwrap();
        assert_eq!(data.len(), 3, "{size:?}");
        assert_eq!(answer["pagination"]["has_more"], true);
        assert_eq!(
            answer["pagination"]["next_cursor"],
            Uuid::from_u128(3).to_string()
        );
    }

    #[test]
    fn after_the_first_item_the_rest_of_the_page_is_reserved_within_the_cap() {
        // 50 items, the first written in 909 bytes: the 49 others at that size and an eighth
        // more, and the pagination.
        let room = room_after_first(909, 50, 1_000_000);
        assert_eq!(room, (909 + 113) * 49 + PAGINATION_BYTES);
        assert!(room >= 909 * 49 + PAGINATION_BYTES);
        assert_eq!(
            room_after_first(909, 50, 10_000),
            10_000 - 909,
            "never past the cap"
        );
        assert_eq!(room_after_first(909, 1, 1_000_000), PAGINATION_BYTES);
        assert_eq!(room_after_first(2_000, 5, 1_000), 0, "already past the cap");
    }

    #[test]
    fn one_item_larger_than_the_cap_is_answered_alone() {
        let page = page(2);
        let answer = read(list_within(&page, |id| *id, json(|_| "x".repeat(500)), 100));
        assert_eq!(answer["data"].as_array().unwrap().len(), 1);
        assert_eq!(
            answer["pagination"]["next_cursor"],
            Uuid::from_u128(1).to_string()
        );
        assert_eq!(answer["pagination"]["has_more"], true);
    }

    #[test]
    fn an_item_that_cannot_be_written_fails_the_answer_with_a_500_in_the_envelope() {
        let page = page(3);
        let fail = |id: &Uuid, body: &mut Vec<u8>| {
            if *id == Uuid::from_u128(2) {
                return Err(serde::ser::Error::custom("stored elements: broken"));
            }
            serde_json::to_writer(body, &id.to_string())
        };
        let answer = list_within(&page, |id| *id, fail, 10_000);
        assert_eq!(answer.status(), 500);
        assert_eq!(read(answer)["error"]["code"], "internal_error");
    }
}
