"""make clients-check (scripts/clients-check.sh): what the client openapi-python-client generated
from the document must be. Usage: check_python_client.py <parent dir> <package> <document>.

- Every module imports (compileall only parses them).
- Every operation of the document became a function module (`api/<tag>/<operationId>.py`):
  none skipped, whatever the generator printed.
- No field of a generated model is typed `Any`: the generator falls back to it, silently, for a
  schema it cannot turn into a type (a `type` list beside alternatives that carry no type of
  their own, for one). The exceptions are the values of form elements, which are any JSON by
  design (a string, number, boolean, list of strings or null, by the element's type), and the
  value a rule's condition compares them with.
"""

import importlib
import json
import pkgutil
import re
import sys
import types
import typing

UNTYPED_BY_DESIGN = {
    ("Condition", "value"),
    ("Element", "value"),
    ("ElementDocument", "value"),
    ("ElementWrite", "value"),
    ("Prefill", "value"),
}


def snake(name):
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def main(parent, package, document_path):
    sys.path.insert(0, parent)
    failures = []
    modules = []
    root = importlib.import_module(package)
    for info in pkgutil.walk_packages(root.__path__, f"{package}."):
        try:
            modules.append(importlib.import_module(info.name))
        except Exception as error:  # noqa: BLE001 - any failure to import is the finding
            failures.append(f"{info.name} does not import: {error!r}")

    with open(document_path) as file:
        document = json.load(file)
    generated = {
        m.__name__.rsplit(".", 1)[-1] for m in modules if m.__name__.startswith(f"{package}.api.")
    }
    expected = {
        snake(operation["operationId"])
        for item in document["paths"].values()
        for method, operation in item.items()
        if method in ("get", "put", "post", "delete", "options", "head", "patch", "trace")
    }
    for missing in sorted(expected - generated):
        failures.append(f"operation {missing} was not generated")

    models = importlib.import_module(f"{package}.models")
    for name in sorted(getattr(models, "__all__", [])):
        model = getattr(models, name)
        if not hasattr(model, "__attrs_attrs__"):
            continue
        # The models refer to each other under TYPE_CHECKING: resolve in the package's names.
        namespace = {**vars(sys.modules[model.__module__]), **vars(models)}
        try:
            hints = typing.get_type_hints(model, globalns=namespace)
        except Exception as error:  # noqa: BLE001 - an annotation that names nothing
            failures.append(f"{name}: its annotations do not resolve: {error!r}")
            continue
        for field in model.__attrs_attrs__:
            if field.name == "additional_properties" or (name, field.name) in UNTYPED_BY_DESIGN:
                continue
            hint = hints.get(field.name)
            union = typing.get_origin(hint) in (typing.Union, types.UnionType)
            members = typing.get_args(hint) if union else (hint,)
            if typing.Any in members:
                failures.append(
                    f"{name}.{field.name} is untyped ({hint}): its schema became no type"
                )

    for failure in failures:
        print(f"  {failure}", file=sys.stderr)
    print(
        f"python client: {len(modules)} modules import, {len(expected & generated)} of {len(expected)} operations, "
        f"{len(failures)} findings",
        file=sys.stderr,
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
