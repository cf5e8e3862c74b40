"""schemathesis hooks of `make fuzz` (tests/fuzz/schemathesis.toml); docs/reliability.md says
why each exists."""

import os
import re
import uuid

import schemathesis
from schemathesis.generation import GenerationMode

# What the server takes as an Idempotency-Key (docs/openapi.json).
_IDEMPOTENCY_KEY = re.compile(r"[!-~]{1,255}")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_TEMPLATE_ID = os.environ["PF_TEMPLATE_ID"]


@schemathesis.hook
def before_call(context, case, kwargs):
    meta = case.meta
    if meta is not None and meta.generation.mode == GenerationMode.POSITIVE:
        # schemathesis 4.32.5's coverage phase labels some cases positive although one of their
        # parts was drawn negative (an empty If-None-Match against its pattern): such a case is
        # negative, and negative_data_rejection judges it.
        if any(part.mode == GenerationMode.NEGATIVE for part in meta.components.values()):
            meta.generation.mode = GenerationMode.NEGATIVE
        # A made-up `cursor` names no item of the list: 400 by the API contract (section
        # Pagination), which a schema cannot express. Positive cases go without one; negative
        # ones keep theirs, and tests/tests/api/pagination.rs covers unknown cursors.
        elif isinstance(case.query, dict) and "cursor" in case.query:
            del case.query["cursor"]
    headers = case.headers or {}
    for name, value in list(headers.items()):
        # A key the server takes is made unique: the fuzzer draws the same short keys for
        # different bodies, and the server rightly answers those replays 422
        # `idempotency_key_reused`. A key it refuses stays as drawn (400 expected).
        if name.lower() == "idempotency-key" and isinstance(value, str) and _IDEMPOTENCY_KEY.fullmatch(value):
            headers[name] = f"fuzz-{uuid.uuid4()}"
    # A run is started from the seeded template (a drawn uuid names none: 404): a valid value
    # for a valid one, so that a negative case stays negative.
    body = case.body
    if (
        case.method == "POST"
        and case.path == "/api/v1/process-runs"
        and isinstance(body, dict)
        and isinstance(body.get("template_id"), str)
        and _UUID.fullmatch(body["template_id"])
    ):
        body["template_id"] = _TEMPLATE_ID
