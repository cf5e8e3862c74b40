//! A response as a test reads it, with the checks every test repeats: the envelopes of spec 2.1,
//! the JSON content type and the `X-Request-Id` header (API contract 1).

use std::collections::BTreeSet;

use reqwest::header::HeaderMap;
use serde_json::Value;

/// One HTTP response, read whole.
#[derive(Debug)]
pub struct Reply {
    /// What was asked, for messages: `GET /api/v1/...`.
    pub request: String,
    /// The status code.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body as text.
    pub text: String,
}

/// The keys of a JSON object, sorted.
#[must_use]
#[track_caller]
pub fn keys_of(value: &Value) -> BTreeSet<String> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("expected a JSON object, got {value}"))
        .keys()
        .cloned()
        .collect()
}

/// Asserts that `value` is an object whose keys are exactly `expected`.
#[track_caller]
pub fn assert_keys(value: &Value, expected: &[&str]) {
    let actual = keys_of(value);
    let expected: BTreeSet<String> = expected.iter().map(|k| (*k).to_owned()).collect();
    let missing: Vec<_> = expected.difference(&actual).collect();
    let extra: Vec<_> = actual.difference(&expected).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "field set differs: missing {missing:?}, unexpected {extra:?}, in {value}"
    );
}

impl Reply {
    /// A header's value, when present and text.
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body as JSON.
    #[must_use]
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| {
            panic!(
                "{}: body is not JSON ({e}): status {}, body {:?}",
                self.request, self.status, self.text
            )
        })
    }

    /// Asserts the status, with the body in the message.
    #[track_caller]
    pub fn assert_status(&self, status: u16) {
        assert_eq!(
            self.status, status,
            "{}: expected status {status}, got {} with body {}",
            self.request, self.status, self.text
        );
    }

    /// Asserts `X-Request-Id` is present and not empty.
    #[track_caller]
    pub fn assert_request_id(&self) {
        let id = self.header("x-request-id");
        assert!(
            id.is_some_and(|id| !id.trim().is_empty()),
            "{}: no X-Request-Id header (status {}, headers {:?})",
            self.request,
            self.status,
            self.headers
        );
    }

    /// Asserts `Content-Type: application/json`.
    #[track_caller]
    pub fn assert_json_content_type(&self) {
        let content_type = self.header("content-type").unwrap_or_default();
        assert!(
            content_type.starts_with("application/json"),
            "{}: expected Content-Type application/json, got {content_type:?} (status {}, body {:?})",
            self.request,
            self.status,
            self.text
        );
    }

    /// Asserts a `{ "data": <object> }` answer with this status and returns the object.
    #[track_caller]
    pub fn data(&self, status: u16) -> Value {
        self.assert_status(status);
        self.assert_request_id();
        self.assert_json_content_type();
        let body = self.json();
        assert_keys(&body, &["data"]);
        let data = body["data"].clone();
        assert!(
            data.is_object(),
            "{}: data is not an object: {body}",
            self.request
        );
        data
    }

    /// Asserts a 200 `{ "data": [...] }` answer without pagination (a batch's) and returns its
    /// items.
    #[track_caller]
    pub fn items(&self) -> Vec<Value> {
        self.assert_status(200);
        self.assert_request_id();
        self.assert_json_content_type();
        let body = self.json();
        assert_keys(&body, &["data"]);
        body["data"]
            .as_array()
            .unwrap_or_else(|| panic!("{}: data is not an array: {body}", self.request))
            .clone()
    }

    /// Asserts a 200 list answer (`data` + `pagination {next_cursor, has_more}`) and returns its
    /// items, `next_cursor` and `has_more`.
    #[track_caller]
    pub fn list(&self) -> (Vec<Value>, Option<String>, bool) {
        self.assert_status(200);
        self.assert_request_id();
        self.assert_json_content_type();
        let body = self.json();
        assert_keys(&body, &["data", "pagination"]);
        assert_keys(&body["pagination"], &["next_cursor", "has_more"]);
        let items = body["data"]
            .as_array()
            .unwrap_or_else(|| panic!("{}: data is not an array: {body}", self.request))
            .clone();
        let cursor = &body["pagination"]["next_cursor"];
        assert!(
            cursor.is_string() || cursor.is_null(),
            "{}: next_cursor is neither a string nor null: {body}",
            self.request
        );
        let has_more = body["pagination"]["has_more"]
            .as_bool()
            .unwrap_or_else(|| panic!("{}: has_more is not a boolean: {body}", self.request));
        (items, cursor.as_str().map(str::to_owned), has_more)
    }

    /// Asserts an error answer in the envelope `{"error":{"code","message"}}` (an optional
    /// `request_id` allowed, API contract 1) with this status and code, JSON, with a request
    /// id, and returns its message.
    #[track_caller]
    pub fn error(&self, status: u16, code: &str) -> String {
        self.assert_status(status);
        self.assert_request_id();
        self.assert_json_content_type();
        let body = self.json();
        assert_keys(&body, &["error"]);
        let error = &body["error"];
        let mut keys = keys_of(error);
        keys.remove("request_id");
        assert_eq!(
            keys,
            BTreeSet::from(["code".to_owned(), "message".to_owned()]),
            "{}: error object fields: {body}",
            self.request
        );
        assert_eq!(
            error["code"], code,
            "{}: error code in {body}",
            self.request
        );
        let message = error["message"]
            .as_str()
            .unwrap_or_else(|| panic!("{}: message is not a string: {body}", self.request));
        assert!(!message.is_empty(), "{}: empty message", self.request);
        message.to_owned()
    }
}

/// The value of the Prometheus sample whose name and labels are exactly `series` in the text
/// of a `/metrics` page, if present.
///
/// # Panics
/// When the sample's value is not a number.
#[must_use]
pub fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| {
            let (name, value) = line.rsplit_once(' ')?;
            (name == series).then(|| value.parse().expect("a numeric sample"))
        })
}
