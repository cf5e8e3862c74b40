#!/usr/bin/env bash
# `make clients-check`: what a third-party client generated from docs/openapi.json meets.
#   1. Redocly CLI lints the document (redocly.yaml; the exceptions it records are in
#      .redocly.lint-ignore.yaml): any error or warning fails.
#   2. openapi-python-client generates a Python client into a temporary directory: any warning
#      (an operation or a schema skipped, a post-generation hook that failed) fails.
#   3. The generated client compiles (python -m compileall), every module of it imports, and no
#      model field is left untyped (`Any`) but the element values that are any JSON by design
#      (tests/clients/check_python_client.py).
# Nothing generated is kept. Usage: scripts/clients-check.sh [document] (default docs/openapi.json).
# Docs: docs/clients.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DOCUMENT="$(realpath "${1:-$ROOT/docs/openapi.json}")"

BIN="$("$ROOT/scripts/ensure-clients.sh")"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
failed=0

say() { printf 'make clients-check: %s\n' "$*" >&2; }

# 1. Redocly. Its JSON report counts errors, warnings and the problems the ignore file names;
# its notices (such as the end of Node.js 20 support) go to stderr, shown only on failure.
# REDOCLY_TELEMETRY=off: no usage report is sent.
cd "$ROOT"
redocly_status=0
REDOCLY_TELEMETRY=off tests/clients/node_modules/.bin/redocly lint "$DOCUMENT" \
  --config "$ROOT/redocly.yaml" --lint-config error --format json --max-problems 1000 \
  >"$WORK/redocly.json" 2>"$WORK/redocly.log" || redocly_status=$?
if ! "$BIN/python" - "$WORK/redocly.json" <<'EOF'; then
import json, sys
try:
    report = json.load(open(sys.argv[1]))
except ValueError:
    print("redocly lint wrote no report", file=sys.stderr)
    sys.exit(1)
for problem in report["problems"]:
    if problem.get("ignored"):
        continue
    where = ", ".join(l.get("pointer", "?") for l in problem.get("location", []))
    print(f"  {problem['severity']:7} {problem['ruleId']:32} {where}: {problem['message']}", file=sys.stderr)
totals = report["totals"]
print(f"redocly lint: {totals['errors']} errors, {totals['warnings']} warnings, "
      f"{totals['ignored']} recorded exceptions (.redocly.lint-ignore.yaml)", file=sys.stderr)
sys.exit(1 if totals["errors"] or totals["warnings"] else 0)
EOF
  failed=1
  sed -n '1,40p' "$WORK/redocly.log" >&2
elif [ "$redocly_status" -ne 0 ]; then
  say "redocly lint exited $redocly_status with a clean report:"
  cat "$WORK/redocly.log" >&2
  failed=1
fi

# 2. openapi-python-client, with its ruff hooks (ruff comes with it, in the virtualenv).
generate_status=0
PATH="$BIN:$PATH" "$BIN/openapi-python-client" generate --path "$DOCUMENT" \
  --output-path "$WORK/procflow_client" --meta none --fail-on-warning \
  >"$WORK/generate.log" 2>&1 || generate_status=$?
# It says "Warning(s) encountered" and names each skipped endpoint or schema; a warning that
# does not make it exit non-zero is still one.
if [ "$generate_status" -ne 0 ] || grep -qiE 'warning|will not be generated|unable to|skipping' "$WORK/generate.log"; then
  say "openapi-python-client generate (exit $generate_status):"
  cat "$WORK/generate.log" >&2
  failed=1
else
  operations="$(find "$WORK/procflow_client/api" -name '*.py' ! -name '__init__.py' | wc -l)"
  models="$(find "$WORK/procflow_client/models" -name '*.py' ! -name '__init__.py' | wc -l)"
  say "openapi-python-client: 0 warnings; $operations operations, $models models generated"
  # 3. The generated client compiles, imports, and is typed.
  if ! "$BIN/python" -m compileall -q "$WORK/procflow_client" >"$WORK/compile.log" 2>&1; then
    say "the generated client does not compile:"
    cat "$WORK/compile.log" >&2
    failed=1
  elif ! "$BIN/python" "$ROOT/tests/clients/check_python_client.py" "$WORK" procflow_client "$DOCUMENT"; then
    failed=1
  fi
fi

if [ "$failed" -ne 0 ]; then
  say "FAILED (docs/clients.md says how to read and fix the findings)"
  exit 1
fi
say "passed"
