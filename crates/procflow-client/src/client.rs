//! The client: a base URL, an API key and a reqwest client; one generic call that every
//! operation's method goes through (path, query, body, headers, the answer or the error).

use std::fmt;

use procflow_wire::ErrorResponse;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{StatusCode, Url};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::operation::Operation;
use crate::{Error, Tagged, WriteOptions};

/// A client of one procflow server, for one API key. Cheap to clone (the connection pool is
/// shared); every method is one request.
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    base: Url,
    key: String,
}

// The key is a secret: `Debug` must never print it.
impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.base.as_str())
            .finish_non_exhaustive()
    }
}

/// A successful answer, before its body is read.
pub(crate) struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Reply {
    /// The body read as `T`.
    pub(crate) fn json<T: DeserializeOwned>(&self) -> Result<T, Error> {
        serde_json::from_slice(&self.body).map_err(|error| Error::Unexpected {
            status: self.status,
            detail: format!("the body does not read as the documented view: {error}"),
        })
    }

    /// `{"data": T}`'s `T`, with the answer's `ETag`.
    pub(crate) fn tagged<T: DeserializeOwned>(&self) -> Result<Tagged<T>, Error> {
        let data: procflow_wire::Data<T> = self.json()?;
        Ok(Tagged {
            value: data.data,
            etag: header(&self.headers, reqwest::header::ETAG),
        })
    }

    /// `{"data": T}`'s `T`.
    pub(crate) fn data<T: DeserializeOwned>(&self) -> Result<T, Error> {
        Ok(self.tagged()?.value)
    }

    /// The body as it came (a download).
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.body
    }
}

fn header(headers: &HeaderMap, name: HeaderName) -> Option<String> {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}

impl Client {
    /// A client of the server at `base_url` (such as `https://procflow.example.com`), acting
    /// with the API key `key`, on a reqwest client of its own.
    ///
    /// # Errors
    /// [`Error::Transport`] when `base_url` is no absolute URL or the reqwest client cannot be
    /// built (for `https`, a rustls crypto provider must be installed first: README).
    pub fn new(base_url: &str, key: impl Into<String>) -> Result<Self, Error> {
        Self::with_http(reqwest::Client::builder().build()?, base_url, key)
    }

    /// As [`Client::new`], on a reqwest client configured by the caller (timeouts, proxies,
    /// TLS roots).
    ///
    /// # Errors
    /// [`Error::Transport`] when `base_url` is no absolute URL.
    pub fn with_http(
        http: reqwest::Client,
        base_url: &str,
        key: impl Into<String>,
    ) -> Result<Self, Error> {
        // Parsed by the reqwest client itself, so that a bad URL is reqwest's builder error
        // rather than a type of its own.
        let base = http.get(base_url).build()?.url().clone();
        Ok(Self {
            http,
            base,
            key: key.into(),
        })
    }

    /// The address of `operation` with its path parameters and `query`.
    fn url(&self, operation: &Operation, params: &[&str], query: &[(&str, String)]) -> Url {
        let mut url = self.base.clone();
        url.set_query(None);
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(operation.segments(params));
        }
        // An empty `?` would be a query string too: only pairs make one.
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        url
    }

    /// One call of `operation`: its path with `params`, `query`, the JSON `body` if any, the
    /// key, and the write `options`. A 2XX answer is returned to be read; any other is the
    /// API's error.
    pub(crate) async fn call<B: Serialize + ?Sized>(
        &self,
        operation: &Operation,
        params: &[&str],
        query: &[(&str, String)],
        body: Option<&B>,
        options: &WriteOptions,
    ) -> Result<Reply, Error> {
        let mut request = self
            .http
            .request(operation.method.clone(), self.url(operation, params, query))
            .bearer_auth(&self.key);
        if let Some(body) = body {
            request = request.json(body);
        }
        self.send(request, options).await
    }

    /// As [`Client::call`], with a body already encoded: `content_type` and `body` as given
    /// (a multipart upload).
    pub(crate) async fn call_raw(
        &self,
        operation: &Operation,
        params: &[&str],
        content_type: &str,
        body: Vec<u8>,
        options: &WriteOptions,
    ) -> Result<Reply, Error> {
        let request = self
            .http
            .request(operation.method.clone(), self.url(operation, params, &[]))
            .bearer_auth(&self.key)
            .header(reqwest::header::CONTENT_TYPE, content_type)
            .body(body);
        self.send(request, options).await
    }

    async fn send(
        &self,
        mut request: reqwest::RequestBuilder,
        options: &WriteOptions,
    ) -> Result<Reply, Error> {
        for (name, value) in [
            ("idempotency-key", &options.idempotency_key),
            ("if-match", &options.if_match),
        ] {
            if let Some(value) = value {
                let value = HeaderValue::from_str(value).map_err(|_| {
                    Error::Request(format!("{name} is not a header value: {value:?}"))
                })?;
                request = request.header(name, value);
            }
        }
        let response = request.send().await?;
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.bytes().await?.to_vec();
        if status.is_success() {
            return Ok(Reply {
                status,
                headers,
                body,
            });
        }
        Err(refusal(status, &headers, &body))
    }
}

/// The error an answer that is no success says.
fn refusal(status: StatusCode, headers: &HeaderMap, body: &[u8]) -> Error {
    match serde_json::from_slice::<ErrorResponse>(body) {
        Ok(envelope) => Error::Api {
            status,
            code: envelope.error.code,
            message: envelope.error.message,
            request_id: envelope
                .error
                .request_id
                .or_else(|| header(headers, HeaderName::from_static("x-request-id"))),
            retry_after: header(headers, reqwest::header::RETRY_AFTER)
                .and_then(|seconds| seconds.parse().ok()),
        },
        Err(_) => Error::Unexpected {
            status,
            detail: format!(
                "not the error envelope: {}",
                String::from_utf8_lossy(&body[..body.len().min(200)])
            ),
        },
    }
}
