//! A `multipart/form-data` upload read as a stream (API contract 14.2): the part named `file`
//! handed to the file store chunk by chunk through a channel of one chunk, so that memory stays
//! flat whatever the file's size, and cut as soon as its bytes pass the limit.
//!
//! actix-multipart's parts are not `Send` (they share the request's payload), while the file
//! store's source is: the part is read on the request's own task, beside the store's writing,
//! and its chunks cross a bounded channel.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use actix_multipart::{Field, Multipart};
use actix_web::HttpRequest;
use actix_web::http::header;
use actix_web::web::{Bytes, Payload};
use async_trait::async_trait;
use futures_util::StreamExt;
use procflow_domain::error::DomainError;
use procflow_domain::ports::files::{ByteSource, SourceError};
use tokio::sync::mpsc;

use crate::error::ApiError;

/// What a multipart body may hold beyond the file's bytes (part headers, boundaries, small
/// other parts) before its `Content-Length` alone refuses it.
pub const ENVELOPE_ALLOWANCE: u64 = 64 * 1024;

/// The bytes of parts other than `file` read (and dropped) at most.
pub const OTHER_PARTS_MAX: usize = 64 * 1024;

/// The upload's file part, found, with what its headers say.
pub struct FilePart {
    /// The parser the part reads through: kept while the part is read.
    pub parts: Multipart,
    /// The part itself, its bytes not read yet.
    pub field: Field,
    /// The filename it carries, if any.
    pub filename: Option<String>,
    /// The content type it declares, if any.
    pub content_type: Option<String>,
}

/// 413 when the declared length is over the limit; 415 for a body that is not
/// `multipart/form-data`. Nothing of the body is read.
///
/// # Errors
/// As said.
pub fn check_head(request: &HttpRequest, max_bytes: u64) -> Result<(), ApiError> {
    if declared_too_large(request, max_bytes) {
        return Err(too_large(max_bytes));
    }
    if !is_multipart(request.headers()) {
        return Err(ApiError::new(
            procflow_domain::ErrorCode::UnsupportedMediaType,
            "the request body must be sent as Content-Type: multipart/form-data, with the file in a part named `file`",
        ));
    }
    Ok(())
}

/// Whether the request's `Content-Length` alone says its file is over `max_bytes` (beyond
/// the [`ENVELOPE_ALLOWANCE`] of the multipart envelope).
#[must_use]
pub fn declared_too_large(request: &HttpRequest, max_bytes: u64) -> bool {
    request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .is_some_and(|length| length > max_bytes.saturating_add(ENVELOPE_ALLOWANCE))
}

/// Whether the request's body is declared `multipart/form-data` (with its boundary).
#[must_use]
pub fn is_multipart(headers: &header::HeaderMap) -> bool {
    crate::media_type::declares(headers, "multipart/form-data")
}

/// 413 `payload_too_large` for a file over `max_bytes`.
#[must_use]
pub fn too_large(max_bytes: u64) -> ApiError {
    ApiError::new(
        procflow_domain::ErrorCode::PayloadTooLarge,
        format!("the file is larger than {max_bytes} bytes"),
    )
}

fn malformed(error: &actix_multipart::MultipartError) -> ApiError {
    ApiError::invalid_field(
        "file",
        format!("the multipart body cannot be read: {error}"),
    )
}

/// Reads parts until the one named `file`; others are dropped (at most
/// [`OTHER_PARTS_MAX`] bytes of them).
///
/// # Errors
/// 400 for a malformed body or one without a `file` part.
pub async fn file_part(request: &HttpRequest, payload: Payload) -> Result<FilePart, ApiError> {
    let mut parts = Multipart::new(request.headers(), payload);
    let mut other_bytes = 0usize;
    while let Some(part) = parts.next().await {
        let mut field = part.map_err(|e| malformed(&e))?;
        if field.name() == Some("file") {
            let filename = field
                .content_disposition()
                .and_then(|d| d.get_filename())
                .map(ToOwned::to_owned);
            let content_type = field.content_type().map(ToString::to_string);
            return Ok(FilePart {
                parts,
                field,
                filename,
                content_type,
            });
        }
        while let Some(chunk) = field.next().await {
            other_bytes += chunk.map_err(|e| malformed(&e))?.len();
            if other_bytes > OTHER_PARTS_MAX {
                return Err(ApiError::invalid_field(
                    "file",
                    "the parts before `file` are too large",
                ));
            }
        }
    }
    Err(ApiError::invalid_field(
        "file",
        "the body has no part named `file`",
    ))
}

/// The SHA-256 of the file a body carries, its bytes read through [`stream`] (cut past
/// `max_bytes` as an upload is) and dropped as they come; `None` when the body cannot be read
/// as an upload (malformed, no `file` part, cut) or its file passes `max_bytes`. What a
/// retried upload is compared by (the idempotency guard).
pub async fn file_sha256(
    request: &HttpRequest,
    payload: Payload,
    max_bytes: u64,
) -> Option<[u8; 32]> {
    use sha2::{Digest, Sha256};

    let part = file_part(request, payload).await.ok()?;
    stream(part, max_bytes, |mut source| async move {
        let mut hash = Sha256::new();
        while let Some(chunk) = source.next_chunk().await.map_err(|e| {
            DomainError::from(procflow_domain::error::ValidationError::field("file", e.0))
        })? {
            hash.update(&chunk);
        }
        Ok(hash.finalize().into())
    })
    .await
    .ok()
}

/// The receiving end of the channel: what the file store reads.
pub struct Received(mpsc::Receiver<Result<Bytes, SourceError>>);

#[async_trait]
impl ByteSource for Received {
    async fn next_chunk(&mut self) -> Result<Option<Bytes>, SourceError> {
        match self.0.recv().await {
            Some(Ok(chunk)) => Ok(Some(chunk)),
            Some(Err(error)) => Err(error),
            None => Ok(None),
        }
    }
}

/// The sending end: reads the part and forwards its chunks, cutting it past the limit.
pub struct Pump {
    field: Field,
    max_bytes: u64,
    sender: mpsc::Sender<Result<Bytes, SourceError>>,
    over: Arc<AtomicBool>,
}

/// A pump for `part` and the source it feeds; the flag says, afterwards, whether the part
/// passed `max_bytes`.
#[must_use]
pub fn channel(part: Field, max_bytes: u64) -> (Pump, Received, Arc<AtomicBool>) {
    // One chunk in the channel, one in the store's hands: memory stays flat.
    let (sender, receiver) = mpsc::channel(1);
    let over = Arc::new(AtomicBool::new(false));
    (
        Pump {
            field: part,
            max_bytes,
            sender,
            over: over.clone(),
        },
        Received(receiver),
        over,
    )
}

impl Pump {
    /// Forwards the part's chunks until its end, an error, the limit, or the store's going
    /// away (it refused before reading everything).
    pub async fn run(mut self) {
        let mut read: u64 = 0;
        while let Some(chunk) = self.field.next().await {
            let message = match chunk {
                Ok(bytes) => {
                    read += bytes.len() as u64;
                    if read > self.max_bytes {
                        self.over.store(true, Ordering::SeqCst);
                        Err(SourceError(format!(
                            "the file is larger than {} bytes",
                            self.max_bytes
                        )))
                    } else {
                        Ok(bytes)
                    }
                }
                Err(error) => Err(SourceError(format!("the upload was cut: {error}"))),
            };
            let stop = message.is_err();
            if self.sender.send(message).await.is_err() || stop {
                return;
            }
        }
    }
}

/// Why a streamed upload was not stored.
#[derive(Debug)]
pub enum Unstored {
    /// The file's bytes passed the limit: nothing was stored.
    TooLarge,
    /// The use case refused it, or the body failed (a validation error on `file`).
    Refused(DomainError),
}

/// Streams the file of `part` into `store` (a use case that reads the [`Received`] source it
/// is given), cut past `max_bytes`: the part is read on this task while the store writes, one
/// chunk in flight. The source is dropped as soon as the store is done (a refusal before the
/// last byte included), which ends the reading; what is left of the body is never read into
/// memory.
///
/// # Errors
/// [`Unstored::TooLarge`] when the bytes passed the limit, else the use case's refusal.
pub async fn stream<T, F>(
    part: FilePart,
    max_bytes: u64,
    store: impl FnOnce(Received) -> F,
) -> Result<T, Unstored>
where
    F: Future<Output = Result<T, DomainError>>,
{
    let FilePart { parts, field, .. } = part;
    let (pump, source, over) = channel(field, max_bytes);
    let (stored, ()) = futures_util::future::join(store(source), pump.run()).await;
    drop(parts);
    match stored {
        Ok(value) => Ok(value),
        Err(DomainError::Validation(_)) if over.load(Ordering::SeqCst) => Err(Unstored::TooLarge),
        Err(error) => Err(Unstored::Refused(error)),
    }
}
