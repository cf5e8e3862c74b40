"""Runs schemathesis on the served document of the driver's server, then prints the cases and
failures per operation from its NDJSON report; fails when schemathesis does, or when a documented
operation it tried got no case from the fuzzing phase. Arguments: --config-file FILE, then
`st run`'s."""

import json
import os
import subprocess
import sys
import urllib.request

import summary


def main() -> int:
    args = sys.argv[1:]
    if len(args) < 2 or args[0] != "--config-file":
        print("usage: run.py --config-file FILE [st run options...]", file=sys.stderr)
        return 2
    config, rest = args[1], args[2:]
    st = os.path.join(os.path.dirname(sys.executable), "st")
    schema = os.environ["PF_BASE_URL"] + "/api/v1/openapi.json"
    report_dir = rest[rest.index("--report-dir") + 1] if "--report-dir" in rest else "."
    command = [st, "--config-file", config, "run", schema, "--report", "junit,ndjson", *rest]
    print("make fuzz:", " ".join(command[1:]), file=sys.stderr, flush=True)
    status = subprocess.call(command)
    cases = summary.print_summary(report_dir)
    phases = rest[rest.index("--phases") + 1].split(",") if "--phases" in rest else ["fuzzing"]
    if "fuzzing" in phases:
        unfuzzed = [label for label in documented(schema) if label in cases and not cases[label]["fuzzing"]]
        if unfuzzed:
            # An operation the fuzzing phase could not generate for (a health check, an
            # unsatisfiable schema) would otherwise pass with its few coverage cases.
            print(f"make fuzz: no fuzzing-phase case for {', '.join(unfuzzed)}", file=sys.stderr)
            return status or 1
    return status


def documented(schema: str) -> list:
    """The document's operations, as the summary labels them (`METHOD /path`)."""
    with urllib.request.urlopen(schema) as answer:
        paths = json.load(answer)["paths"]
    methods = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
    return sorted(f"{m.upper()} {path}" for path, item in paths.items() for m in item if m in methods)


if __name__ == "__main__":
    sys.exit(main())
