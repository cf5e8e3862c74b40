"""schemathesis hooks of `make fuzz` (tests/fuzz/schemathesis.toml); docs/reliability.md says
why each exists."""

import json
import os
import re
import urllib.request
import uuid
from functools import lru_cache

import jsonschema_rs  # schemathesis's own validator
import schemathesis
from hypothesis.internal.conjecture.engine import BUFFER_SIZE
from schemathesis.generation import GenerationMode
from schemathesis.generation.meta import TestPhase

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_TEMPLATE_ID = os.environ["PF_TEMPLATE_ID"]
_RUN_TEMPLATE_ID = os.environ["PF_RUN_TEMPLATE_ID"]
# The seeded objects other operations need, by the path of the operations that would remove
# them or make them unusable (a run cannot start from an unpublished template, the guest page
# needs its share).
_KEPT = {
    ("DELETE", "/api/v1/process-templates/{id}"): {_TEMPLATE_ID, _RUN_TEMPLATE_ID},
    ("PUT", "/api/v1/process-templates/{id}"): {_RUN_TEMPLATE_ID},
    ("POST", "/api/v1/process-templates/{id}/publish"): {_RUN_TEMPLATE_ID},
    ("DELETE", "/api/v1/webhooks/{id}"): {os.environ["PF_WEBHOOK_ID"]},
    ("DELETE", "/api/v1/process-runs/{id}/invite"): {os.environ["PF_SHARED_RUN_ID"]},
}
# The removals of a seeded object sent elsewhere (above, in before_call), by case id: their 404
# is the hook's doing (see filter_failure).
_REDIRECTED_REMOVALS = set()
_RUN_TASK_IDS = os.environ["PF_RUN_TASK_IDS"].split(",")
_TASK_UPDATES = {"/api/v1/process-runs/{id}/tasks", "/api/v1/process-runs/{id}/tasks/{task_id}"}
# What a task update may say that only the stored run decides: which element ids the task has
# (and so which values fit), whether it is an approval (a decision, and a comment with it), and
# whether it may be skipped (an essential task may not).
_STORED_FACTS = ("custom_elements", "decision", "comment", "skipped")


@lru_cache(maxsize=1)
def _document():
    with urllib.request.urlopen(os.environ["PF_BASE_URL"] + "/api/v1/openapi.json") as answer:
        return json.load(answer)


def _headers_outside_their_schema(case):
    """Whether a header of the case breaks its parameter's schema in the served document."""
    document = _document()
    operation = document["paths"].get(case.path, {}).get(case.method.lower(), {})
    for parameter in operation.get("parameters", []):
        if "$ref" in parameter:
            parameter = document["components"]["parameters"][parameter["$ref"].rsplit("/", 1)[-1]]
        if parameter.get("in") != "header":
            continue
        value = (case.headers or {}).get(parameter["name"])
        if value is not None and not _fits(value, json.dumps(parameter["schema"])):
            return True
    return False


@lru_cache(maxsize=None)
def _validator(schema):
    return jsonschema_rs.validator_for(json.loads(schema))


def _fits(value, schema):
    """Whether `value` is valid against `schema` (JSON text, so that its validator is kept)."""
    return _validator(schema).is_valid(value)


def _takes_idempotency_key(value):
    """Whether the server takes `value` as an Idempotency-Key, as the document says."""
    schema = _document()["components"]["parameters"]["Idempotency-Key"]["schema"]
    return _fits(value, json.dumps(schema))


@schemathesis.hook
def before_load_schema(context, raw_schema):
    """Drops the `maxLength`s hypothesis cannot go past: it draws at most BUFFER_SIZE (8,192)
    characters, and a negative case for a longer limit (one character over it) fails the whole
    operation's generation with a health check, so that operation would go unfuzzed. Those
    limits are tested in tests/tests/api/text_limits.rs."""
    _drop_long_limits(raw_schema)


def _drop_long_limits(node):
    if isinstance(node, dict):
        if isinstance(node.get("maxLength"), int) and node["maxLength"] >= BUFFER_SIZE:
            del node["maxLength"]
        for value in node.values():
            _drop_long_limits(value)
    elif isinstance(node, list):
        for value in node:
            _drop_long_limits(value)


@schemathesis.hook
def before_call(context, case, kwargs):
    # The seeded objects stay (schemathesis reuses ids it has seen in answers anywhere): a
    # removal of one goes to an id that names nothing (404), a change of the run template to
    # the authoring one.
    kept = _KEPT.get((case.method, case.path), set())
    if isinstance(case.path_parameters, dict) and case.path_parameters.get("id") in kept:
        removal = case.method == "DELETE"
        case.path_parameters["id"] = str(uuid.uuid4()) if removal else _TEMPLATE_ID
        if removal:
            _REDIRECTED_REMOVALS.add(case.id)
    meta = case.meta
    # The stateful phase follows what a POST to a collection created; a dry run
    # (`validate_only=true`, API contract 15.2) creates nothing, and its would-be id names
    # nothing afterwards (404). Stateful cases go without it; the other phases fuzz it, and
    # tests/tests/api/validate_only.rs proves it writes nothing. A drawn value the schema
    # refuses stays: that case is negative (400, nothing created), and removing it would turn
    # it positive with the rest of its body drawn for a negative case.
    if (
        meta is not None
        and meta.phase.name == TestPhase.STATEFUL
        and isinstance(case.query, dict)
        and case.query.get("validate_only") in (True, False, "true", "false")
    ):
        del case.query["validate_only"]
    if meta is not None and meta.generation.mode == GenerationMode.POSITIVE:
        # schemathesis 4.32.5's coverage phase labels some cases positive although one of their
        # parts was drawn negative, or drawn outside its schema: it draws header values from
        # letters and digits only, so an `If-Match` it cannot draw (every one needs `*` or `"`)
        # goes out empty in its "all properties" scenario. Such a case is negative, and
        # negative_data_rejection judges it.
        if any(
            part.mode == GenerationMode.NEGATIVE for part in meta.components.values()
        ) or _headers_outside_their_schema(case):
            meta.generation.mode = GenerationMode.NEGATIVE
        # A made-up `cursor` names no item of the list: 400 by the API contract (section
        # Pagination), which a schema cannot express. Positive cases go without one; negative
        # ones keep theirs, and tests/tests/api/pagination.rs covers unknown cursors.
        elif isinstance(case.query, dict) and "cursor" in case.query:
            del case.query["cursor"]
        # A task update's positive cases keep to what a schema can say (docs/reliability.md,
        # third allowance): a batch names the run's real tasks, each once; the fields whose
        # validity depends on the stored task are left out; a made-up member id as assignee
        # (no member of the team: 400) becomes an outside email.
        if case.method == "PATCH" and case.path in _TASK_UPDATES and isinstance(case.body, dict):
            items = case.body.get("tasks")
            if isinstance(items, list):
                del items[len(_RUN_TASK_IDS):]
                for item, task_id in zip(items, _RUN_TASK_IDS):
                    if isinstance(item, dict):
                        item["id"] = task_id
                        _keep_to_the_schema(item)
            _keep_to_the_schema(case.body)
        # A template document's process logic names tasks and elements of the same document
        # (API contract 12.1: a `ref` unique in the document, references to its tasks and
        # elements, rules that look forward, no cycle): rules across its parts that no schema
        # can express, as with the third allowance. Positive cases go without it; negative ones
        # keep theirs, and tests/tests/api/logic.rs covers every refusal.
        if case.path in _TEMPLATE_DOCUMENTS and isinstance(case.body, dict):
            _without_logic(case.body)
        # A schedule's recurrence is RFC 5545 with rules across its parts (at most one occurrence
        # per 15 minutes, UNTIL after DTSTART, a DTSTART the clocks do not skip), its timezone an
        # IANA name, and its template and pre-fill the stored published template's: positive
        # cases start the seeded run template on a valid rule; negative ones keep theirs, and
        # tests/tests/api/schedules.rs covers every refusal.
        if case.path.startswith("/api/v1/schedules") and isinstance(case.body, dict):
            _a_schedule_that_fits(case.body)
        # A comment's text must hold more than blanks, and its attachment ids name stored
        # attachments of the task (none exist before attachments land): positive cases write
        # a visible text without attachments; tests/tests/api/comments.rs covers the refusals.
        if case.path.endswith("/comments") or case.path.startswith("/api/v1/comments/"):
            if isinstance(case.body, dict):
                case.body.pop("attachment_ids", None)
                text = case.body.get("text")
                if isinstance(text, str) and not text.strip():
                    case.body["text"] = "fuzz" + text
        # An upload's parts other than `file` are ignored, but each part's name travels in a
        # multipart header, where control and non-ASCII characters cannot be read (400): a
        # limit of the encoding, which the object schema of the body does not say. Positive
        # cases send the `file` part alone (the API's upload and the guest page's alike);
        # tests/tests/api/attachments.rs sends other parts.
        if case.path.endswith("/attachments") and case.method == "POST" and isinstance(case.body, dict):
            for name in [name for name in case.body if name != "file"]:
                del case.body[name]
        # The inbox's `overdue=true` means open and past due: with another `status` it is a 400
        # (API contract 15.1), a rule across two parameters. Positive cases drop the status.
        if case.path == "/api/v1/tasks" and isinstance(case.query, dict):
            if case.query.get("overdue") in (True, "true") and case.query.get("status") not in (None, "open"):
                del case.query["status"]
    headers = case.headers or {}
    for name, value in list(headers.items()):
        # A key the server takes is made unique: the fuzzer draws the same short keys for
        # different bodies, and the server rightly answers those replays 422
        # `idempotency_key_reused`. A key it refuses stays as drawn (400 expected).
        if name.lower() == "idempotency-key" and isinstance(value, str) and _takes_idempotency_key(value):
            headers[name] = f"fuzz-{uuid.uuid4()}"
    # A run is started from the seeded run template (a drawn uuid names none: 404): a valid
    # value for a valid one, so that a negative case stays negative.
    body = case.body
    if (
        case.method == "POST"
        and case.path == "/api/v1/process-runs"
        and isinstance(body, dict)
        and isinstance(body.get("template_id"), str)
        and _UUID.fullmatch(body["template_id"])
    ):
        body["template_id"] = _RUN_TEMPLATE_ID
        # Which tasks and elements the template has, and the values each takes, only the
        # stored template decides (the third allowance): positive cases pre-fill nothing.
        if meta is not None and meta.generation.mode == GenerationMode.POSITIVE:
            body.pop("custom_elements", None)


_TEMPLATE_DOCUMENTS = ("/api/v1/process-templates", "/api/v1/process-templates/{id}")


def _a_schedule_that_fits(body):
    """A schedule body on the seeded run template and a valid rule (see before_call)."""
    if "template_id" in body:
        body["template_id"] = _RUN_TEMPLATE_ID
    if "recurrence" in body:
        body["recurrence"] = "DTSTART:20270104T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO"
    if body.get("timezone") is not None:
        body["timezone"] = "Europe/Paris"
    run = body.get("run")
    if isinstance(run, dict):
        run.pop("custom_elements", None)
        if run.get("due_in") is not None:
            run["due_in"] = "P2D"
        if run.get("actor_email") is not None:
            run.pop("actor_email")


def _without_logic(document):
    """A template document without refs, dependencies and rules (see before_call)."""
    document.pop("rules", None)
    for section in document.get("sections") or []:
        for task in (section.get("tasks") or []) if isinstance(section, dict) else []:
            if not isinstance(task, dict):
                continue
            task.pop("depends_on", None)
            task.pop("ref", None)
            for element in task.get("custom_elements") or []:
                if isinstance(element, dict):
                    element.pop("ref", None)


def _keep_to_the_schema(update):
    """A task update without the fields only the stored task decides (see _STORED_FACTS)."""
    for name in _STORED_FACTS:
        update.pop(name, None)
    assignee = update.get("assignee")
    if isinstance(assignee, str) and _UUID.fullmatch(assignee):
        update["assignee"] = "fuzz-assignee@example.org"


@schemathesis.hook
def filter_failure(context, failure, case, response):
    # schemathesis 4.32.5's stateful phase may draw a removal's id from the ids it has seen
    # (a seeded template's among them, sent as the input of other operations) instead of the one
    # the link from its parent POST gives, and still judge the answer as the removal of what the
    # parent created. When the drawn id is a seeded object's, before_call sends the removal to
    # an id that names nothing, and the 404 that follows is not the API losing what it created:
    # only that failure, of only those cases, is dropped (schemathesis's summary counts it:
    # "Filtered: n (dropped by `filter_failure`)").
    return not (failure.code == "ST302" and case.id in _REDIRECTED_REMOVALS)
