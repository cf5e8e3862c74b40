"""Runs schemathesis on the served document of the driver's server, then prints the cases and
failures per operation from its NDJSON report. Arguments: --config-file FILE, then `st run`'s."""

import os
import subprocess
import sys

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
    summary.print_summary(report_dir)
    return status


if __name__ == "__main__":
    sys.exit(main())
