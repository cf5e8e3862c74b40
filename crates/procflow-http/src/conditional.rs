//! Conditional requests (RFC 9110 13, API contract 11): the `ETag` of single resources,
//! `If-None-Match` on their GET (304), and `If-Match` on writes, handed to the use case, which
//! compares it under the store's lock.
//!
//! A resource opts in by being [`Tagged`] (the domain's fingerprint of its whole value). Its
//! single GET then answers through [`IfNoneMatch::answer`], and its writes take an
//! [`IfMatchHeader`] and answer through [`tagged`]; the OpenAPI document describes the headers,
//! the 304 and the 412 of every such operation from the route table (`openapi::errors`).

mod tags;

use actix_web::dev::Payload;
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::{FromRequest, HttpRequest, HttpResponse};
use futures_util::future::{Ready, ready};
use procflow_domain::etag::{ETag, IfMatch, Tagged};
use serde::Serialize;

use self::tags::TagList;
use crate::error::ApiError;
use crate::views::{self, WriteJson};

/// Reads the precondition header `name`, `None` when absent.
fn read(request: &HttpRequest, name: &'static str) -> Result<Option<TagList>, ApiError> {
    let lines: Vec<&[u8]> = request
        .headers()
        .get_all(name)
        .map(HeaderValue::as_bytes)
        .collect();
    if lines.is_empty() {
        return Ok(None);
    }
    tags::parse(lines)
        .map(Some)
        .map_err(|why| ApiError::validation(format!("{name}: {why}")))
}

/// The `If-Match` of a write (`None` without the header), as the domain compares it: with the
/// strong comparison, so a weak tag (`W/"..."`) matches nothing.
#[derive(Clone, Debug, Default)]
pub struct IfMatchHeader(pub Option<IfMatch>);

impl FromRequest for IfMatchHeader {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(read(request, "If-Match").map(|list| {
            Self(list.map(|list| {
                match list {
                    TagList::Any => IfMatch::Any,
                    TagList::Tags(tags) => IfMatch::OneOf(
                        tags.into_iter()
                            .filter(|tag| !tag.weak)
                            .map(|tag| ETag::from_opaque(tag.opaque))
                            .collect(),
                    ),
                }
            }))
        }))
    }
}

/// The `If-None-Match` of a single GET: the representation the client holds, if any.
#[derive(Clone, Debug, Default)]
pub struct IfNoneMatch(Option<TagList>);

impl FromRequest for IfNoneMatch {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(read(request, "If-None-Match").map(Self))
    }
}

impl IfNoneMatch {
    /// Whether the client holds the current representation (the weak comparison, and `*` for
    /// any).
    fn holds(&self, current: &ETag) -> bool {
        match &self.0 {
            None => false,
            Some(TagList::Any) => true,
            Some(TagList::Tags(tags)) => tags.iter().any(|tag| tag.opaque == current.opaque()),
        }
    }

    /// The answer of a single GET: 304 with the `ETag` and no body when the client holds the
    /// current representation, else 200 `{"data": view}` with the `ETag`.
    pub fn answer<'a, T: Tagged, V: Serialize>(
        &self,
        resource: &'a T,
        view: impl FnOnce(&'a T) -> V,
    ) -> HttpResponse {
        self.answer_with(resource, || views::data(view(resource)))
    }

    /// [`answer`](Self::answer) with the view written field by field
    /// ([`views::data_written`]).
    pub fn answer_written<'a, T: Tagged, V: WriteJson>(
        &self,
        resource: &'a T,
        view: impl FnOnce(&'a T) -> V,
    ) -> HttpResponse {
        self.answer_with(resource, || views::data_written(&view(resource)))
    }

    /// 304 when the client holds the current representation, else `data` with the `ETag`.
    fn answer_with<T: Tagged>(
        &self,
        resource: &T,
        data: impl FnOnce() -> HttpResponse,
    ) -> HttpResponse {
        let etag = resource.etag();
        if self.holds(&etag) {
            return with_etag(
                HttpResponse::build(StatusCode::NOT_MODIFIED).finish(),
                &etag,
            );
        }
        with_etag(data(), &etag)
    }
}

/// 200 `{"data": view}` with the resource's `ETag`: the answer of a write to a tagged
/// resource, whose tag the client can send back in the next write's `If-Match`.
pub fn tagged<'a, T: Tagged, V: Serialize>(
    resource: &'a T,
    view: impl FnOnce(&'a T) -> V,
) -> HttpResponse {
    with_etag(views::data(view(resource)), &resource.etag())
}

/// [`tagged`] with the view written field by field ([`views::data_written`]).
pub fn tagged_written<'a, T: Tagged, V: WriteJson>(
    resource: &'a T,
    view: impl FnOnce(&'a T) -> V,
) -> HttpResponse {
    with_etag(views::data_written(&view(resource)), &resource.etag())
}

/// 201 `{"data": view}` with the new resource's `ETag`: the answer of a create when the
/// resource has no single GET to read its tag from (a comment).
pub fn created<'a, T: Tagged, V: Serialize>(
    resource: &'a T,
    view: impl FnOnce(&'a T) -> V,
) -> HttpResponse {
    with_etag(
        views::with_status(StatusCode::CREATED, view(resource)),
        &resource.etag(),
    )
}

fn with_etag(mut response: HttpResponse, etag: &ETag) -> HttpResponse {
    if let Ok(value) = HeaderValue::from_str(&etag.to_string()) {
        response.headers_mut().insert(header::ETAG, value);
    }
    response
}

/// Whether `method` on `path` is a single resource's GET: it answers an `ETag` and honours
/// `If-None-Match`. Every authenticated GET whose path ends in a parameter
/// (`/process-runs/{id}`) is one; lists end in a name (`/process-runs/{id}/tasks`).
#[must_use]
pub fn is_single_get(method: &Method, path: &str) -> bool {
    method == Method::GET && crate::routes::authenticated(path) && path.ends_with('}')
}

/// Whether `method` is a write that honours `If-Match` (`PATCH`, `PUT`).
#[must_use]
pub fn takes_if_match(method: &Method) -> bool {
    method == Method::PATCH || method == Method::PUT
}
