//! The webhook `Sender` over HTTP: reqwest with rustls, no proxy, no redirects, a timeout, the
//! address policy at each attempt, and Standard Webhooks signatures over the exact body sent.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use procflow_domain::ports::Sender;
use procflow_domain::webhook::{AttemptOutcome, ClaimedDelivery, Deliveries, Settlement};
use reqwest::header::{CONTENT_TYPE, HeaderValue, RETRY_AFTER, USER_AGENT};
use reqwest::{Client, Url};
use time::OffsetDateTime;

use crate::resolver::{FilteringResolver, Lookup, Refused, SystemLookup, refused};
use crate::signing::signature_header;

/// How the sender behaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SenderConfig {
    /// Let destinations on loopback, private, link-local ... addresses through.
    pub allow_private: bool,
    /// How long an attempt may take, connection and answer included.
    pub timeout: Duration,
}

impl SenderConfig {
    /// An attempt's time limit unless configured (API contract 8.3).
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
}

impl Default for SenderConfig {
    fn default() -> Self {
        Self {
            allow_private: false,
            timeout: Self::DEFAULT_TIMEOUT,
        }
    }
}

/// The client could not be built (no TLS roots, ...).
#[derive(Debug, thiserror::Error)]
#[error("cannot build the webhook HTTP client: {0}")]
pub struct SenderError(#[from] reqwest::Error);

/// Sends webhooks over HTTP(S).
#[derive(Clone, Debug)]
pub struct HttpSender {
    client: Client,
    allow_private: bool,
}

/// Installs ring as the process's rustls crypto provider (once; later calls do nothing), so
/// that every reqwest client of the process, the sender's and the tests', can do TLS.
pub fn install_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

impl HttpSender {
    /// A sender resolving names with the operating system.
    ///
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn new(config: &SenderConfig) -> Result<Self, SenderError> {
        Self::with_lookup(config, Arc::new(SystemLookup))
    }

    /// A sender resolving names with `lookup` (tests inject names that resolve to loopback).
    ///
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn with_lookup(
        config: &SenderConfig,
        lookup: Arc<dyn Lookup>,
    ) -> Result<Self, SenderError> {
        install_tls();
        let client = Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(config.timeout)
            .connect_timeout(config.timeout)
            .dns_resolver(FilteringResolver::new(lookup, config.allow_private))
            .pool_idle_timeout(Duration::from_secs(30))
            .build()?;
        Ok(Self {
            client,
            allow_private: config.allow_private,
        })
    }

    /// The refusal of an IP-literal host (the resolver is not asked for those).
    fn literal_refusal(&self, url: &Url) -> Option<Refused> {
        if self.allow_private {
            return None;
        }
        match url.host()? {
            url::Host::Ipv4(ip) => refused(&ip.to_string(), ip.into()),
            url::Host::Ipv6(ip) => refused(&format!("[{ip}]"), ip.into()),
            url::Host::Domain(_) => None,
        }
    }
}

fn header(text: &str) -> Option<HeaderValue> {
    HeaderValue::from_str(text).ok()
}

/// What an error of reqwest says, without the URL: the refusal when the policy refused.
fn describe(error: &reqwest::Error, timeout: bool) -> String {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(cause) = source {
        if let Some(refused) = cause.downcast_ref::<Refused>() {
            return refused.to_string();
        }
        source = cause.source();
    }
    if timeout || error.is_timeout() {
        return "timed out: no answer within the time limit".to_owned();
    }
    let mut text = String::from(if error.is_connect() {
        "connection failed"
    } else {
        "request failed"
    });
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The first characters of the answer's body, reading no more than needed.
async fn body_start(mut response: reqwest::Response) -> String {
    let limit = Settlement::BODY_CHARS * 4;
    let mut bytes = Vec::new();
    while bytes.len() < limit {
        match response.chunk().await {
            Ok(Some(chunk)) => bytes.extend_from_slice(&chunk),
            Ok(None) | Err(_) => break,
        }
    }
    String::from_utf8_lossy(&bytes)
        .chars()
        .take(Settlement::BODY_CHARS)
        .collect()
}

#[async_trait]
impl Sender<Deliveries> for HttpSender {
    async fn send(&self, delivery: &ClaimedDelivery, now: OffsetDateTime) -> AttemptOutcome {
        let url = match Url::parse(delivery.url.as_str()) {
            Ok(url) => url,
            Err(error) => return AttemptOutcome::Error(format!("invalid URL: {error}")),
        };
        if let Some(refused) = self.literal_refusal(&url) {
            return AttemptOutcome::Error(refused.to_string());
        }
        let id = delivery.event_id.to_string();
        let timestamp = now.unix_timestamp();
        let body = delivery.payload.as_bytes();
        let signature = signature_header(&delivery.secrets.signing(now), &id, timestamp, body);
        let mut request = self
            .client
            .post(url)
            .header(CONTENT_TYPE, "application/json")
            .header(USER_AGENT, concat!("procflow/", env!("CARGO_PKG_VERSION")))
            .header("x-webhook-event", delivery.event.as_str())
            .header("x-webhook-id", &id)
            .header("webhook-id", &id)
            .header("webhook-timestamp", timestamp.to_string());
        if let Some(value) = header(&signature) {
            request = request.header("webhook-signature", value);
        }
        let response = match request.body(delivery.payload.clone()).send().await {
            Ok(response) => response,
            Err(error) => return AttemptOutcome::Error(describe(&error, false)),
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .and_then(|text| text.trim().parse::<i64>().ok())
            .map(time::Duration::seconds);
        AttemptOutcome::Response {
            status,
            body: body_start(response).await,
            retry_after,
        }
    }
}
