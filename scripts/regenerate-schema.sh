#!/usr/bin/env bash
# Regenerates crates/procflow-postgres/src/schema.rs: applies migrations/ to a scratch
# database and prints its schema with diesel_cli (installed when absent). DATABASE_URL set:
# the scratch database is created on that server instead of a private one.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v diesel >/dev/null || cargo install diesel_cli --locked --no-default-features --features postgres
cleanup=()
# Undo in reverse order: drop the scratch database before stopping its server.
trap 'for ((i=${#cleanup[@]}-1; i>=0; i--)); do eval "${cleanup[i]}"; done' EXIT
if [ -z "${DATABASE_URL:-}" ]; then
  bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  dir=$(mktemp -d)
  chown postgres:postgres "$dir"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  runuser -u postgres -- "$bin/initdb" -D "$dir/data" --no-sync --auth=trust -U postgres >/dev/null
  runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
  cleanup+=("runuser -u postgres -- '$bin/pg_ctl' -D '$dir/data' -m immediate stop >/dev/null; rm -rf '$dir'")
  server="postgres://postgres@127.0.0.1:$port"
else
  server="${DATABASE_URL%/*}"
fi
export DATABASE_URL="$server/procflow_schema_$$"
# diesel_cli adds its own setup migration to the folder when it finds none: not ours, removed.
cleanup+=("rm -rf migrations/00000000000000_diesel_initial_setup")
diesel database reset --migration-dir migrations >/dev/null
cleanup+=("diesel database drop >/dev/null 2>&1 || true")
diesel print-schema > crates/procflow-postgres/src/schema.rs
echo "wrote crates/procflow-postgres/src/schema.rs"
