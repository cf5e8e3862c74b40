#!/usr/bin/env bash
# `make fuzz` / `make fuzz-ci`: schemathesis (tests/fuzz/) against a `procflow serve` on a
# throwaway database, two seeded teams (tests/examples/fuzz.rs). Exits non-zero on any failure.
#
# Settings (environment):
#   FUZZ_BUILD         release (default) or debug: the server's build. `make fuzz-ci` takes the
#                      debug build that `make test` has made (CI spares a release build of
#                      several minutes, and the server runs with overflow checks and debug
#                      assertions on)
#   FUZZ_MAX_EXAMPLES  cases per operation and phase at most (default 500)
#   FUZZ_MAX_TIME      seconds for the whole run at most (default 2400)
#   FUZZ_PHASES        phases (default examples,coverage,fuzzing,stateful)
#   FUZZ_SEED          a fixed seed (default: a new one each run, printed)
#   FUZZ_WORKERS       concurrent schemathesis workers (default 1: with 2, schemathesis 4.32.5
#                      on CPython 3.11 fails cases with "AST constructor recursion depth
#                      mismatch", docs/reliability.md)
#   DATABASE_URL       use this PostgreSQL server instead of a private one
# Reports: target/fuzz/run/ (the server's log, junit.xml, the NDJSON event stream).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CARGO="${CARGO:-cargo}"
RUN="$ROOT/target/fuzz/run"

"$ROOT/scripts/ensure-postgres.sh"
BIN="$("$ROOT/scripts/ensure-fuzz.sh")"
case "${FUZZ_BUILD:=release}" in
  release) profile=(--release) ;;
  debug) profile=() ;;
  *) echo "make fuzz: FUZZ_BUILD is release or debug, not '$FUZZ_BUILD'" >&2; exit 2 ;;
esac
echo "make fuzz: building procflow ($FUZZ_BUILD) and the fuzz driver" >&2
(cd "$ROOT" && "$CARGO" build -q "${profile[@]}" -p procflow-server --bin procflow)
(cd "$ROOT" && "$CARGO" build -q -p procflow-tests --example fuzz)
rm -rf "$RUN"
mkdir -p "$RUN"

seed=()
[ -n "${FUZZ_SEED:-}" ] && seed=(--seed "$FUZZ_SEED")
export PF_FUZZ_HOOKS="$ROOT/tests/fuzz/hooks.py"
export PROCFLOW_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/$FUZZ_BUILD/procflow"
# The driver passes the base URL it started the server on; the document is the one it serves.
exec "${CARGO_TARGET_DIR:-$ROOT/target}/debug/examples/fuzz" "$RUN" -- \
  "$BIN/python" "$ROOT/tests/fuzz/run.py" \
  --config-file "$ROOT/tests/fuzz/schemathesis.toml" \
  --max-examples "${FUZZ_MAX_EXAMPLES:-500}" \
  --max-time "${FUZZ_MAX_TIME:-2400}" \
  --phases "${FUZZ_PHASES:-examples,coverage,fuzzing,stateful}" \
  --workers "${FUZZ_WORKERS:-1}" \
  --report-dir "$RUN" \
  "${seed[@]}"
