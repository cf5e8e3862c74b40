//! The OpenAPI 3.1 description of the API, generated from the code: the operations come from
//! the route table ([`crate::routes::operations`]), each described by its handler's
//! `#[utoipa::path]`, the shapes from the views, the bodies and the domain's types; the error
//! answers every operation shares (auth, rate limit, bodies, idempotency) are added by
//! [`document`] from the one error table (the `errors` submodule). Served at
//! `GET /api/v1/openapi.json` and rendered by the vendored Swagger UI at `GET /docs/`.

pub(crate) mod envelopes;
mod errors;
mod inputs;
pub(crate) mod schemas;
pub mod webhooks;

use std::sync::LazyLock;

use actix_web::HttpResponse;
use actix_web::http::header;
use serde_json::Value;
use utoipa::OpenApi;
use utoipa_swagger_ui::{Config, SwaggerUi};

use crate::routes;

/// Where the document is served.
pub const DOCUMENT_PATH: &str = "/api/v1/openapi.json";

/// What the document says besides its operations: its description, tags and the error schema.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "procflow API",
        description = "Process templates, runs started from them, their tasks and form fields, \
            and sharing a run with a guest.\n\n\
            Every operation under `/api/v1` (but this document) takes `Authorization: Bearer \
            <API key>`. Bodies are JSON (`Content-Type: application/json`, at most 1 MiB); \
            unknown fields are refused (400), and so are query parameters an operation does not \
            list, on every operation but the guest pages (`/instance/...`, which read their \
            `token` and ignore the rest, as links in emails may carry more). Every response \
            carries `X-Request-Id`; every authenticated response `RateLimit-Limit`, \
            `RateLimit-Remaining` and `RateLimit-Reset`. Every error is \
            `{\"error\": {\"code\", \"message\"}}`; a method a path does not list answers 405 \
            `method_not_allowed`, a path not listed 404 `not_found`. `POST` and `PATCH` \
            operations accept an `Idempotency-Key`: the same key with the same body replays \
            the first answer.\n\n\
            Single resources (a template, a run, a task) answer a strong `ETag`: send it in \
            `If-None-Match` to get 304 while it is current, or in `If-Match` on `PATCH` and \
            `PUT` to apply the write only if nothing changed since (else 412 \
            `precondition_failed`, nothing changed). An API key of scope `read` may call only \
            `GET` operations; anything else answers 403 `forbidden`."
    ),
    // `SectionDocument` and `ElementDocument` are referred to by name from the `sections` of
    // a `TemplateDocument` and the `custom_elements` of a `TaskDocument`, whose schemas the
    // domain builds with their limits; `Rule` from the `rules` of documents, templates and
    // runs, likewise; `TaskStatus` from the inbox's `status` parameter.
    components(schemas(
        procflow_wire::ErrorResponse,
        procflow_domain::template::SectionDocument,
        procflow_domain::template::ElementDocument,
        procflow_domain::openapi::RuleSchema,
        procflow_domain::run::TaskStatus,
        procflow_domain::webhook::WebhookEvent,
        webhooks::Envelope
    )),
    // A relative URL: the server that serves this document. A client is given the address of
    // its deployment (`PROCFLOW_PUBLIC_URL`); the document names none.
    servers((url = "/", description = "The server that serves this document")),
    tags(
        (name = "templates", description = "Process templates and their authoring"),
        (name = "runs", description = "Runs started from published templates"),
        (name = "tasks", description = "The tasks of a run"),
        (name = "sharing", description = "Sharing a run with an external guest"),
        (name = "meta", description = "This description and the health checks"),
        (name = "guest", description = "The page a guest opens from a share link"),
        (name = "comments", description = "Comments on a run's tasks: plain text with mentions"),
        (name = "attachments", description = "Files attached to a run's tasks"),
        (name = "webhooks", description = "Webhook endpoints, their deliveries, and the event feed"),
        (name = "schedules", description = "Runs started on a recurrence"),
    )
)]
pub struct ApiDoc;

/// The whole document: the operations of the route table and the schemas they use, with the
/// shared error answers, headers and security.
#[must_use]
pub fn document() -> Value {
    let mut api = ApiDoc::openapi();
    for operation in routes::operations() {
        operation.describe_in(&mut api);
    }
    let mut document = serde_json::to_value(api).unwrap_or_default();
    errors::complete(&mut document);
    inputs::complete(&mut document);
    document
}

/// The document as served and as committed in `docs/openapi.json`: pretty, one final newline.
#[must_use]
pub fn document_json() -> String {
    let mut text = serde_json::to_string_pretty(&document()).unwrap_or_default();
    text.push('\n');
    text
}

static DOCUMENT: LazyLock<String> = LazyLock::new(document_json);

/// This document.
#[utoipa::path(
    get,
    path = "/api/v1/openapi.json",
    tag = "meta",
    operation_id = "getOpenApi",
    responses(
        (status = 200, description = "This OpenAPI 3.1 document", content_type = "application/json", body = Object)
    )
)]
pub async fn serve_document() -> HttpResponse {
    HttpResponse::Ok()
        .content_type(header::ContentType::json())
        .body(DOCUMENT.as_str())
}

/// `GET /docs` sends the browser to `/docs/`, where the page's relative links resolve.
pub async fn docs_redirect() -> HttpResponse {
    HttpResponse::PermanentRedirect()
        .insert_header((header::LOCATION, "/docs/"))
        .finish()
}

/// The Swagger UI page and its files under `/docs/`, compiled into the binary (no CDN): it
/// reads the document from [`DOCUMENT_PATH`].
#[must_use]
pub fn swagger_ui() -> SwaggerUi {
    SwaggerUi::new("/docs/{_:.*}").config(
        Config::from(DOCUMENT_PATH)
            .try_it_out_enabled(false)
            .display_operation_id(true)
            .persist_authorization(false),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn operations(document: &Value) -> Vec<(String, String)> {
        let mut found = Vec::new();
        for (path, item) in document["paths"].as_object().unwrap() {
            for method in item.as_object().unwrap().keys() {
                found.push((method.clone(), path.clone()));
            }
        }
        found
    }

    #[test]
    fn the_document_is_openapi_3_1_and_lists_every_route() {
        let document = document();
        assert!(document["openapi"].as_str().unwrap().starts_with("3.1"));
        let operations = operations(&document);
        assert_eq!(operations.len(), 54, "{operations:?}");
        for (method, path) in [
            ("get", "/api/v1/process-templates"),
            ("post", "/api/v1/process-templates"),
            ("get", "/api/v1/process-templates/{id}"),
            ("put", "/api/v1/process-templates/{id}"),
            ("delete", "/api/v1/process-templates/{id}"),
            ("get", "/api/v1/process-templates/{id}/tasks"),
            ("post", "/api/v1/process-templates/{id}/publish"),
            ("get", "/api/v1/process-templates/{id}/run-link"),
            ("post", "/api/v1/process-templates/{id}/run-link"),
            ("delete", "/api/v1/process-templates/{id}/run-link"),
            ("get", "/api/v1/process-runs"),
            ("post", "/api/v1/process-runs"),
            ("get", "/api/v1/process-runs/{id}"),
            ("post", "/api/v1/process-runs/{id}/invite"),
            ("delete", "/api/v1/process-runs/{id}/invite"),
            ("get", "/api/v1/process-runs/{id}/tasks"),
            ("get", "/api/v1/tasks"),
            ("get", "/api/v1/process-runs/{id}/tasks/{task_id}"),
            ("patch", "/api/v1/process-runs/{id}/tasks/{task_id}"),
            ("patch", "/api/v1/process-runs/{id}/tasks"),
            ("get", "/api/v1/process-runs/{id}/tasks/{task_id}/comments"),
            ("post", "/api/v1/process-runs/{id}/tasks/{task_id}/comments"),
            ("patch", "/api/v1/comments/{id}"),
            ("delete", "/api/v1/comments/{id}"),
            ("get", "/api/v1/openapi.json"),
            ("get", "/healthz"),
            ("get", "/readyz"),
            ("get", "/instance/{run_id}"),
            ("post", "/instance/{run_id}/tasks/{task_id}"),
            ("post", "/instance/{run_id}/tasks/{task_id}/comments"),
            ("get", "/instance/{run_id}/tasks/{task_id}/comments"),
            ("get", "/instance/{run_id}/tasks/{task_id}"),
            ("post", "/instance/{run_id}/tasks/{task_id}/attachments"),
            ("get", "/instance/{run_id}/tasks/{task_id}/attachments"),
            ("get", "/instance/{run_id}/attachments/{attachment_id}"),
            ("get", "/api/v1/schedules"),
            ("post", "/api/v1/schedules"),
            ("get", "/api/v1/schedules/{id}"),
            ("patch", "/api/v1/schedules/{id}"),
            ("delete", "/api/v1/schedules/{id}"),
            ("get", "/api/v1/webhooks"),
            ("post", "/api/v1/webhooks"),
            ("get", "/api/v1/webhooks/{id}"),
            ("patch", "/api/v1/webhooks/{id}"),
            ("delete", "/api/v1/webhooks/{id}"),
            ("post", "/api/v1/webhooks/{id}/rotate-secret"),
            ("post", "/api/v1/webhooks/{id}/test"),
            ("get", "/api/v1/webhooks/{id}/deliveries"),
            ("post", "/api/v1/webhook-deliveries/{id}/redeliver"),
            ("get", "/api/v1/events"),
        ] {
            assert!(
                operations.contains(&(method.to_owned(), path.to_owned())),
                "{method} {path} missing"
            );
        }
    }

    #[test]
    fn every_operation_has_an_id_a_success_and_its_errors() {
        let document = document();
        for (method, path) in operations(&document) {
            let operation = &document["paths"][&path][&method];
            assert!(operation["operationId"].is_string(), "{method} {path}");
            let responses = operation["responses"].as_object().unwrap();
            // A success is a 2xx, or the guest page's 303 back to itself.
            assert!(
                responses.keys().any(|s| s.starts_with('2') || s == "303"),
                "{method} {path}: no success"
            );
            assert!(responses.contains_key("500"), "{method} {path}: no 500");
            let authenticated = path.starts_with("/api/v1/") && path != DOCUMENT_PATH;
            let security = if authenticated {
                serde_json::json!([{"bearer": []}])
            } else {
                serde_json::json!([])
            };
            assert_eq!(operation["security"], security, "{method} {path}: security");
            if authenticated {
                for status in ["401", "403", "429", "503"] {
                    assert!(responses.contains_key(status), "{method} {path}: {status}");
                }
            }
            if operation["requestBody"].is_object() {
                for status in ["400", "413", "415"] {
                    assert!(responses.contains_key(status), "{method} {path}: {status}");
                }
                assert_eq!(operation["requestBody"]["required"], true);
            }
            if ["post", "patch"].contains(&method.as_str()) && authenticated {
                assert!(responses.contains_key("422"), "{method} {path}");
                let parameters = operation["parameters"].as_array().unwrap();
                assert!(
                    parameters
                        .iter()
                        .any(|p| p["$ref"] == "#/components/parameters/Idempotency-Key"),
                    "{method} {path}: no Idempotency-Key"
                );
            }
        }
    }

    fn parameters(operation: &Value) -> Vec<&str> {
        operation["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["$ref"].as_str())
            .collect()
    }

    #[test]
    fn every_single_get_documents_its_etag_and_304_and_every_write_its_if_match_and_412() {
        let document = document();
        let mut singles = Vec::new();
        for (method, path) in operations(&document) {
            let operation = &document["paths"][&path][&method];
            let responses = &operation["responses"];
            let authenticated = path.starts_with("/api/v1/") && path != DOCUMENT_PATH;
            let single = authenticated && method == "get" && path.ends_with('}');
            if single {
                singles.push(path.clone());
                assert!(
                    parameters(operation).contains(&"#/components/parameters/If-None-Match"),
                    "{path}"
                );
                for status in ["200", "304"] {
                    assert_eq!(
                        responses[status]["headers"]["ETag"]["$ref"], "#/components/headers/ETag",
                        "{path} {status}"
                    );
                }
                assert!(
                    responses["304"]["content"].is_null(),
                    "{path}: 304 has no body"
                );
            } else {
                assert!(responses["304"].is_null(), "{method} {path}");
            }
            let write = authenticated && ["patch", "put"].contains(&method.as_str());
            assert_eq!(
                parameters(operation).contains(&"#/components/parameters/If-Match"),
                write,
                "{method} {path}"
            );
            assert_eq!(responses["412"].is_object(), write, "{method} {path}");
        }
        singles.sort();
        assert_eq!(
            singles,
            [
                "/api/v1/process-runs/{id}",
                "/api/v1/process-runs/{id}/tasks/{task_id}",
                "/api/v1/process-templates/{id}",
                "/api/v1/schedules/{id}",
                "/api/v1/webhooks/{id}",
            ]
        );
        let batch = &document["paths"]["/api/v1/process-runs/{id}/tasks"]["patch"];
        assert!(
            batch["responses"]["200"]["headers"]["ETag"].is_null(),
            "a list has no tag"
        );
    }

    #[test]
    fn every_reference_resolves() {
        let document = document();
        let text = serde_json::to_string(&document).unwrap();
        for piece in text.split("\"$ref\":\"").skip(1) {
            let reference = &piece[..piece.find('"').unwrap()];
            let pointer = reference.strip_prefix('#').unwrap();
            assert!(
                document.pointer(pointer).is_some(),
                "{reference} resolves to nothing"
            );
        }
    }
}
