//! A request head read before actix reads it: complete or not yet, its body's framing, or the
//! refusal it gets. Every head actix's decoder would refuse (and answer with an empty 400 or
//! 431 of its own) is refused here first, with the same rules, so that the answer is ours.

use actix_web::http::header::HeaderName;
use actix_web::http::{Method, Uri};
use procflow_domain::error::ErrorCode;

/// The longest request target (path and query), in bytes: longer is 414.
pub const MAX_TARGET_BYTES: usize = 8 * 1024;

/// The longest head (request line and headers), in bytes: longer is 431.
pub const MAX_HEAD_BYTES: usize = 32 * 1024;

/// The most headers a request may have: more is 431 (actix's own cap).
pub const MAX_HEADERS: usize = 96;

/// How the body after a head is delimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Framing {
    /// No body.
    None,
    /// `Content-Length` bytes.
    Length(u64),
    /// `Transfer-Encoding: chunked`.
    Chunked,
    /// Everything until the connection ends (`CONNECT`, a WebSocket upgrade), as actix reads it.
    Rest,
}

/// Why a request is refused before it reaches a route, and with which code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The code, and so the status.
    pub(crate) code: ErrorCode,
    /// What to tell the client.
    pub(crate) message: String,
}

impl Refusal {
    fn malformed(why: impl std::fmt::Display) -> Self {
        Self {
            code: ErrorCode::ValidationError,
            message: format!("malformed request: {why}"),
        }
    }

    fn target_too_long() -> Self {
        Self {
            code: ErrorCode::UriTooLong,
            message: format!(
                "the request target (path and query) is longer than {MAX_TARGET_BYTES} bytes"
            ),
        }
    }

    fn head_too_large() -> Self {
        Self {
            code: ErrorCode::HeadersTooLarge,
            message: format!(
                "the request's headers are larger than {MAX_HEAD_BYTES} bytes, or more than {MAX_HEADERS}"
            ),
        }
    }

    /// The head did not arrive in time.
    pub(crate) fn head_timeout(timeout: std::time::Duration) -> Self {
        Self {
            code: ErrorCode::RequestTimeout,
            message: format!(
                "the request's head did not arrive within {}",
                procflow_domain::duration::format(timeout)
            ),
        }
    }
}

/// What the bytes gathered so far make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Inspection {
    /// Not a whole head yet, and nothing wrong so far.
    Partial,
    /// A whole head of `len` bytes, its body framed as `framing`.
    Complete {
        /// The head's length, its blank line included.
        len: usize,
        /// How its body is delimited.
        framing: Framing,
    },
    /// A head no route gets.
    Refused(Refusal),
}

/// Reads the head at the start of `bytes`.
pub(crate) fn inspect(bytes: &[u8]) -> Inspection {
    let line_end = bytes.iter().position(|&b| b == b'\n');
    let line = &bytes[..line_end.unwrap_or(bytes.len())];
    // The request line is method, target and version: the target is its longest part.
    let target = line.split(|&b| b == b' ').nth(1).unwrap_or_default();
    if target.len() > MAX_TARGET_BYTES || (line_end.is_none() && line.len() > MAX_TARGET_BYTES + 32)
    {
        return Inspection::Refused(Refusal::target_too_long());
    }
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    match request.parse(bytes) {
        Ok(httparse::Status::Partial) if bytes.len() > MAX_HEAD_BYTES => {
            Inspection::Refused(Refusal::head_too_large())
        }
        Ok(httparse::Status::Partial) => Inspection::Partial,
        Err(httparse::Error::TooManyHeaders) => Inspection::Refused(Refusal::head_too_large()),
        Err(error) => Inspection::Refused(Refusal::malformed(error)),
        Ok(httparse::Status::Complete(len)) if len > MAX_HEAD_BYTES => {
            Inspection::Refused(Refusal::head_too_large())
        }
        Ok(httparse::Status::Complete(len)) => match framing(&request) {
            Ok(framing) => Inspection::Complete { len, framing },
            Err(refusal) => Inspection::Refused(refusal),
        },
    }
}

/// The checks actix's decoder makes of a parsed head, and the framing they leave.
fn framing(request: &httparse::Request<'_, '_>) -> Result<Framing, Refusal> {
    let method = request.method.unwrap_or_default();
    let method = Method::from_bytes(method.as_bytes()).map_err(|_| Refusal::malformed("method"))?;
    Uri::try_from(request.path.unwrap_or_default())
        .map_err(|error| Refusal::malformed(format!("request target: {error}")))?;
    let http_11 = request.version == Some(1);
    let (mut length, mut chunked, mut transfer_encoding, mut host, mut websocket) =
        (None, false, false, false, false);
    for header in request.headers.iter() {
        let name = HeaderName::from_bytes(header.name.as_bytes())
            .map_err(|_| Refusal::malformed("a header name"))?;
        let value = std::str::from_utf8(header.value).map(str::trim);
        if name == actix_web::http::header::CONTENT_LENGTH {
            let parsed = value
                .ok()
                .filter(|v| !v.starts_with('+'))
                .and_then(|v| v.parse::<u64>().ok());
            match (length, parsed) {
                (None, Some(n)) => length = Some(n),
                (Some(_), _) => return Err(Refusal::malformed("Content-Length twice")),
                (None, None) => return Err(Refusal::malformed("Content-Length is no length")),
            }
        } else if name == actix_web::http::header::TRANSFER_ENCODING {
            if transfer_encoding {
                return Err(Refusal::malformed("Transfer-Encoding twice"));
            }
            transfer_encoding = true;
            match value {
                Ok(v) if v.eq_ignore_ascii_case("chunked") => chunked = true,
                _ => {
                    return Err(Refusal::malformed("Transfer-Encoding other than chunked"));
                }
            }
        } else if name == actix_web::http::header::HOST {
            if host {
                return Err(Refusal::malformed("Host twice"));
            }
            host = true;
        } else if name == actix_web::http::header::UPGRADE {
            websocket |= value.is_ok_and(|v| v.eq_ignore_ascii_case("websocket"));
        }
    }
    if http_11 && !host {
        return Err(Refusal::malformed("no Host header"));
    }
    if transfer_encoding && !http_11 {
        return Err(Refusal::malformed("Transfer-Encoding in HTTP/1.0"));
    }
    if chunked && length.is_some() {
        return Err(Refusal::malformed(
            "both Content-Length and Transfer-Encoding",
        ));
    }
    if !http_11 && method == Method::POST && length.is_none() {
        return Err(Refusal::malformed(
            "an HTTP/1.0 POST without Content-Length",
        ));
    }
    Ok(if chunked {
        Framing::Chunked
    } else if websocket {
        Framing::Rest
    } else {
        match length {
            Some(0) | None if method == Method::CONNECT => Framing::Rest,
            Some(0) | None => Framing::None,
            Some(n) => Framing::Length(n),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(bytes: &[u8]) -> ErrorCode {
        match inspect(bytes) {
            Inspection::Refused(refusal) => refusal.code,
            other => panic!("{other:?} for {:?}", String::from_utf8_lossy(bytes)),
        }
    }

    #[test]
    fn a_whole_head_gives_its_length_and_framing() {
        let head = b"POST /api/v1/x HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n\r\n{\"a\":1}";
        assert_eq!(
            inspect(head),
            Inspection::Complete {
                len: head.len() - 7,
                framing: Framing::Length(12)
            }
        );
        let chunked = b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
        assert!(matches!(
            inspect(chunked),
            Inspection::Complete {
                framing: Framing::Chunked,
                ..
            }
        ));
        let none = b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n";
        assert!(matches!(
            inspect(none),
            Inspection::Complete {
                framing: Framing::None,
                ..
            }
        ));
        assert_eq!(inspect(b"GET / HTTP/1.1\r\nHo"), Inspection::Partial);
    }

    #[test]
    fn what_actix_would_refuse_is_refused_first() {
        for bad in [
            &b"GET / HTTP/1.1\r\n\r\n"[..],
            b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
            b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
            b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +1\r\n\r\n",
            b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n\r\n",
            b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n",
            b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n",
            b"POST / HTTP/1.0\r\n\r\n",
            b"GET / HTTP/1.1\r\nBad Header: x\r\n\r\n",
            b"G\x01T / HTTP/1.1\r\n\r\n",
            b"GET / HTTP/2.0\r\n\r\n",
        ] {
            assert_eq!(refused(bad), ErrorCode::ValidationError, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn a_long_target_is_414_and_a_large_or_crowded_head_431() {
        let long = format!(
            "GET /{} HTTP/1.1\r\nHost: a\r\n\r\n",
            "a".repeat(MAX_TARGET_BYTES)
        );
        assert_eq!(refused(long.as_bytes()), ErrorCode::UriTooLong);
        // Before its line ends.
        let partial = format!("GET /{}", "a".repeat(MAX_TARGET_BYTES + 64));
        assert_eq!(refused(partial.as_bytes()), ErrorCode::UriTooLong);
        let big = format!(
            "GET / HTTP/1.1\r\nHost: a\r\nX-Big: {}\r\n",
            "b".repeat(MAX_HEAD_BYTES)
        );
        assert_eq!(refused(big.as_bytes()), ErrorCode::HeadersTooLarge);
        let crowded = format!(
            "GET / HTTP/1.1\r\nHost: a\r\n{}\r\n",
            "X-A: 1\r\n".repeat(MAX_HEADERS)
        );
        assert_eq!(refused(crowded.as_bytes()), ErrorCode::HeadersTooLarge);
        let fits = format!(
            "GET /{} HTTP/1.1\r\nHost: a\r\n{}\r\n",
            "a".repeat(MAX_TARGET_BYTES - 1),
            "X-A: 1\r\n".repeat(MAX_HEADERS - 1)
        );
        assert!(matches!(
            inspect(fits.as_bytes()),
            Inspection::Complete { .. }
        ));
    }
}
