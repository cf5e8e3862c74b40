#!/usr/bin/env bash
# `make clients-check`: what a third-party client generated from docs/openapi.json meets.
#   1. Redocly CLI lints the document (redocly.yaml; the exceptions it records are in
#      .redocly.lint-ignore.yaml): any error or warning fails.
#   2. openapi-python-client generates a Python client into a temporary directory: any warning
#      (an operation or a schema skipped, a post-generation hook that failed) fails.
#   3. The generated client compiles (python -m compileall), every module of it imports, and no
#      model field is left untyped (`Any`) but the element values that are any JSON by design
#      (tests/clients/check_python_client.py).
#   4. mypy --strict passes on the generated package and on the README tour's calls through it
#      (tests/clients/python/tour.py), and FAILS on tests/clients/python/wrong_types.py (a
#      number as a due date and as an assignee), on each of its marked lines.
#   5. openapi-typescript generates types; tsc --strict compiles the tour's calls through
#      openapi-fetch (tests/clients/typescript/tour.ts), and FAILS on each wrong_*.ts probe at
#      its marked line; no property is `unknown` but the element values.
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

# 2. openapi-python-client, with its ruff hooks (ruff comes with it, in the virtualenv), which
# read tests/clients/ruff.toml from the output's parent directory.
cp "$ROOT/tests/clients/ruff.toml" "$WORK/ruff.toml"
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

# A probe that must not type-check: the checker fails, and on every line marked
# `error expected here` (so an error elsewhere, such as a missing module, does not count).
# Usage: expect_refusal <probe file> <checker output file> <checker exit status>.
expect_refusal() {
  local probe="$1" output="$2" status="$3" name line
  name="$(basename "$probe")"
  if [ "$status" -eq 0 ]; then
    say "$name type-checks, but it must not: a type was lost"
    return 1
  fi
  for line in $(grep -n 'error expected here' "$probe" | cut -d: -f1); do
    if ! grep -qE "^$name(:|\()$line[:,]" "$output"; then
      say "$name: no type error on its line $line:"
      cat "$output" >&2
      return 1
    fi
  done
}

# 4. mypy --strict: the generated package and the tour pass; the wrong probe fails.
if [ -d "$WORK/procflow_client" ]; then
  cp "$ROOT"/tests/clients/python/*.py "$WORK/"
  if ! (cd "$WORK" && "$BIN/mypy" --strict --no-incremental procflow_client tour.py) >"$WORK/mypy.log" 2>&1; then
    say "mypy --strict on the generated client and tests/clients/python/tour.py:"
    cat "$WORK/mypy.log" >&2
    failed=1
  else
    mypy_status=0
    (cd "$WORK" && "$BIN/mypy" --strict --no-incremental wrong_types.py) >"$WORK/mypy-wrong.log" 2>&1 || mypy_status=$?
    if expect_refusal "$WORK/wrong_types.py" "$WORK/mypy-wrong.log" "$mypy_status"; then
      say "mypy --strict: the tour passes, wrong_types.py is refused on each marked line"
    else
      failed=1
    fi
  fi
fi

# 5. TypeScript: openapi-typescript's types, openapi-fetch's calls, tsc --strict.
TS="$WORK/typescript"
mkdir -p "$TS"
cp "$ROOT"/tests/clients/typescript/*.ts "$TS/"
ln -s "$ROOT/tests/clients/node_modules" "$TS/node_modules"
if ! tests/clients/node_modules/.bin/openapi-typescript "$DOCUMENT" --output "$TS/schema.d.ts" >"$WORK/openapi-typescript.log" 2>&1; then
  say "openapi-typescript:"
  cat "$WORK/openapi-typescript.log" >&2
  failed=1
else
  tsc() { (cd "$TS" && node_modules/.bin/tsc --strict --noEmit --noUnusedLocals --target ES2022 \
    --module ESNext --moduleResolution Bundler --lib ES2022,DOM "$@"); }
  # A property typed `unknown`, or a union with `unknown` in it (which is `unknown`), but an
  # element's `value` (any JSON by design, docs/clients.md).
  if grep -nE '^ *"?[A-Za-z_]+"?\??: .*\bunknown\b' "$TS/schema.d.ts" |
    grep -vE '^[0-9]+: *value\??: unknown;' >"$WORK/unknown.log"; then
    say "openapi-typescript typed these properties \`unknown\`:"
    cat "$WORK/unknown.log" >&2
    failed=1
  fi
  if ! tsc tour.ts >"$WORK/tsc.log" 2>&1; then
    say "tsc --strict on tests/clients/typescript/tour.ts:"
    cat "$WORK/tsc.log" >&2
    failed=1
  fi
  for probe in "$TS"/wrong_*.ts; do
    tsc_status=0
    tsc "$(basename "$probe")" >"$WORK/tsc-wrong.log" 2>&1 || tsc_status=$?
    expect_refusal "$probe" "$WORK/tsc-wrong.log" "$tsc_status" || failed=1
  done
  [ "$failed" -ne 0 ] || say "tsc --strict: the tour compiles, each wrong_*.ts is refused on its marked line"
fi

if [ "$failed" -ne 0 ]; then
  say "FAILED (docs/clients.md says how to read and fix the findings)"
  exit 1
fi
say "passed"
