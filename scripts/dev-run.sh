#!/usr/bin/env bash
# `make run`: build procflow, start a private PostgreSQL under .data/ (or use DATABASE_URL),
# migrate, seed a demo team once, then serve the API in the foreground (Ctrl-C stops it).
#
#   scripts/dev-run.sh           run (what `make run` does)
#   scripts/dev-run.sh stop-db   stop the private PostgreSQL (what `make stop-db` does)
#
# Settings (environment):
#   DATABASE_URL            use this PostgreSQL instead of the private one (the database must exist)
#   PROCFLOW_BIND           where the server listens (default 127.0.0.1:8080)
#   PROCFLOW_PUBLIC_URL     the server's address, the demo team's base URL (default http://$PROCFLOW_BIND)
#   PROCFLOW_DEV_PG_PORT    port of the private PostgreSQL on 127.0.0.1 (default 55432)
#   PROCFLOW_DEV_PROFILE    cargo profile of the build: dev (default) or release
#   PROCFLOW_PG_BIN         directory of initdb/pg_ctl/psql (default: the highest /usr/lib/postgresql/*/bin)
#   PROCFLOW_MAIL_DIR       where emails are written as .eml files (default .data/mail; ignored
#                           when PROCFLOW_SMTP_URL is set: emails are then sent)
#
# Docs: docs/operations.md ("make run").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="$ROOT/.data"
PG_DATA="$DATA/postgres"    # the cluster
PG_RUN="$DATA/pg-run"       # its unix socket and its log
PG_PORT="${PROCFLOW_DEV_PG_PORT:-55432}"
export PROCFLOW_BIND="${PROCFLOW_BIND:-127.0.0.1:8080}"
PUBLIC_URL="${PROCFLOW_PUBLIC_URL:-http://$PROCFLOW_BIND}"
PROFILE="${PROCFLOW_DEV_PROFILE:-dev}"
CARGO="${CARGO:-cargo}"
DEMO_TEMPLATE="$ROOT/docs/examples/demo-template.json"

say() { printf 'make run: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

is_root() { [ "$(id -u)" -eq 0 ]; }

# Runs a PostgreSQL server binary as the cluster's owner: `postgres` when we are root
# (initdb refuses to run as root), else ourselves.
as_owner() {
  if is_root; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_bin() {
  if [ -n "${PROCFLOW_PG_BIN:-}" ]; then
    printf '%s' "$PROCFLOW_PG_BIN"
    return
  fi
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -n "$dir" ] && [ -x "$dir/initdb" ]; then
    printf '%s' "$dir"
  elif command -v initdb >/dev/null; then
    dirname "$(command -v initdb)"
  else
    die "PostgreSQL's server binaries (initdb, pg_ctl) are missing: run 'make postgres-tools', set PROCFLOW_PG_BIN, or set DATABASE_URL"
  fi
}

# pg_ctl status: 0 running, 3 stopped.
cluster_running() {
  [ -f "$PG_DATA/PG_VERSION" ] && as_owner "$PG_BIN/pg_ctl" status -D "$PG_DATA" >/dev/null 2>&1
}

init_cluster() {
  [ -f "$PG_DATA/PG_VERSION" ] && return
  if [ -d "$PG_DATA" ] && [ -n "$(ls -A "$PG_DATA")" ]; then
    die "$PG_DATA exists but holds no PostgreSQL cluster: move it away (or 'rm -rf .data') and retry"
  fi
  say "creating a private PostgreSQL cluster in .data/postgres"
  mkdir -p "$PG_DATA" "$PG_RUN"
  chmod 700 "$PG_DATA"
  if is_root; then
    id postgres >/dev/null 2>&1 ||
      die "running as root, PostgreSQL must run as the 'postgres' user, which does not exist: run 'make postgres-tools' (Debian's postgresql package creates it) or set DATABASE_URL"
    chown postgres:postgres "$PG_DATA" "$PG_RUN"
    runuser -u postgres -- test -w "$PG_DATA" ||
      die "the postgres user cannot reach $PG_DATA (is the checkout under a private directory such as /root?): move the checkout or set DATABASE_URL"
  fi
  as_owner "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth=trust -E UTF8 --locale=C \
    >"$PG_RUN/initdb.log" 2>&1 || { cat "$PG_RUN/initdb.log" >&2; die "initdb failed"; }
  cat >>"$PG_DATA/postgresql.conf" <<EOF

# procflow make run: a private development server (trust authentication, 127.0.0.1 only)
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PG_RUN'
EOF
}

start_cluster() {
  if cluster_running; then
    local running
    running="$(sed -n 4p "$PG_DATA/postmaster.pid" 2>/dev/null || true)"
    if [ -n "$running" ] && [ "$running" != "$PG_PORT" ]; then
      say "the private PostgreSQL already runs on port $running (not $PG_PORT); using it"
      PG_PORT="$running"
    else
      say "reusing the private PostgreSQL on 127.0.0.1:$PG_PORT"
    fi
    return
  fi
  say "starting the private PostgreSQL on 127.0.0.1:$PG_PORT"
  if ! as_owner "$PG_BIN/pg_ctl" start -D "$PG_DATA" -l "$PG_RUN/postgres.log" -w -t 60 \
    -o "-p $PG_PORT -k $PG_RUN" >/dev/null; then
    tail -n 15 "$PG_RUN/postgres.log" >&2 || true
    die "PostgreSQL did not start; if port $PG_PORT is taken, set PROCFLOW_DEV_PG_PORT to a free port"
  fi
}

ensure_database() {
  local psql=("$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1)
  [ -x "$PG_BIN/psql" ] || psql=(psql "${psql[@]:1}")
  if [ "$("${psql[@]}" -tAc "SELECT 1 FROM pg_database WHERE datname = 'procflow'")" != "1" ]; then
    say "creating the database procflow"
    "${psql[@]}" -c "CREATE DATABASE procflow"
  fi
}

stop_db() {
  PG_BIN="$(pg_bin)"
  if cluster_running; then
    as_owner "$PG_BIN/pg_ctl" stop -D "$PG_DATA" -m fast >/dev/null
    say "stopped the private PostgreSQL (its data stays in .data/postgres)"
  else
    say "the private PostgreSQL is not running"
  fi
}

build() {
  local profile_dir
  case "$PROFILE" in
    dev | debug) profile_dir=debug ;;
    release) profile_dir=release ;;
    *) die "PROCFLOW_DEV_PROFILE must be dev or release, not $PROFILE" ;;
  esac
  say "building procflow ($PROFILE profile)"
  (cd "$ROOT" && "$CARGO" build --profile "$PROFILE" -p procflow-server --bin procflow)
  local target="${CARGO_TARGET_DIR:-$ROOT/target}"
  case "$target" in /*) ;; *) target="$ROOT/$target" ;; esac
  BIN="$target/$profile_dir/procflow"
  [ -x "$BIN" ] || die "the build left no binary at $BIN"
}

# One string field of a flat JSON object (procflow's output, or the demo file).
field() {
  sed -nE "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"([^\"]*)\".*/\\1/p" <<<"$2"
}

# `procflow admin ...`, quietly; on failure shows its JSON error and stops.
admin() {
  local out
  if ! out="$(RUST_LOG=warn "$BIN" admin "$@")"; then
    say "procflow admin $1 failed: $out"
    exit 1
  fi
  printf '%s' "$out"
}

# Seeds the demo team once; its ids and key go to $DEMO_FILE. An existing file is reused when
# its team is still in the database.
seed() {
  if [ -f "$DEMO_FILE" ] && [ "$(field base_url "$(cat "$DEMO_FILE")")" != "$PUBLIC_URL" ]; then
    # The team's base URL is in every share link and email it sends: a team of another
    # address would hand out links to where nothing listens.
    say "the demo team of ${DEMO_FILE#"$ROOT"/} has links to $(field base_url "$(cat "$DEMO_FILE")"), not $PUBLIC_URL; seeding a new one"
    mv "$DEMO_FILE" "$DEMO_FILE.stale"
  fi
  if [ -f "$DEMO_FILE" ]; then
    local team out
    team="$(field team_id "$(cat "$DEMO_FILE")")"
    # set-member without changes only reads: does the demo team still exist?
    if out="$(RUST_LOG=warn "$BIN" admin set-member --team "$team" --email admin@demo.example)"; then
      say "reusing the demo team of ${DEMO_FILE#"$ROOT"/}"
      return
    fi
    case "$out" in
      *'"not_found"'*)
        say "the demo team of ${DEMO_FILE#"$ROOT"/} is not in this database; seeding a new one"
        mv "$DEMO_FILE" "$DEMO_FILE.stale" ;;
      *) die "cannot check the demo team: $out" ;;
    esac
  fi
  say "seeding the demo team (admin@demo.example, member@demo.example, the demo template, an API key)"
  local team admin_id member template key
  team="$(admin create-team --name Demo --base-url "$PUBLIC_URL" \
    --admin-email admin@demo.example --admin-name "Demo Admin")"
  admin_id="$(field admin_user_id "$team")"
  team="$(field team_id "$team")"
  member="$(field user_id "$(admin add-member --team "$team" --email member@demo.example \
    --name "Demo Member" --role member)")"
  template="$(field template_id "$(admin import-template --team "$team" "$DEMO_TEMPLATE" --publish)")"
  key="$(admin create-api-key --team "$team" --admin-email admin@demo.example --name "make run")"
  (
    umask 077
    cat >"$DEMO_FILE.tmp" <<EOF
{
  "team_id": "$team",
  "admin_user_id": "$admin_id",
  "admin_email": "admin@demo.example",
  "member_user_id": "$member",
  "member_email": "member@demo.example",
  "template_id": "$template",
  "key_id": "$(field key_id "$key")",
  "key": "$(field key "$key")",
  "base_url": "$PUBLIC_URL"
}
EOF
  )
  mv "$DEMO_FILE.tmp" "$DEMO_FILE"
}

# Refuses to start when something already answers on the bind address.
check_bind_free() {
  local host="${PROCFLOW_BIND%:*}" port="${PROCFLOW_BIND##*:}"
  case "$host" in 0.0.0.0 | '[::]' | '') host=127.0.0.1 ;; esac
  host="${host#[}"; host="${host%]}"
  if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
    die "something already listens on $PROCFLOW_BIND (another make run?): stop it or set PROCFLOW_BIND"
  fi
}

run() {
  mkdir -p "$DATA"
  if [ -n "${DATABASE_URL:-}" ]; then
    say "DATABASE_URL is set: using that PostgreSQL, no private cluster"
    DEMO_FILE="$DATA/demo-$(printf '%s' "$DATABASE_URL" | sha256sum | cut -c1-12).json"
    DB_NOTE="PostgreSQL: the server of DATABASE_URL"
  else
    "$ROOT/scripts/ensure-postgres.sh"
    PG_BIN="$(pg_bin)"
    init_cluster
    start_cluster
    ensure_database
    export DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/procflow"
    DEMO_FILE="$DATA/demo.json"
    DB_NOTE="PostgreSQL: 127.0.0.1:$PG_PORT, data in .data/postgres; it keeps running after Ctrl-C ('make stop-db' stops it)"
  fi
  build
  check_bind_free
  say "migrating: $(RUST_LOG=warn "$BIN" migrate)"
  seed

  export PROCFLOW_STORAGE_URL="${PROCFLOW_STORAGE_URL:-file://$DATA/files}"
  export PROCFLOW_MAIL_DIR="${PROCFLOW_MAIL_DIR:-$DATA/mail}"
  local mail_note="Emails        written as .eml files into ${PROCFLOW_MAIL_DIR#"$ROOT"/} (open them with any mail reader)"
  if [ -n "${PROCFLOW_SMTP_URL:-}" ]; then
    mail_note="Emails        sent through PROCFLOW_SMTP_URL"
  else
    mkdir -p "$PROCFLOW_MAIL_DIR"
  fi

  local demo key template
  demo="$(cat "$DEMO_FILE")"
  key="$(field key "$demo")"
  template="$(field template_id "$demo")"
  cat <<EOF

procflow is starting on http://$PROCFLOW_BIND (Ctrl-C stops it)

  Demo team     $(field team_id "$demo")   admin admin@demo.example, member member@demo.example
  Template      $template   "Employee onboarding", published
  API key       $key
  Seed          ${DEMO_FILE#"$ROOT"/} (kept: the next 'make run' reuses the team and the key)
  $mail_note
  $DB_NOTE

Try it:
  curl -s -H "Authorization: Bearer $key" $PUBLIC_URL/api/v1/process-templates

EOF
  exec "$BIN" serve
}

case "${1:-run}" in
  run) run ;;
  stop-db) stop_db ;;
  *) die "unknown command $1 (run or stop-db)" ;;
esac
