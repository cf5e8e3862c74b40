#!/usr/bin/env bash
# `make chaos`: a release `procflow serve` on a PostgreSQL of its own, through kill -9 (then a
# restart), a PostgreSQL crash, pool exhaustion, a keyless flood from one address, and kill -9
# beside a second live instance, under load (tests/examples/chaos/); webhooks go to a loopback
# receiver and emails to the SMTP sink (scripts/smtp-sink.py, from `make mail-tools`). Prints a
# table and exits non-zero when a property does not hold. About three minutes once built.
# The servers' logs: target/chaos/server.log, target/chaos/server-survivor.log. DATABASE_URL is
# not used: the driver stops and restarts its PostgreSQL, which it must own.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CARGO="${CARGO:-cargo}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"

DATABASE_URL= "$ROOT/scripts/ensure-postgres.sh"
echo "make chaos: building procflow (release) and the chaos driver" >&2
(cd "$ROOT" && "$CARGO" build -q --release -p procflow-server --bin procflow)
(cd "$ROOT" && "$CARGO" build -q -p procflow-tests --example chaos)
rm -rf "$TARGET/chaos"
export PROCFLOW_BIN="$TARGET/release/procflow"
exec "$TARGET/debug/examples/chaos" "$TARGET/chaos"
