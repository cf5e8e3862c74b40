//! The answers the annotations leave to one table: the error answers of each operation (API
//! contract 1, as `error.rs` and the extractors produce them), the bearer scheme, the
//! `Idempotency-Key` header of `POST` and `PATCH` operations, the conditional requests of
//! single resources and writes (`ETag`, `If-None-Match` and 304 on single GETs, `If-Match` and
//! 412 on `PATCH` and `PUT`: `crate::conditional`), and the headers every answer carries.

use serde_json::{Map, Value, json};

use procflow_domain::error::ErrorCode;

use actix_web::http::Method;

use crate::conditional::{is_single_get, takes_if_match};
use crate::idempotency;
use crate::routes::authenticated;

/// An error answer: its code (which says its status), and when it happens.
type Case = (ErrorCode, &'static str);

const UNAUTHORIZED: Case = (
    ErrorCode::Unauthorized,
    "The API key is missing, malformed, unknown or revoked.",
);
const FORBIDDEN: Case = (
    ErrorCode::Forbidden,
    "The team's subscription is not active.",
);
const FORBIDDEN_WRITE: Case = (
    ErrorCode::Forbidden,
    "The team's subscription is not active, or the API key's scope is `read`: this operation changes something and needs the `write` scope.",
);
const BAD_IF_MATCH: Case = (
    ErrorCode::ValidationError,
    "`If-Match` is neither `*` nor a list of entity tags (`\"...\"` or `W/\"...\"`).",
);
const PRECONDITION_FAILED: Case = (
    ErrorCode::PreconditionFailed,
    "`If-Match` names no current `ETag` of the resource (a weak tag never matches): it changed since it was read; nothing was changed. `GET` it again and retry.",
);
const BAD_IF_NONE_MATCH: Case = (
    ErrorCode::ValidationError,
    "`If-None-Match` is neither `*` nor a list of entity tags (`\"...\"` or `W/\"...\"`).",
);
const RATE_LIMITED: Case = (
    ErrorCode::RateLimited,
    "Over the rate limit of the API key; retry after `Retry-After` seconds.",
);
const UNAVAILABLE: Case = (
    ErrorCode::Unavailable,
    "The database does not answer; retry after `Retry-After` seconds.",
);
const INTERNAL: Case = (
    ErrorCode::InternalError,
    "An unexpected failure; details go to the log.",
);
const BAD_QUERY: Case = (
    ErrorCode::ValidationError,
    "A query parameter is unknown or invalid: `limit` outside 1..=100, a `cursor` that names no item of the list, a bad filter.",
);
const UNEXPECTED_QUERY: Case = (
    ErrorCode::ValidationError,
    "A query parameter is given; this operation takes none.",
);
const BAD_BODY: Case = (
    ErrorCode::ValidationError,
    "The body is not a JSON object, is malformed, has an unknown field or a field of the wrong type or value; the message names the field.",
);
const TOO_LARGE: Case = (
    ErrorCode::PayloadTooLarge,
    "The body is over the limit (1 MiB by default).",
);
const NOT_JSON: Case = (
    ErrorCode::UnsupportedMediaType,
    "The body is not sent as `Content-Type: application/json`.",
);
const UPLOAD_BAD: Case = (
    ErrorCode::ValidationError,
    "The multipart body is malformed, or has no part named `file`.",
);
const UPLOAD_TOO_LARGE: Case = (
    ErrorCode::PayloadTooLarge,
    "The file is over `PROCFLOW_UPLOAD_MAX_BYTES` (25 MiB by default): refused on a `Content-Length` over it (plus 64 KiB for the multipart envelope) before the body is read, else as soon as the file's bytes pass it. Nothing is stored.",
);
const NOT_MULTIPART: Case = (
    ErrorCode::UnsupportedMediaType,
    "The body is not sent as `Content-Type: multipart/form-data`.",
);
const IN_FLIGHT: Case = (
    ErrorCode::IdempotencyInFlight,
    "A request with the same `Idempotency-Key` is still running.",
);
const SCHEDULE: Case = (
    ErrorCode::NotFound,
    "No such schedule (or it is another team's, or the id is no id).",
);
const SCHEDULE_BODY: Case = (
    ErrorCode::ValidationError,
    "A recurrence the scheduler cannot evaluate, naming the part (an unsupported `RRULE` part or `FREQ`, more than one occurrence per 15 minutes, `UNTIL` before `DTSTART`, a `DTSTART` that is no local date-time or that the clocks skip, a rule with no occurrence); a timezone that is no IANA name; a blank name; in `run`: a bad `actor_email`, `due_in`, `invite` or a pre-filled value the published template refuses.",
);
const BAD_KEY: Case = (
    ErrorCode::ValidationError,
    "The `Idempotency-Key` is not one header of 1 to 255 visible ASCII characters.",
);
const KEY_REUSED: Case = (
    ErrorCode::IdempotencyKeyReused,
    "The `Idempotency-Key` was used before with another body.",
);

const TASK_HIDDEN: Case = (
    ErrorCode::TaskHidden,
    "The task is hidden by a rule of its run (API contract 12.2): no update may change it while hidden; in a batch, the message starts with the item, `tasks[<index>]: `.",
);
const TASK_BLOCKED: Case = (
    ErrorCode::TaskBlocked,
    "The update completes or approves a task while a task it depends on is open and not hidden; the message names those prerequisites by title. Values, the assignee, skipping and a rejection remain allowed.",
);

/// The errors particular to one operation, by operation id.
fn particular(operation_id: &str) -> &'static [Case] {
    const TEMPLATE: Case = (
        ErrorCode::NotFound,
        "No such process template (or it is another team's, archived, or the id is no id).",
    );
    const RUN: Case = (
        ErrorCode::NotFound,
        "No such process run (or it is another team's, or the id is no id).",
    );
    const TASK: Case = (
        ErrorCode::NotFound,
        "No such process run or task (or it is another team's, or an id is no id).",
    );
    const WEBHOOK: Case = (
        ErrorCode::NotFound,
        "No such webhook endpoint (or it is another team's, or the id is no id).",
    );
    const COMMENT: Case = (
        ErrorCode::NotFound,
        "No such comment (or it is another team's, or the id is no id).",
    );
    const WEBHOOK_BODY: Case = (
        ErrorCode::ValidationError,
        "A `url` outside the grammar, an unknown or repeated event name, or a description over 500 characters.",
    );
    match operation_id {
        "getTemplate" | "archiveTemplate" | "listTemplateTasks" => &[TEMPLATE],
        "replaceTemplate" => &[
            TEMPLATE,
            (
                ErrorCode::TemplatePublished,
                "The template is published: unpublish it first.",
            ),
        ],
        "publishTemplate" => &[
            TEMPLATE,
            (
                ErrorCode::TemplateHasNoTask,
                "Publishing a template that has no task.",
            ),
        ],
        "createTemplate" => &[(
            ErrorCode::ValidationError,
            "The document breaks a rule (blank title, options on an element that has none, a duplicate id, ...); the message names the path at fault, such as `sections[0].tasks[1].custom_elements[0].options`.",
        )],
        "createRun" => &[
            (
                ErrorCode::NotFound,
                "No such process template (or the `template_id` is no id).",
            ),
            (
                ErrorCode::TemplateNotPublished,
                "The template is not published.",
            ),
            (
                ErrorCode::ValidationError,
                "A bad `due_date`, or a pre-filled value that is invalid for its element or names no task or element of the template.",
            ),
        ],
        "getRun" | "listRunTasks" | "stopSharing" => &[RUN],
        "inviteGuest" => &[
            RUN,
            (
                ErrorCode::GuestIsTeamMember,
                "The email is a team member's: use `actor_email` on Create a run instead.",
            ),
            (
                ErrorCode::GuestAlreadyInvited,
                "The run already has another guest.",
            ),
            (
                ErrorCode::ValidationError,
                "An email that is no email, or `reminder_days` outside 1..=365.",
            ),
        ],
        "getRunTask" => &[TASK],
        "updateRunTask" => &[
            TASK,
            (
                ErrorCode::RunCompleted,
                "The run is completed: its tasks cannot change.",
            ),
            TASK_HIDDEN,
            TASK_BLOCKED,
            (
                ErrorCode::ValidationError,
                "A value invalid for its element (a dropdown or multichoice value not in its options: the message lists them), a display-only element written, an unknown element, skipping an essential task, `completed` and `skipped` both true, a decision on a task that is no approval, an assignee that is neither a member nor an email.",
            ),
        ],
        "updateRunTasks" => &[
            RUN,
            (
                ErrorCode::RunCompleted,
                "The run is completed: its tasks cannot change.",
            ),
            TASK_HIDDEN,
            TASK_BLOCKED,
            (
                ErrorCode::ValidationError,
                "No task or more than 100; or an item refused, named by its index and task (`tasks[1] (task <id>): ...`): a task that is not the run's or is named twice, or anything a single task update refuses. Nothing was changed.",
            ),
        ],
        "getWebhook" | "deleteWebhook" | "rotateWebhookSecret" | "listWebhookDeliveries" => {
            &[WEBHOOK]
        }
        "createWebhook" => &[WEBHOOK_BODY],
        "updateWebhook" => &[WEBHOOK, WEBHOOK_BODY],
        "testWebhook" => &[
            WEBHOOK,
            (
                ErrorCode::ValidationError,
                "An `event` that is no event name (the message lists them).",
            ),
        ],
        "redeliverWebhook" => &[(
            ErrorCode::NotFound,
            "No such delivery (or it is another team's, was swept after 30 days, or the id is no id).",
        )],
        "getSchedule" | "deleteSchedule" => &[SCHEDULE],
        "getRunLink" | "enableRunLink" | "disableRunLink" => &[TEMPLATE],
        "createSchedule" => &[
            (
                ErrorCode::NotFound,
                "No such process template (or the `template_id` is no id).",
            ),
            SCHEDULE_BODY,
        ],
        "updateSchedule" => &[SCHEDULE, SCHEDULE_BODY],
        "listTaskComments" => &[TASK],
        "createTaskComment" => &[
            TASK,
            (
                ErrorCode::TaskHidden,
                "The task is hidden by a rule of its run (API contract 12.2): it takes no comment while hidden.",
            ),
            (
                ErrorCode::ValidationError,
                "A `text` that is empty, blank, over 10,000 characters or holds NUL; an `attachment_ids` item that names no attachment of the task.",
            ),
        ],
        "updateComment" => &[
            COMMENT,
            (
                ErrorCode::Conflict,
                "The comment is deleted: it cannot be edited.",
            ),
            (
                ErrorCode::ValidationError,
                "A `text` that is empty, blank, over 10,000 characters or holds NUL.",
            ),
        ],
        "deleteComment" => &[COMMENT],
        "listTaskAttachments" => &[TASK],
        "uploadTaskAttachment" => &[
            TASK,
            (
                ErrorCode::TaskHidden,
                "The task is hidden by a rule of its run (API contract 12.2): it takes no attachment while hidden.",
            ),
        ],
        "downloadAttachment" | "deleteAttachment" => &[(
            ErrorCode::NotFound,
            "No such attachment (or it is another team's, or the id is no id).",
        )],
        "readiness" => &[UNAVAILABLE],
        _ => &[],
    }
}

/// The errors of an operation: the particular ones, then those its traits bring.
fn cases(method: &str, path: &str, operation: &Value) -> Vec<Case> {
    let operation_id = operation["operationId"].as_str().unwrap_or_default();
    let mut cases = particular(operation_id).to_vec();
    let has_query = operation["parameters"]
        .as_array()
        .is_some_and(|p| p.iter().any(|p| p["in"] == "query"));
    // The guest pages (which all take `token`) ignore other parameters: a link in an email
    // may carry a mail client's; every other operation refuses the ones it does not declare.
    if !has_query {
        cases.push(UNEXPECTED_QUERY);
    } else if path.starts_with("/api/") {
        cases.push(BAD_QUERY);
    }
    if operation["requestBody"]["content"]["multipart/form-data"].is_object() {
        cases.extend([UPLOAD_BAD, UPLOAD_TOO_LARGE, NOT_MULTIPART]);
    } else if operation["requestBody"].is_object() {
        cases.extend([BAD_BODY, TOO_LARGE, NOT_JSON]);
    }
    if authenticated(path) {
        let forbidden = if method == "get" {
            FORBIDDEN
        } else {
            FORBIDDEN_WRITE
        };
        cases.extend([UNAUTHORIZED, forbidden, RATE_LIMITED, UNAVAILABLE]);
        if idempotency::guards(&http_method(method)) {
            cases.extend([BAD_KEY, IN_FLIGHT, KEY_REUSED]);
        }
        if takes_if_match(&http_method(method)) {
            cases.extend([BAD_IF_MATCH, PRECONDITION_FAILED]);
        }
        if is_single_get(&http_method(method), path) {
            cases.push(BAD_IF_NONE_MATCH);
        }
    }
    cases.push(INTERNAL);
    cases
}

/// The method an OpenAPI operation key names (`get`, `patch`, ...).
fn http_method(name: &str) -> Method {
    Method::from_bytes(name.to_ascii_uppercase().as_bytes()).unwrap_or(Method::GET)
}

/// A header the answers it is listed on always carry.
fn header(description: &str, schema: Value) -> Value {
    json!({"description": description, "required": true, "schema": schema})
}

/// The reusable headers.
fn headers() -> Value {
    json!({
        "X-Request-Id": header("The request's id, also in the log.", json!({"type": "string"})),
        "RateLimit-Limit": header("Requests accepted per API key in any rolling minute.", json!({"type": "integer", "minimum": 0})),
        "RateLimit-Remaining": header("Requests the key may still make in the current window.", json!({"type": "integer", "minimum": 0})),
        "RateLimit-Reset": header("Seconds until the window frees a request.", json!({"type": "integer", "minimum": 0})),
        "Retry-After": header("Seconds to wait before retrying.", json!({"type": "integer", "minimum": 1})),
        "WWW-Authenticate": header("`Bearer`.", json!({"type": "string"})),
        "ETag": header(
            "The strong entity tag of the resource's current representation: send it back in `If-None-Match` to get 304 while it has not changed, or in `If-Match` to apply a write only if it has not.",
            etag_schema(),
        ),
        "Idempotency-Replayed": {
            "description": "`true` on an answer replayed for a repeated `Idempotency-Key`.",
            "required": false,
            "schema": {"type": "string", "enum": ["true"]},
        },
    })
}

/// What an `ETag` we send looks like: 32 hex digits in double quotes.
fn etag_schema() -> Value {
    json!({"type": "string", "pattern": "^\"[0-9a-f]{32}\"$"})
}

fn header_ref(name: &str) -> Value {
    json!({"$ref": format!("#/components/headers/{name}")})
}

/// One response for every case of a status: its codes listed, one example per code.
fn error_response(status: u16, cases: &[&Case]) -> Value {
    let description = cases
        .iter()
        .map(|(code, why)| format!("`{code}`: {why}"))
        .collect::<Vec<_>>()
        .join("\n\n");
    let mut examples = Map::new();
    for (code, why) in cases {
        if !examples.contains_key(code.as_str()) {
            examples.insert(
                code.as_str().to_owned(),
                json!({"summary": why, "value": {"error": {"code": code.as_str(), "message": why}}}),
            );
        }
    }
    // `RateLimit-*` only on answers that are sure to have been admitted: an error may come
    // before the key is (a body refused while the key is being checked, say).
    let mut headers = Map::new();
    headers.insert("X-Request-Id".into(), header_ref("X-Request-Id"));
    match status {
        401 => {
            headers.insert("WWW-Authenticate".into(), header_ref("WWW-Authenticate"));
        }
        429 => {
            for name in [
                "Retry-After",
                "RateLimit-Limit",
                "RateLimit-Remaining",
                "RateLimit-Reset",
            ] {
                headers.insert(name.into(), header_ref(name));
            }
        }
        503 => {
            headers.insert("Retry-After".into(), header_ref("Retry-After"));
        }
        _ => {}
    }
    json!({
        "description": description,
        "headers": headers,
        "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/ErrorResponse"},
            "examples": examples,
        }},
    })
}

/// The table of every error code and its status, for the document's description.
fn code_table() -> String {
    let rows: String = ErrorCode::ALL
        .iter()
        .map(|code| format!("| `{code}` | {} |\n", code.http_status()))
        .collect();
    format!("\n\n### Error codes\n\n| code | status |\n|---|---|\n{rows}")
}

/// Adds the shared answers, headers, parameters and security to utoipa's document.
pub(super) fn complete(document: &mut Value) {
    if let Some(description) = document["info"]["description"].as_str() {
        document["info"]["description"] = json!(format!("{description}{}", code_table()));
    }
    let components = &mut document["components"];
    components["headers"] = headers();
    components["securitySchemes"] = json!({"bearer": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "pf_live_<random>",
        "description": "An API key of the team: `Authorization: Bearer <API key>`.",
    }});
    // An entity-tag list as RFC 9110 writes it: `*` alone, or `"..."` / `W/"..."` separated
    // by commas, possibly none (`#entity-tag`; empty list elements are allowed, as the RFC asks
    // recipients to): an empty `If-Match` matches nothing (412). The server refuses anything
    // else with 400 (`crate::conditional`). One anchored alternation.
    let tag_list = json!({
        "type": "string",
        "pattern": "^([ \\t]*\\*[ \\t]*|[ \\t,]*((W/)?\"[!#-~]*\"([ \\t]*,[ \\t,]*(W/)?\"[!#-~]*\")*)?[ \\t,]*)$",
    });
    components["parameters"] = json!({
        "Idempotency-Key": {
            "name": "Idempotency-Key",
            "in": "header",
            "required": false,
            "description": "Makes a retry safe: a second request with the same key and body (same team, within 24 hours) gets the first one's answer (status and body) replayed; with another body 422 `idempotency_key_reused`; while the first is still running 409 `idempotency_in_flight`.",
            "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$"},
        },
        "If-Match": {
            "name": "If-Match",
            "in": "header",
            "required": false,
            "description": "Applies the write only if the resource's current `ETag` is one of these (strong comparison: a `W/` tag never matches), checked under the same lock as the write, so of two writers sending the same tag one gets 412 `precondition_failed` and changes nothing. `*` matches any existing resource. A list resource (the batch update of a run's tasks) has no `ETag`: only `*` matches it.",
            "schema": tag_list.clone(),
        },
        "If-None-Match": {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "description": "Answers 304 without a body when the resource's current `ETag` is one of these (weak comparison), or for `*`.",
            "schema": tag_list,
        },
    });
    // utoipa leaves `deny_unknown_fields` of an internally tagged enum out of its variants.
    if let Some(variants) = document["components"]["schemas"]["DueDateRule"]["oneOf"].as_array_mut()
    {
        for variant in variants {
            variant["additionalProperties"] = json!(false);
        }
    }
    let Some(paths) = document["paths"].as_object_mut() else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for (method, operation) in item.iter_mut() {
            complete_operation(method, path, operation);
        }
    }
}

fn complete_operation(method: &str, path: &str, operation: &mut Value) {
    let authenticated = authenticated(path);
    let cases = cases(method, path, operation);
    let http_method = http_method(method);
    let keyed = authenticated && idempotency::guards(&http_method);
    let single_get = is_single_get(&http_method, path);
    // A write to a single resource answers its new `ETag`; a batch (a list) answers none.
    let tagged_write = authenticated && takes_if_match(&http_method) && path.ends_with('}');
    // An operation that takes no key says so with an empty list (anonymous access, OpenAPI
    // 3.1 4.8.10) rather than saying nothing, so that a client or linter need not guess.
    operation["security"] = if authenticated {
        json!([{"bearer": []}])
    } else {
        json!([])
    };
    if authenticated {
        let mut parameters = Vec::new();
        if keyed {
            parameters.push("Idempotency-Key");
        }
        if takes_if_match(&http_method) {
            parameters.push("If-Match");
        }
        if single_get {
            parameters.push("If-None-Match");
        }
        for name in parameters {
            let parameter = json!({"$ref": format!("#/components/parameters/{name}")});
            match operation["parameters"].as_array_mut() {
                Some(parameters) => parameters.push(parameter),
                None => operation["parameters"] = json!([parameter]),
            }
        }
    }
    if let Some(body) = operation.get_mut("requestBody") {
        body["required"] = json!(true);
    }
    let Some(responses) = operation["responses"].as_object_mut() else {
        return;
    };
    if single_get {
        responses.insert(
            "304".into(),
            json!({"description": "Not modified: the `ETag` in `If-None-Match` is the resource's current one. No body."}),
        );
    }
    for (status, response) in responses.iter_mut() {
        let headers = &mut response["headers"];
        if !headers.is_object() {
            *headers = json!({});
        }
        headers["X-Request-Id"] = header_ref("X-Request-Id");
        if authenticated {
            for name in ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"] {
                headers[name] = header_ref(name);
            }
            if keyed {
                headers["Idempotency-Replayed"] = header_ref("Idempotency-Replayed");
            }
        }
        if (single_get && (status == "200" || status == "304")) || (tagged_write && status == "200")
        {
            headers["ETag"] = header_ref("ETag");
        }
        // A replayed answer is the kept status and body, without the original's headers.
        if tagged_write && keyed && status == "200" {
            headers["ETag"] = json!({
                "description": "The resource's new entity tag, for the next write's `If-Match`; absent on an answer replayed for a repeated `Idempotency-Key`.",
                "required": false,
                "schema": etag_schema(),
            });
        }
    }
    let mut statuses: Vec<u16> = cases.iter().map(|c| c.0.http_status()).collect();
    statuses.sort_unstable();
    statuses.dedup();
    for status in statuses {
        let of_status: Vec<&Case> = cases
            .iter()
            .filter(|c| c.0.http_status() == status)
            .collect();
        let key = status.to_string();
        if !responses.contains_key(&key) {
            responses.insert(key, error_response(status, &of_status));
        }
    }
}
