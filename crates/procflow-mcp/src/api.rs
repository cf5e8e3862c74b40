//! The REST API as the tools call it: the key from the environment on every request, so each
//! call goes through the API's authentication, scopes, rate limit and rules.

use std::time::Duration;

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, IF_MATCH};
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};

/// Where the API is and the key to call it with (`PROCFLOW_API_URL`, `PROCFLOW_API_KEY`).
#[derive(Clone)]
pub struct Config {
    /// The API's address, such as `https://procflow.example.com` (no trailing `/api/v1`).
    pub url: String,
    /// An API key of the team (`read` or `write`).
    pub key: String,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

/// A setting missing from the environment.
#[derive(Debug, thiserror::Error)]
#[error("{0} is not set: procflow mcp calls the API at PROCFLOW_API_URL with PROCFLOW_API_KEY")]
pub struct ConfigError(pub &'static str);

impl Config {
    /// From `PROCFLOW_API_URL` and `PROCFLOW_API_KEY`.
    ///
    /// # Errors
    /// Either is unset or empty.
    pub fn from_env() -> Result<Self, ConfigError> {
        let read = |name: &'static str| {
            std::env::var(name)
                .ok()
                .filter(|v| !v.trim().is_empty())
                .ok_or(ConfigError(name))
        };
        Ok(Self {
            url: read("PROCFLOW_API_URL")?.trim_end_matches('/').to_owned(),
            key: read("PROCFLOW_API_KEY")?,
        })
    }
}

/// A refusal of the API (its status, code and message), or no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ApiFailure {
    /// The HTTP status, 0 when the API did not answer.
    pub status: u16,
    /// The API's error code (`validation_error`, `not_found`, ...), or `unreachable`.
    pub code: String,
    /// The API's message.
    pub message: String,
}

impl ApiFailure {
    /// As a tool's error content.
    #[must_use]
    pub fn to_json(&self) -> Value {
        json!({"error": {"status": self.status, "code": self.code, "message": self.message}})
    }

    fn unreachable(error: &reqwest::Error) -> Self {
        Self {
            status: 0,
            code: "unreachable".into(),
            message: format!("the API did not answer: {error}"),
        }
    }
}

/// A client of the API.
#[derive(Clone, Debug)]
pub struct Api {
    config: Config,
    http: Client,
}

/// One request of a tool.
#[derive(Debug, Default)]
pub struct Request {
    /// `GET`, `POST`, ...
    pub method: Method,
    /// The path, parameters filled in and encoded.
    pub path: String,
    /// Query pairs.
    pub query: Vec<(String, String)>,
    /// A JSON body.
    pub body: Option<Value>,
    /// `If-Match`.
    pub if_match: Option<String>,
}

impl Api {
    /// A client for `config`.
    ///
    /// # Errors
    /// The HTTP client cannot be built (no TLS provider installed).
    pub fn new(config: Config) -> Result<Self, reqwest::Error> {
        let http = Client::builder().timeout(Duration::from_secs(30)).build()?;
        Ok(Self { config, http })
    }

    /// The OpenAPI document the API serves (no key needed).
    ///
    /// # Errors
    /// The API does not answer it.
    pub async fn document(&self) -> Result<Value, ApiFailure> {
        self.send(Request {
            method: Method::GET,
            path: "/api/v1/openapi.json".into(),
            ..Request::default()
        })
        .await
    }

    /// Whether the key may write: a dry run of creating an empty template (API contract
    /// 15.2, nothing is written whatever the key) is 403 for a read key, 400 for a write key.
    ///
    /// # Errors
    /// The API refuses the key itself (401) or does not answer.
    pub async fn may_write(&self) -> Result<bool, ApiFailure> {
        let probe = self
            .send(Request {
                method: Method::POST,
                path: "/api/v1/process-templates".into(),
                query: vec![("validate_only".into(), "true".into())],
                body: Some(json!({})),
                ..Request::default()
            })
            .await;
        match probe {
            Err(failure) if failure.status == 403 => Ok(false),
            Err(failure) if failure.status == 401 || failure.status == 0 => Err(failure),
            _ => Ok(true),
        }
    }

    /// Sends `request`; answers the body of a 2xx (`null` when empty), or the refusal.
    ///
    /// # Errors
    /// A status other than 2xx, with the API's code and message; no answer.
    pub async fn send(&self, request: Request) -> Result<Value, ApiFailure> {
        let url = format!("{}{}", self.config.url, request.path);
        let mut builder = self
            .http
            .request(request.method, url)
            .header(AUTHORIZATION, format!("Bearer {}", self.config.key))
            .query(&request.query);
        if let Some(tag) = request.if_match {
            builder = builder.header(IF_MATCH, tag);
        }
        if let Some(body) = request.body {
            builder = builder
                .header(CONTENT_TYPE, "application/json")
                .body(body.to_string());
        }
        let response = builder
            .send()
            .await
            .map_err(|e| ApiFailure::unreachable(&e))?;
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .map_err(|e| ApiFailure::unreachable(&e))?;
        let body: Value = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
        };
        if status.is_success() {
            return Ok(body);
        }
        Err(refusal(status, &body))
    }
}

fn refusal(status: StatusCode, body: &Value) -> ApiFailure {
    let error = &body["error"];
    ApiFailure {
        status: status.as_u16(),
        code: error["code"]
            .as_str()
            .unwrap_or(status.canonical_reason().unwrap_or("error"))
            .to_owned(),
        message: error["message"]
            .as_str()
            .map_or_else(|| body.to_string(), str::to_owned),
    }
}
