//! `GET /api/v1/attachments/{id}/content` (API contract 14.2): an attachment's bytes, streamed
//! from the file store, with headers that keep a browser from running or rendering them as
//! anything but a download.

use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, web};
use procflow_domain::attachment::Attachment;
use procflow_domain::ports::files::ByteSource;

use crate::AppState;
use crate::auth::Caller;
use crate::error::ApiError;
use crate::params;

/// Bytes, for the document: a generated client reads the answer as a file.
#[derive(utoipa::ToSchema)]
#[schema(value_type = String, format = Binary)]
#[expect(dead_code, reason = "a schema only")]
pub struct Binary(Vec<u8>);

/// The content types served as themselves; anything else is `application/octet-stream`.
pub const SAFE_TYPES: [&str; 6] = [
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "application/pdf",
    "text/plain",
];

/// The type an attachment is served as.
#[must_use]
pub fn served_type(stored: &str) -> &'static str {
    SAFE_TYPES
        .iter()
        .find(|safe| **safe == stored)
        .copied()
        .unwrap_or("application/octet-stream")
}

/// `attachment; filename*=UTF-8''<percent-encoded name>` (RFC 6266, RFC 8187): every byte but
/// RFC 5987's attr-chars encoded, so no quote, semicolon or line break can end the header.
#[must_use]
pub fn disposition(filename: &str) -> String {
    use std::fmt::Write;
    let mut encoded = String::with_capacity(filename.len() * 3);
    for byte in filename.bytes() {
        if byte.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&byte) {
            encoded.push(char::from(byte));
        } else {
            let _ = write!(encoded, "%{byte:02X}");
        }
    }
    format!("attachment; filename*=UTF-8''{encoded}")
}

/// The stored bytes as a response body, chunk by chunk.
fn body(
    source: Box<dyn ByteSource>,
) -> impl futures_util::Stream<Item = Result<web::Bytes, actix_web::Error>> {
    futures_util::stream::unfold(Some(source), |source| async move {
        let mut source = source?;
        match source.next_chunk().await {
            Ok(Some(chunk)) => Some((Ok(chunk), Some(source))),
            Ok(None) => None,
            Err(error) => {
                tracing::warn!(%error, "an attachment's bytes could not all be read");
                Some((
                    Err(actix_web::error::ErrorInternalServerError("read failed")),
                    None,
                ))
            }
        }
    })
}

/// The attachment's bytes with the headers of API contract 14.2: the one place that decides
/// them, for the API's download and the guest page's.
pub(crate) fn respond(attachment: &Attachment, source: Box<dyn ByteSource>) -> HttpResponse {
    let mut response = HttpResponse::Ok();
    response
        .insert_header((header::CONTENT_TYPE, served_type(&attachment.content_type)))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::CONTENT_SECURITY_POLICY, "sandbox"))
        .insert_header((header::CACHE_CONTROL, "private, no-store"))
        .no_chunking(attachment.size);
    if let Ok(value) = HeaderValue::from_str(&disposition(&attachment.filename)) {
        response.insert_header((header::CONTENT_DISPOSITION, value));
    }
    response.streaming(body(source))
}

/// `GET /attachments/{id}/content`
#[utoipa::path(
    get,
    path = "/api/v1/attachments/{id}/content",
    tag = "attachments",
    operation_id = "downloadAttachment",
    summary = "Download an attachment's bytes",
    description = "Served with `Content-Disposition: attachment; filename*=UTF-8''...`, `X-Content-Type-Options: nosniff`, `Content-Security-Policy: sandbox`, and the stored content type only when it is PNG, JPEG, GIF, WebP, PDF or plain text, else `application/octet-stream`.",
    params(("id" = String, Path, format = "uuid", description = "The attachment's id")),
    responses((status = 200, description = "The bytes, as one of the types of the safe list or as `application/octet-stream`", content(
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
    )))
)]
pub async fn download(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = params::attachment_id(&id)?;
    let (attachment, source) = state.attachments().content(caller.team.id, id).await?;
    Ok(respond(&attachment, source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filename_cannot_break_out_of_its_header() {
        assert_eq!(
            disposition("a \"b\";\r\nc.pdf"),
            "attachment; filename*=UTF-8''a%20%22b%22%3B%0D%0Ac.pdf"
        );
        assert_eq!(
            disposition("é.txt"),
            "attachment; filename*=UTF-8''%C3%A9.txt"
        );
    }

    #[test]
    fn only_the_safe_types_are_served_as_themselves() {
        assert_eq!(served_type("image/png"), "image/png");
        assert_eq!(served_type("text/html"), "application/octet-stream");
        assert_eq!(served_type("image/svg+xml"), "application/octet-stream");
    }
}
