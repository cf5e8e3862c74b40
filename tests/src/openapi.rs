//! The API's own OpenAPI document as a test oracle: which operations exist, and whether an
//! answer (status, content type, headers, body) is one its operation documents.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

use crate::reply::Reply;

/// The committed `docs/openapi.json`.
#[must_use]
pub fn committed_document() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/openapi.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// An OpenAPI 3.1 document, with a record of the answers checked against it.
pub struct ApiDescription {
    document: Value,
    checked: Mutex<BTreeSet<(String, String, String)>>,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

/// The committed document, read once per test process: every reply the harness receives is
/// checked against it (see [`ApiDescription::check_any`]).
pub fn committed() -> &'static ApiDescription {
    static DESCRIPTION: OnceLock<ApiDescription> = OnceLock::new();
    DESCRIPTION.get_or_init(|| ApiDescription::new(committed_document()))
}

/// JSON Pointer escaping of one reference token, percent-encoded for a URI fragment.
fn escape(token: &str) -> String {
    token
        .replace('~', "~0")
        .replace('/', "~1")
        .replace('{', "%7B")
        .replace('}', "%7D")
}

impl ApiDescription {
    /// Reads a document.
    #[must_use]
    pub fn new(document: Value) -> Self {
        assert!(
            document["openapi"]
                .as_str()
                .is_some_and(|v| v.starts_with("3.1")),
            "not an OpenAPI 3.1 document"
        );
        Self {
            document,
            checked: Mutex::new(BTreeSet::new()),
            validators: Mutex::new(HashMap::new()),
        }
    }

    /// The document.
    #[must_use]
    pub fn document(&self) -> &Value {
        &self.document
    }

    /// Every operation: `(method, path template)`, the method in lower case.
    #[must_use]
    pub fn operations(&self) -> Vec<(String, String)> {
        let mut operations = Vec::new();
        for (path, item) in self.document["paths"].as_object().expect("paths") {
            for method in item.as_object().expect("path item").keys() {
                if [
                    "get", "put", "post", "delete", "patch", "head", "options", "trace",
                ]
                .contains(&method.as_str())
                {
                    operations.push((method.clone(), path.clone()));
                }
            }
        }
        operations
    }

    /// The operation object.
    #[must_use]
    #[track_caller]
    pub fn operation(&self, method: &str, path: &str) -> &Value {
        let operation = &self.document["paths"][path][method];
        assert!(
            operation.is_object(),
            "the document has no operation {method} {path}"
        );
        operation
    }

    /// The value a local reference (`#/...`) points at.
    #[must_use]
    #[track_caller]
    pub fn resolve(&self, reference: &str) -> &Value {
        reference
            .strip_prefix('#')
            .and_then(|pointer| self.document.pointer(pointer))
            .unwrap_or_else(|| panic!("{reference} resolves to nothing"))
    }

    /// Asserts that `reply` is an answer the operation documents: its status, its content type
    /// and a body valid against that content's schema (formats checked), and the headers it
    /// lists as required. Records it as checked.
    #[track_caller]
    pub fn check(&self, method: &str, path: &str, reply: &Reply) {
        let status = reply.status.to_string();
        let operation = self.operation(method, path);
        let response = &operation["responses"][&status];
        assert!(
            response.is_object(),
            "{}: status {status} is not documented for {method} {path} (body {})",
            reply.request,
            reply.text
        );
        for (name, header) in response["headers"].as_object().into_iter().flatten() {
            let header = match header["$ref"].as_str() {
                Some(reference) => self.resolve(reference),
                None => header,
            };
            if header["required"] != true {
                continue;
            }
            assert!(
                reply.header(name).is_some(),
                "{}: documented header {name} missing from the {status} answer",
                reply.request
            );
        }
        let Some(content) = response["content"].as_object() else {
            assert!(
                reply.text.is_empty(),
                "{}: {status} documents no body, got {:?}",
                reply.request,
                reply.text
            );
            self.record(method, path, &status);
            return;
        };
        let content_type = reply
            .header("content-type")
            .unwrap_or_default()
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_owned();
        assert!(
            content.contains_key(&content_type),
            "{}: content type {content_type:?} not documented for {status} (documented: {:?})",
            reply.request,
            content.keys().collect::<Vec<_>>()
        );
        if content_type == "application/json" {
            let pointer = format!(
                "#/paths/{}/{method}/responses/{status}/content/application~1json/schema",
                escape(path)
            );
            self.validate(&pointer, &reply.json(), &reply.request);
        }
        self.record(method, path, &status);
    }

    /// Where `instance` breaks the schema at `pointer` (`#/...`) of the document, formats
    /// included; empty when it is valid.
    #[must_use]
    #[track_caller]
    pub fn errors(&self, pointer: &str, instance: &Value) -> Vec<String> {
        self.validator(pointer)
            .iter_errors(instance)
            .map(|e| format!("at {}: {e}", e.instance_path()))
            .collect()
    }

    /// The compiled schema at `pointer`, compiled once.
    #[track_caller]
    fn validator(&self, pointer: &str) -> Arc<jsonschema::Validator> {
        let mut validators = self.validators.lock().expect("lock");
        if let Some(validator) = validators.get(pointer) {
            return Arc::clone(validator);
        }
        let mut schema = self.document.clone();
        schema["$ref"] = Value::String(pointer.to_owned());
        let validator = Arc::new(
            jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .should_validate_formats(true)
                .build(&schema)
                .unwrap_or_else(|e| panic!("the schema at {pointer} does not compile: {e}")),
        );
        validators.insert(pointer.to_owned(), Arc::clone(&validator));
        validator
    }

    /// The documented path template a concrete path matches (`{...}` stands for one segment).
    #[must_use]
    pub fn template_of(&self, method: &str, path: &str) -> Option<String> {
        let path = path.split('?').next().unwrap_or_default();
        let segments: Vec<&str> = path.split('/').collect();
        self.document["paths"]
            .as_object()?
            .iter()
            .filter(|(_, item)| item[method].is_object())
            .map(|(template, _)| template)
            .find(|template| {
                let parts: Vec<&str> = template.split('/').collect();
                parts.len() == segments.len()
                    && parts.iter().zip(&segments).all(|(part, segment)| {
                        (part.starts_with('{') && !segment.is_empty()) || part == segment
                    })
            })
            .cloned()
    }

    /// Checks `reply` as [`check`](Self::check) does when its request names a documented
    /// operation. A path no operation documents (unknown routes, /metrics, /docs) and 405
    /// answers (documented once for the whole API) are left to the tests that ask for them.
    #[track_caller]
    pub fn check_any(&self, method: &str, path: &str, reply: &Reply) {
        let method = method.to_ascii_lowercase();
        if reply.status == 405 {
            return;
        }
        if let Some(template) = self.template_of(&method, path) {
            self.check(&method, &template, reply);
        }
    }

    /// Asserts `instance` is valid against the schema at `pointer` (`#/...`) of the document.
    #[track_caller]
    pub fn validate(&self, pointer: &str, instance: &Value, what: &str) {
        let errors = self.errors(pointer, instance);
        assert!(
            errors.is_empty(),
            "{what}: body does not match {pointer}:\n{}\nbody: {instance}",
            errors.join("\n")
        );
    }

    fn record(&self, method: &str, path: &str, status: &str) {
        self.checked.lock().expect("lock").insert((
            method.to_owned(),
            path.to_owned(),
            status.to_owned(),
        ));
    }

    /// The operations none of whose success answers (2xx, or the guest page's 303) was
    /// checked.
    #[must_use]
    pub fn unchecked_successes(&self) -> Vec<(String, String)> {
        let checked = self.checked.lock().expect("lock");
        self.operations()
            .into_iter()
            .filter(|(method, path)| {
                !checked
                    .iter()
                    .any(|(m, p, s)| m == method && p == path && (s.starts_with('2') || s == "303"))
            })
            .collect()
    }

    /// Every `(method, path, status)` checked so far.
    #[must_use]
    pub fn checked(&self) -> BTreeSet<(String, String, String)> {
        self.checked.lock().expect("lock").clone()
    }
}

/// The HTTP method of a document's operation key (`get`, `post`, ...).
///
/// # Panics
/// When the key is not a method name.
#[must_use]
pub fn operation_method(name: &str) -> reqwest::Method {
    reqwest::Method::from_bytes(name.to_uppercase().as_bytes()).expect("method")
}

/// A concrete path for a document's path template: an unknown id for each path parameter.
///
/// # Panics
/// When a `{` has no closing brace.
#[must_use]
pub fn concrete_path(path: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').expect("closing brace") + start;
        out.push_str(&crate::unknown_id());
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}
