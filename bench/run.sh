#!/usr/bin/env bash
# `make bench`: procflow's throughput and latency beside the SQL floor of the same work.
#
# Builds procflow in release, starts a PostgreSQL of its own (default durability: fsync and
# synchronous_commit on) in a temporary directory on a free port, migrates, seeds (1,000,000
# runs in one team, set-based SQL), starts the server, drives it with wrk from a separate
# process, runs the pgbench floor scripts of bench/sql on the same database, prints a Markdown
# table and writes it to target/bench/report.md. Every process it starts is stopped on exit,
# failure or Ctrl-C included.
#
# Settings (environment):
#   BENCH_SECONDS      length of each measured run, in seconds (default 10)
#   BENCH_ROUND_SECONDS  the rows with a SQL floor take their service and floor loads in
#                      alternating rounds of this many seconds (default 2; BENCH_SECONDS for
#                      one round each, service first, as before): see rounds() below
#   BENCH_BIG_RUNS     runs seeded in the big team (default 1000000)
#   BENCH_GROWTH_RUNS  runs after which create-run is measured again (default 100000)
#   BENCH_BIN          use this procflow binary instead of building one (no cargo build)
#   BENCH_DB_POOL      the server's database pool size (PROCFLOW_DB_POOL_SIZE; default: four
#                      times the cores; `default`: the server's own default, 16)
#   BENCH_HTTP_WORKERS the server's HTTP workers (PROCFLOW_HTTP_WORKERS; default: one per core,
#                      as the server's own; `default`: leave it to the server)
#                      The server shares the machine with PostgreSQL and wrk, hence the smaller
#                      pool (docs/operations.md, "Sizing workers and the pool").
#   BENCH_KEEP=1       keep the temporary directory (database, logs) after the run
#   BENCH_ONLY=busy-key  only the busy-key rows (bench/busy_key.sh), on a database with a team
#                      and 40 keys: about a minute after the build (target/bench/busy-key.md)
#   BENCH_ONLY=logic   run only the process-logic rows (bench/logic.sh), on the teams, templates
#                      and keys alone (no seeded runs): about a minute after the build
#   BENCH_LOGIC_RUNS   runs per pool of the process-logic rows (default 100)
#   BENCH_ONLY=inbox, BENCH_ONLY=comments, BENCH_ONLY=scheduler, BENCH_ONLY="inbox scheduler files"
#                      only the inbox and dry-run rows (bench/inbox.sh), the comment rows
#                      (bench/comments.sh) and/or the scheduler rows (bench/scheduler.sh), and/or
#                      the attachment rows after them (as in the whole bench), on the teams and
#                      their seeded runs (BENCH_BIG_RUNS, BENCH_SMALL_RUNS) without the other
#                      scenarios
#   BENCH_COMMENT_RUNS runs of 50 tasks the comment rows write on (default 200)
#   BENCH_SMALL_RUNS   runs of the small team (default 10000)
#   BENCH_INBOX_TASKS  tasks per seeded run for the inbox rows (default 5)
#   BENCH_SCHEDULES    schedules due in the same minute (default 10000)
#   BENCH_SCHEDULER_INTERVAL  the scheduler worker's PROCFLOW_SCHEDULER_INTERVAL (default 1s)
#   BENCH_ONLY=files   only the attachment rows (bench/files.sh: a 10 MiB file up and down beside
#                      a plain file server, the memory of 8 concurrent 25 MiB uploads), on the
#                      teams, templates and keys alone (no seeded runs): about a minute after the
#                      build
#   BENCH_FILES_REPS   repetitions of each transfer of the attachment rows (default 20)
#   BENCH_XACT_SECS    length of the 1-connection runs that count database transactions per
#                      request (bench/xacts.sh; default 3)
#   PROCFLOW_PG_BIN    directory of initdb/pg_ctl/pgbench (default: the highest
#                      /usr/lib/postgresql/*/bin)
#   CARGO              cargo command (default cargo)
#
# Docs: bench/README.md (what each scenario does, the shortcuts), docs/performance.md (how to
# read the table, the latest one).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"
CARGO="${CARGO:-cargo}"
SECS="${BENCH_SECONDS:-10}"
ROUND_SECS="${BENCH_ROUND_SECONDS:-2}"
BIG_RUNS="${BENCH_BIG_RUNS:-1000000}"
GROWTH_RUNS="${BENCH_GROWTH_RUNS:-100000}"  # create-run throughput is measured again after this many runs
DB_POOL="${BENCH_DB_POOL:-$(($(nproc) * 4))}"
HTTP_WORKERS="${BENCH_HTTP_WORKERS:-$(nproc)}"
SMALL_RUNS="${BENCH_SMALL_RUNS:-10000}"  # the list page and the inbox are measured on a team of this many runs too
NKEYS=1000                  # API keys per team the load goes round-robin over
RATE_LIMIT=1000000          # PROCFLOW_RATE_LIMIT_PER_MINUTE of the measured server
# The session settings of the service's connections (crates/procflow-postgres/src/pool.rs,
# session_settings) that change how a statement is planned, for every session of the bench
# (pgbench's floors, psql): a floor's statements are planned as the service's are.
# bench/citus.sh puts them in the coordinator's URL, where they would otherwise be overridden.
SESSION_OPTIONS="-c enable_memoize=off"
export PGOPTIONS="$SESSION_OPTIONS"
TASK_POOL_RUNS=2000         # 50-task runs whose tasks scenario 2 completes (x49 tasks usable)
FLOOR_POOL_RUNS=2000        # the same for its SQL floor
SMALL_TASK_RUNS=12000       # 5-task runs (x4 tasks usable) for the task-update growth row
LARGE_TASK_RUNS=100         # 500-task runs (x499 tasks usable)

# The scenarios beyond the spec (API contract 11), each in a file of its own.
# shellcheck source=bench/batch.sh
source "$BENCH/batch.sh"
# shellcheck source=bench/etag.sh
source "$BENCH/etag.sh"
# shellcheck source=bench/busy_key.sh
source "$BENCH/busy_key.sh"
# shellcheck source=bench/logic.sh
source "$BENCH/logic.sh"
# shellcheck source=bench/comments.sh
source "$BENCH/comments.sh"
# shellcheck source=bench/inbox.sh
source "$BENCH/inbox.sh"
# shellcheck source=bench/xacts.sh
source "$BENCH/xacts.sh"
# shellcheck source=bench/scheduler.sh
source "$BENCH/scheduler.sh"
# shellcheck source=bench/files.sh
source "$BENCH/files.sh"

STARTED=$(date +%s)
OUT_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
case "$OUT_DIR" in /*) ;; *) OUT_DIR="$ROOT/$OUT_DIR" ;; esac
OUT="$OUT_DIR/bench${BENCH_CITUS_URL:+-citus}"  # bench/citus.sh: a Citus run keeps the plain one's results
REPORT="$OUT/report.md"
mkdir -p "$OUT"
LOG="$OUT/bench.log"
: >"$LOG"

say() { printf '[bench %4ss] %s\n' "$(($(date +%s) - STARTED))" "$*" | tee -a "$LOG" >&2; }
die() { say "FAILED: $*"; exit 1; }
is_root() { [ "$(id -u)" -eq 0 ]; }
as_owner() { if is_root; then runuser -u postgres -- "$@"; else "$@"; fi; }

# ---------------------------------------------------------------------------------------------
# Clean-up: everything this script starts is stopped here, whatever happens.
TMP=""
PG_STARTED=""
PIDS=()
SERVE_PIDS=()  # the `procflow serve` instances among PIDS (bench/scheduler.sh stops them)
# PIDS that stop at once on SIGINT: procflow's (serve and worker), which handle it. A script's
# background jobs start with SIGINT ignored (bash without job control), so the others (the
# webhook sink, the plain file servers, psql) get SIGTERM instead.
SIGINT_PIDS=()
cleanup() {
  local status=$?
  set +e
  for pid in "${PIDS[@]}"; do
    if [[ " ${SIGINT_PIDS[*]} " == *" $pid "* ]]; then
      kill -INT "$pid" 2>/dev/null
    else
      kill -TERM "$pid" 2>/dev/null
    fi
  done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
  done
  if [ -n "$PG_STARTED" ]; then
    as_owner "$PG_BIN/pg_ctl" stop -D "$TMP/pg" -m immediate >/dev/null 2>&1
  fi
  if [ -n "$TMP" ] && [ -d "$TMP" ]; then
    mkdir -p "$OUT/logs"
    cp "$TMP"/*.log "$TMP"/run/*.log "$OUT/logs/" 2>/dev/null
    if [ "${BENCH_KEEP:-0}" = 1 ]; then
      say "kept $TMP"
    else
      rm -rf "$TMP"
    fi
  fi
  [ $status -ne 0 ] && say "stopped with status $status; logs in ${OUT#"$ROOT"/}/"
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------
# Tools.
pg_bin() {
  if [ -n "${PROCFLOW_PG_BIN:-}" ]; then printf '%s' "$PROCFLOW_PG_BIN"; return; fi
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  [ -n "$dir" ] && [ -x "$dir/initdb" ] || die "PostgreSQL server binaries not found: run 'make postgres-tools' or set PROCFLOW_PG_BIN"
  printf '%s' "$dir"
}

ensure_tools() {
  "$ROOT/scripts/ensure-postgres.sh" >/dev/null
  PG_BIN="$(pg_bin)"
  [ -x "$PG_BIN/pgbench" ] || die "pgbench is missing from $PG_BIN"
  if ! command -v wrk >/dev/null; then
    say "installing wrk (apt-get)"
    local sudo=""
    is_root || sudo="sudo"
    { $sudo apt-get install -y wrk || { $sudo apt-get update && $sudo apt-get install -y wrk; }; } \
      >>"$LOG" 2>&1 || die "cannot install wrk (apt-get install -y wrk)"
  fi
  command -v curl >/dev/null || die "curl is needed"
}

# A port nobody listens on, below the kernel's ephemeral range (outgoing connections take
# their local ports there, and such a port cannot be bound even though nothing listens on it).
free_port() {
  local port low
  low=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  [ "$low" -gt 20100 ] || low=60000
  for _ in $(seq 100); do
    port=$((20000 + RANDOM % (low - 20000)))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      printf '%s' "$port"
      return
    fi
  done
  die "no free port found"
}

# ---------------------------------------------------------------------------------------------
# PostgreSQL of our own.
start_postgres() {
  TMP="$(mktemp -d /tmp/procflow-bench.XXXXXX)"
  chmod 755 "$TMP"
  mkdir -p "$TMP/pg" "$TMP/run"
  if is_root; then chown postgres:postgres "$TMP/pg" "$TMP/run"; fi
  chmod 700 "$TMP/pg"
  as_owner "$PG_BIN/initdb" -D "$TMP/pg" -U postgres --auth=trust -E UTF8 --locale=C \
    >"$TMP/initdb.log" 2>&1 || { cat "$TMP/initdb.log" >&2; die "initdb failed"; }
  cat >>"$TMP/pg/postgresql.conf" <<EOF

# procflow bench: a throwaway server on 127.0.0.1. Durability is PostgreSQL's default, written
# out for the record; memory is sized for a 1,000,000-run team.
listen_addresses = '127.0.0.1'
unix_socket_directories = '$TMP/run'
fsync = on
synchronous_commit = on
full_page_writes = on
shared_buffers = 512MB
max_wal_size = 4GB
max_connections = 100
EOF
  # The port is passed at start, so that a port taken between the check and the bind (another
  # process may take it) only costs another try.
  local attempt
  for attempt in 1 2 3 4 5; do
    PG_PORT="$(free_port)"
    rm -f "$TMP/run/postgres.log"
    if as_owner "$PG_BIN/pg_ctl" start -D "$TMP/pg" -l "$TMP/run/postgres.log" -o "-p $PG_PORT" \
      -w -t 60 >/dev/null; then
      break
    fi
    grep -q "could not bind" "$TMP/run/postgres.log" && [ "$attempt" -lt 5 ] ||
      { tail -n 20 "$TMP/run/postgres.log" >&2; die "PostgreSQL did not start"; }
    say "  port $PG_PORT was taken; trying another"
  done
  PG_STARTED=1
  DB_URL="postgres://postgres@127.0.0.1:$PG_PORT/procflow"
  "$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -c "CREATE DATABASE procflow" >/dev/null
}

sql() { "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d "${PG_DB:-procflow}" "$@"; }

# The create floor's -D arguments (bench/sql/create_run.sql): the 50-task template's sections
# and tasks as the array literals of the columns the service sends, its 5 pre-filled values
# set in the elements as the create body sets them. One "name<TAB>value" line each.
create_floor_arrays() {
  local name value where="template_id = '$TPL50'"
  CREATE_FLOOR=(-D tpl="$TPL50")
  while IFS=$'\t' read -r name value; do CREATE_FLOOR+=(-D "$name=$value"); done < <(sql -F $'\t' -c "
    SELECT 'nsec', count(*)::text FROM template_sections WHERE $where
    UNION ALL SELECT 'sec_ids', array_agg(id ORDER BY position)::text FROM template_sections WHERE $where
    UNION ALL SELECT 'sec_titles', array_agg(title ORDER BY position)::text FROM template_sections WHERE $where
    UNION ALL SELECT 'sec_descriptions', array_agg(description ORDER BY position)::text FROM template_sections WHERE $where
    UNION ALL SELECT 'sec_positions', array_agg(position ORDER BY position)::text FROM template_sections WHERE $where
    UNION ALL SELECT 'sec_colors', array_agg(color ORDER BY position)::text FROM template_sections WHERE $where
    UNION ALL SELECT 'ntasks', count(*)::text FROM template_tasks WHERE $where
    UNION ALL SELECT 'task_template_ids', array_agg(id ORDER BY position)::text FROM template_tasks WHERE $where
    UNION ALL SELECT 'task_sections', array_agg(section_id ORDER BY position)::text FROM template_tasks WHERE $where
    UNION ALL SELECT 'task_titles', array_agg(title ORDER BY position)::text FROM template_tasks WHERE $where
    UNION ALL SELECT 'task_positions', array_agg(position ORDER BY position)::text FROM template_tasks WHERE $where
    UNION ALL SELECT 'task_essential', array_agg(is_essential ORDER BY position)::text FROM template_tasks WHERE $where
    UNION ALL SELECT 'task_types', array_agg(task_type ORDER BY position)::text FROM template_tasks WHERE $where
    UNION ALL SELECT 'task_webhooks', array_agg(webhook_enabled ORDER BY position)::text FROM template_tasks WHERE $where
    UNION ALL SELECT 'task_elements', array_agg(CASE WHEN position < 5
        THEN jsonb_set(custom_elements, '{0,value}', to_jsonb('Prefilled ' || position))
        ELSE custom_elements END ORDER BY position)::text FROM template_tasks WHERE $where
    UNION ALL SELECT 'task_refs', array_agg(reference ORDER BY position)::text FROM template_tasks WHERE $where
    UNION ALL SELECT 'task_depends', array_agg(depends_on ORDER BY position)::text FROM template_tasks WHERE $where")
  [ "${#CREATE_FLOOR[@]}" -eq 36 ] || die "the create floor's arrays: ${#CREATE_FLOOR[@]} arguments, not 36"
}

# settle <what>: PostgreSQL's dirty buffers checkpointed and the kernel's dirty pages written
# out, before rows whose tails the disk decides. The kernel writes a dirty page out about 30 s
# after it was dirtied (vm.dirty_expire_centisecs), in one burst, and a commit's WAL flush
# waits behind it: without this, the release build's link, initdb's, the migrations', the
# seeds' and the task lists' pages were written out in the middle of the create and complete
# rows, a stall of up to a second on whichever side's round ran then (docs/performance.md,
# "Create's stalls on a fresh database"). The rows' own writes still go out during them.
settle() {
  local took
  took=$(timed checkpoint_and_sync)
  say "  settled before $1: CHECKPOINT and sync in $took s"
}
checkpoint_and_sync() { sql -c CHECKPOINT && sync; }

# Seconds (with decimals) a command takes. Called as var=$(timed ...): a failing command stops
# the bench there (die in the substitution, then the assignment's status under set -e), where
# without the die the seconds would be printed and the failure lost.
timed() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >>"$LOG" || die "$* (its output in $LOG)"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }'
}

# ---------------------------------------------------------------------------------------------
# procflow.
build() {
  if [ -n "${BENCH_BIN:-}" ]; then
    BIN="$BENCH_BIN"
    BUILD_NOTE="binary $BIN (BENCH_BIN, not built by the bench)"
    say "using $BIN (BENCH_BIN, no build)"
  else
    say "building procflow (release)"
    (cd "$ROOT" && "$CARGO" build --release -p procflow-server --bin procflow) >>"$LOG" 2>&1 ||
      { tail -n 30 "$LOG" >&2; die "cargo build --release failed (full output in ${LOG#"$ROOT"/})"; }
    BIN="$OUT_DIR/release/procflow"
    local commit
    commit="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo 'unknown commit')"
    if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no -- crates Cargo.toml Cargo.lock 2>/dev/null)" ]; then
      commit="$commit with uncommitted changes"
    fi
    BUILD_NOTE="procflow $commit, release build"
  fi
  [ -x "$BIN" ] || die "no binary at $BIN"
}

field() { sed -nE "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"?([^\",}]*)\"?.*/\\1/p" <<<"$2"; }

admin() {
  local out
  out="$(DATABASE_URL="$DB_URL" RUST_LOG=warn "$BIN" admin "$@")" || die "procflow admin $1: $out"
  printf '%s' "$out"
}

# start_server <port> <rate limit> <log name>: sets SERVER_PID
start_server() {
  local port="$1" limit="$2" name="$3"
  local tuning=()
  [ "$DB_POOL" != default ] && tuning+=("PROCFLOW_DB_POOL_SIZE=$DB_POOL")
  [ "$HTTP_WORKERS" != default ] && tuning+=("PROCFLOW_HTTP_WORKERS=$HTTP_WORKERS")
  env -u PROCFLOW_DB_POOL_SIZE -u PROCFLOW_HTTP_WORKERS "${tuning[@]}" \
    DATABASE_URL="$DB_URL" PROCFLOW_BIND="127.0.0.1:$port" PROCFLOW_RATE_LIMIT_PER_MINUTE="$limit" \
    PROCFLOW_WEBHOOK_ALLOW_PRIVATE=true RUST_LOG=warn "$BIN" serve >"$TMP/$name.log" 2>&1 &
  SERVER_PID=$!
  PIDS+=("$SERVER_PID")
  SERVE_PIDS+=("$SERVER_PID")
  SIGINT_PIDS+=("$SERVER_PID")
  for _ in $(seq 100); do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ]; then
      return
    fi
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$TMP/$name.log" >&2; die "the server stopped"; }
    sleep 0.1
  done
  die "the server on port $port is not ready after 10 s"
}

# How the measured server's pool and workers are set, for the log and the report.
server_tuning() {
  local pool="16 (the server's default)" workers="one per core (the server's default)"
  [ "$DB_POOL" != default ] && pool="$DB_POOL (PROCFLOW_DB_POOL_SIZE)"
  [ "$HTTP_WORKERS" != default ] && workers="$HTTP_WORKERS (PROCFLOW_HTTP_WORKERS)"
  printf 'database pool %s, HTTP workers %s' "$pool" "$workers"
}

rss_kib() { awk -v f="$2" '$1 == f":" { print $2 }' "/proc/$1/status"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# ---------------------------------------------------------------------------------------------
# Measuring. Results go to $OUT/results.tsv: key, requests/s, p50 ms, p99 ms, errors.
RESULTS="$OUT/results.tsv"

record() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$RESULTS"; }
result() { awk -F'\t' -v k="$1" -v c="$2" '$1 == k { v = $c } END { print v }' "$RESULTS"; }

# The hypervisor's share of the machine while a measurement runs (steal time, the eighth field
# of /proc/stat's `cpu` line), shown beside each ratio of the tables with a floor: on these VMs
# other guests took up to 40 % of the cores in one session, and a ratio measured while they took
# a share on one side only says more about that minute than about the code (docs/performance.md,
# "Reading the table"). steal_begin notes the machine's CPU time so far; steal_end <key> adds
# the steal and the total since then to the key's tally: over its rounds, or its one run.
cpu_jiffies() { awk '$1 == "cpu" { print $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
STEAL_FROM=""
steal_begin() { STEAL_FROM="$(cpu_jiffies)"; }
steal_end() {
  local file="$TMP/steal.$1" s0 t0 s1 t1
  [ -n "$ROUND" ] || : >"$file"  # a key in rounds: rounds() cleared it before the first
  read -r s0 t0 <<<"$STEAL_FROM"
  read -r s1 t1 < <(cpu_jiffies)
  printf '%s %s\n' "$((s1 - s0))" "$((t1 - t0))" >>"$file"
}
# steal_pct <key>: the steal time over the key's measurements, as a percentage of the machine's
# CPU time (all cores); "–" when the key was not measured.
steal_pct() {
  [ -s "$TMP/steal.$1" ] || { printf '–'; return; }
  awk '{ s += $1; t += $2 } END { if (t > 0) printf "%.1f", 100 * s / t; else printf "–" }' "$TMP/steal.$1"
}

# load <key> <connections> <script> <args...>: wrk on the main server. Sets NEXT.
load() {
  local key="$1" conns="$2" script="$3" port="${LOAD_PORT:-$PORT}" secs="$SECS" hist=""
  shift 3
  local threads=$((conns < 2 ? conns : 2)) out line
  if [ -n "$ROUND" ]; then secs=$ROUND_SECS; hist="$TMP/hist.$key.$ROUND"; fi
  citus_counters_begin
  steal_begin
  out="$(BENCH_HIST="$hist" wrk -t"$threads" -c"$conns" -d"${secs}s" --timeout 5s -s "$BENCH/wrk/$script" \
    "http://127.0.0.1:$port" -- "$@" 2>&1)" || { printf '%s\n' "$out" >&2; die "wrk failed ($key)"; }
  printf '== wrk %s%s\n%s\n' "$key" "${ROUND:+ (round $ROUND)}" "$out" >>"$LOG"
  line="$(grep '^BENCH ' <<<"$out" | tail -n 1)"
  [ -n "$line" ] || { printf '%s\n' "$out" >&2; die "wrk printed no result ($key)"; }
  local requests duration p50 p99 errors unexpected
  requests=$(sed -E 's/.* requests=([0-9]+).*/\1/' <<<"$line")
  duration=$(sed -E 's/.* duration_us=([0-9]+).*/\1/' <<<"$line")
  p50=$(sed -E 's/.* p50_us=([0-9]+).*/\1/' <<<"$line")
  p99=$(sed -E 's/.* p99_us=([0-9]+).*/\1/' <<<"$line")
  errors=$(sed -E 's/.* errors=([0-9]+).*/\1/' <<<"$line")
  unexpected=$(sed -E 's/.* unexpected=([0-9]+).*/\1/' <<<"$line")
  NEXT=$(sed -E 's/.* next=([0-9]+).*/\1/' <<<"$line")
  [ "$script" = limited.lua ] && errors="$unexpected"
  steal_end "$key"
  citus_counters_end "$key"
  if [ -n "$ROUND" ]; then
    printf '%s %s %s\n' "$requests" "$duration" "$errors" >>"$TMP/round.$key"
    return
  fi
  record "$key" \
    "$(awk -v r="$requests" -v d="$duration" 'BEGIN { printf "%.0f", r / (d / 1e6) }')" \
    "$(awk -v v="$p50" 'BEGIN { printf "%.2f", v / 1000 }')" \
    "$(awk -v v="$p99" 'BEGIN { printf "%.2f", v / 1000 }')" \
    "$errors"
  say "  $key: $(result "$key" 2) req/s, p50 $(result "$key" 3) ms, p99 $(result "$key" 4) ms, errors $(result "$key" 5)"
}

# floor <key> <connections> <script> <-D name=value...>: pgbench. Sets NEXT (for counters).
# floor_script <script>: the script of bench/sql as pgbench runs it, its `-- @admission` line
# replaced by bench/sql/admission.sql (pgbench has no include); prints its path.
floor_script() {
  local out="$TMP/floor-$1"
  awk -v admission="$BENCH/sql/admission.sql" \
    '/^-- @admission/ { while ((getline line < admission) > 0) print line; close(admission); next } { print }' \
    "$BENCH/sql/$1" >"$out" || die "cannot compose the floor script $1"
  printf '%s' "$out"
}

# pgbench_prefix <key>: where the per-transaction logs of the key's pgbench runs go.
pgbench_prefix() { printf '%s' "$TMP/pgbench_${1//[^a-z0-9]/_}"; }

# pgbench_latencies <clients> <transactions> <microseconds> <log>...: the latencies of the
# transactions pgbench logged, as "<microseconds> <count>" lines, corrected for coordinated
# omission the way wrk corrects the service's before the bench's script reads them (wrk.c,
# `stats_correct`): with I the mean interval between one client's transactions (the run's time
# over its transactions per client), a latency L of 2 I or more adds L - I, L - 2 I, ... down to
# just above I, the latencies of the transactions that would have waited behind it. Without it a
# stall of the machine costs the floor a handful of slow transactions and the service hundreds,
# and the two p99s beside each other are not the same measure (docs/performance.md).
pgbench_latencies() {
  local clients="$1" txs="$2" took_us="$3"
  shift 3
  cat "$@" | awk -v c="$clients" -v n="$txs" -v t="$took_us" '
    BEGIN { per = int(n / c); i = per > 0 ? int(t / per) : 0 }
    { print $3 " 1"; if (i > 0 && $3 >= 2 * i) for (m = $3 - i; m > i; m -= i) print m " 1" }'
}

floor() {
  local key="$1" conns="$2" script="$3" secs="$SECS"
  shift 3
  local prefix out
  prefix=$(pgbench_prefix "$key")
  if [ -n "$ROUND" ]; then secs=$ROUND_SECS; prefix="$prefix.r$ROUND"; fi
  rm -f "$prefix".*
  citus_counters_begin
  steal_begin
  out="$("$PG_BIN/pgbench" -n -M prepared -c "$conns" -j 2 -T "$secs" -f "$(floor_script "$script")" \
    -l --log-prefix="$prefix" -h 127.0.0.1 -p "$PG_PORT" -U postgres \
    -D team="$TEAM" -D key_tag=1 -D nkeys="$NKEYS" -D limit="$RATE_LIMIT" -D clients="$conns" \
    -D active=active -D i=0 "$@" "${PG_DB:-procflow}" 2>&1)" || true
  printf '== pgbench %s%s\n%s\n' "$key" "${ROUND:+ (round $ROUND)}" "$out" >>"$LOG"
  local tps failed aborted txs took_us pcts
  tps="$(sed -nE 's/^tps = ([0-9.]+) \(without initial connection time\)/\1/p' <<<"$out")"
  [ -n "$tps" ] || { printf '%s\n' "$out" | tail -n 20 >&2; die "pgbench printed no tps ($key)"; }
  failed="$(sed -nE 's/^number of failed transactions: ([0-9]+).*/\1/p' <<<"$out")"
  aborted="$(grep -c 'aborted' <<<"$out" || true)"
  txs="$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' <<<"$out")"
  # pgbench's tps leaves out the time its connections took to open: the run's time is what its
  # transactions took at that rate.
  took_us="$(awk -v n="${txs:-0}" -v t="$tps" 'BEGIN { printf "%.0f", (t > 0 ? n / t * 1e6 : 0) }')"
  steal_end "$key"
  [ "$took_us" -gt 0 ] || die "pgbench ran no transactions ($key)"
  NEXT="$(cat "$prefix".* | awk -v c="$conns" 'BEGIN { m = 0 } $2 > m { m = $2 } END { print (m + 2) * c }')"
  citus_counters_end "$key"
  if [ -n "$ROUND" ]; then
    pgbench_latencies "$conns" "$txs" "$took_us" "$prefix".* >"$TMP/hist.$key.$ROUND"
    printf '%s %s %s\n' "$txs" "$took_us" "$((${failed:-0} + aborted))" >>"$TMP/round.$key"
    return
  fi
  pcts="$(pgbench_latencies "$conns" "$txs" "$took_us" "$prefix".* | percentiles)"
  record "$key" "$(printf '%.0f' "$tps")" "${pcts% *}" "${pcts#* }" "$((${failed:-0} + aborted))"
  say "  $key: $(result "$key" 2) tx/s, p50 $(result "$key" 3) ms, p99 $(result "$key" 4) ms, errors $(result "$key" 5)"
}

# percentiles: "<p50 ms> <p99 ms>" of the latencies read as "<microseconds> <count>" lines (a
# histogram; one line a transaction from pgbench's logs).
percentiles() {
  sort -n -k1,1 | awk '{ v[NR] = $1; c[NR] = $2; n += $2 }
    END {
      if (n == 0) { print "0.00 0.00"; exit }
      i50 = int(n * 0.50); i99 = int(n * 0.99); if (i50 < 1) i50 = 1; if (i99 < 1) i99 = 1
      for (k = 1; k <= NR; k++) {
        seen += c[k]
        if (p50 == "" && seen >= i50) p50 = v[k]
        if (p99 == "" && seen >= i99) p99 = v[k]
      }
      printf "%.2f %.2f", p50 / 1000, p99 / 1000
    }'
}

# rounds <command>...: each command a `load` or `floor` line (evaluated as written, so that
# its arguments are taken afresh each round), run in rounds of ROUND_SECS seconds until each has
# had SECS: in the order given on odd rounds and reversed on even ones (A B, B A, A B, ...). A
# row's service and its floor then span the same stretch of time, rather than the floor coming
# 10 to 40 s after the service: this machine's slow spells last about that long, and that order
# alone moved a ratio by up to 0.2 between runs (docs/performance.md). Each key's rounds are
# summed into one result: requests over the time they took, latencies merged (wrk's histograms,
# pgbench's logs) into the same percentiles one run would give, errors added.
ROUND=""
rounds() {
  local n=$(((SECS + ROUND_SECS - 1) / ROUND_SECS)) r i key keys=()
  for ((i = 1; i <= $#; i++)); do
    round_key "${!i}"
    keys+=("$key")
    rm -f "$TMP/round.$key" "$TMP/hist.$key".* "$TMP/steal.$key" "$(pgbench_prefix "$key")".r*
  done
  for ((r = 1; r <= n; r++)); do
    ROUND=$r
    if ((r % 2)); then
      for ((i = 1; i <= $#; i++)); do eval "${!i}"; done
    else
      for ((i = $#; i >= 1; i--)); do eval "${!i}"; done
    fi
  done
  ROUND=""
  for key in "${keys[@]}"; do round_total "$key" "$n"; done
}

# round_key <command>: sets key to the command's key (its second word, variables expanded).
round_key() {
  local word
  read -r _ word _ <<<"$1"
  eval "key=$word"
}

# round_total <key> <rounds>: records the key's rounds as one result.
round_total() {
  local key="$1" n="$2" sums pcts
  sums=$(awk '{ r += $1; d += $2; e += $3 } END { printf "%.0f %s", (d > 0 ? r / (d / 1e6) : 0), e }' "$TMP/round.$key")
  pcts="$(cat "$TMP/hist.$key".* | percentiles)"
  record "$key" "${sums% *}" "${pcts% *}" "${pcts#* }" "${sums#* }"
  say "  $key: $(result "$key" 2) $([[ "$key" == *.sql.* ]] && echo tx || echo req)/s over $n rounds of $ROUND_SECS s, p50 $(result "$key" 3) ms, p99 $(result "$key" 4) ms, errors $(result "$key" 5)"
}

# ---------------------------------------------------------------------------------------------
main() {
  local setting
  for setting in "BENCH_SECONDS=$SECS" "BENCH_ROUND_SECONDS=$ROUND_SECS"; do
    [[ "${setting#*=}" =~ ^[1-9][0-9]*$ ]] || die "${setting%%=*} must be a whole number of seconds, 1 or more (got '${setting#*=}')"
  done
  ensure_tools
  build
  : >"$RESULTS"
  : >"$OUT/xacts.tsv"
  say "starting PostgreSQL $("$PG_BIN/postgres" --version | awk '{ print $3 }') (fsync on, synchronous_commit on)"
  start_postgres
  say "migrating"
  DATABASE_URL="$DB_URL" RUST_LOG=warn "$BIN" migrate >>"$LOG" || die "migrate failed"

  say "seeding the teams, templates (5, 50 and 500 tasks x 3 fields) and API keys"
  local out admin_id small_team small_admin
  out="$(admin create-team --name "Bench big" --base-url http://127.0.0.1:1 \
    --admin-email admin@big.bench --admin-name Admin)"
  TEAM="$(field team_id "$out")"; admin_id="$(field admin_user_id "$out")"
  out="$(admin create-team --name "Bench small" --base-url http://127.0.0.1:1 \
    --admin-email admin@small.bench --admin-name Admin)"
  small_team="$(field team_id "$out")"; small_admin="$(field admin_user_id "$out")"
  BIG_ADMIN=$admin_id; SMALL_TEAM=$small_team; SMALL_ADMIN=$small_admin  # for bench/inbox.sh
  local n
  for n in 5 50 500; do "$BENCH/gen-template.sh" "$n" >"$TMP/template-$n.json"; done
  TPL50="$(field template_id "$(admin import-template --team "$TEAM" "$TMP/template-50.json" --publish)")"
  TPL5="$(field template_id "$(admin import-template --team "$TEAM" "$TMP/template-5.json" --publish)")"
  TPL500="$(field template_id "$(admin import-template --team "$TEAM" "$TMP/template-500.json" --publish)")"
  SMALL_TPL="$(field template_id "$(admin import-template --team "$small_team" "$TMP/template-50.json" --publish)")"
  LIMITED_KEY="$(field key "$(admin create-api-key --team "$TEAM" --admin-email admin@big.bench --name limited)")"
  sql -f "$BENCH/seed.sql" >>"$LOG"
  create_floor_arrays
  sql -c "SELECT bench.make_keys('$TEAM', '$admin_id', 1, $NKEYS), bench.make_keys('$small_team', '$small_admin', 2, $NKEYS)" >/dev/null
  for ((n = 1; n <= NKEYS; n++)); do echo "pf_live_bench_1_$n"; done >"$TMP/keys-big.txt"
  for ((n = 1; n <= NKEYS; n++)); do echo "pf_live_bench_2_$n"; done >"$TMP/keys-small.txt"
  # The create body: 5 values pre-filled, the first field (shortText) of the first 5 tasks.
  sql -c "SELECT json_build_object('template_id', '$TPL50', 'name', 'Bench run',
            'custom_elements', json_agg(json_build_object('task_id', id,
              'element_id', custom_elements->0->>'id', 'value', 'Prefilled ' || position) ORDER BY position))
          FROM (SELECT * FROM template_tasks WHERE template_id = '$TPL50' ORDER BY position LIMIT 5) t" \
    >"$TMP/create-body.json"

  PORT="$(free_port)"
  say "starting procflow serve on 127.0.0.1:$PORT (PROCFLOW_RATE_LIMIT_PER_MINUTE=$RATE_LIMIT; $(server_tuning))"
  start_server "$PORT" "$RATE_LIMIT" server
  MAIN_PID=$SERVER_PID
  sleep 1
  RSS_IDLE=$(rss_kib "$MAIN_PID" VmRSS)

  if [ "${BENCH_ONLY:-}" = logic ]; then
    logic_scenario
    { echo "## procflow bench, process logic only (BENCH_ONLY=logic), $(date -u '+%Y-%m-%d %H:%M UTC')"
      echo
      echo "$(nproc) cores; $BUILD_NOTE; $(server_tuning); each figure one run of ${SECS} s."
      logic_report; } >"$REPORT"
    say "report written to ${REPORT#"$ROOT"/}"
    echo
    cat "$REPORT"
    return
  fi
  if [ "${BENCH_ONLY:-}" = files ]; then
    files_scenario
    { echo "## procflow bench, attachments only (BENCH_ONLY=files), $(date -u '+%Y-%m-%d %H:%M UTC')"
      echo
      echo "$(nproc) cores, load average at the end $(cut -d' ' -f1-3 /proc/loadavg); $BUILD_NOTE; $(server_tuning)."
      files_report; } >"$REPORT"
    say "report written to ${REPORT#"$ROOT"/}"
    echo
    cat "$REPORT"
    return
  fi

  # Run ids of the seeded pools: pool `tag` holds run i at millisecond base + i (see seed.sql).
  BASE_MS=$(sql -c "SELECT bench.ms(now() - interval '40 days')")

  case "${BENCH_ONLY:-}" in *inbox* | *comments* | *scheduler*) only_issue_rows; return ;; esac
  local big_ms=$BASE_MS svc_ms=$((BASE_MS + 2000000)) floor_ms=$((BASE_MS + 3000000))
  local t5_ms=$((BASE_MS + 4000000)) t500_ms=$((BASE_MS + 5000000)) lt_ms=$((BASE_MS + 6000000))

  # 1. Create a run, on a fresh database.
  say "scenario 1: create a run (fresh database)"
  LOAD_SECS_SAVE=$SECS; SECS=2; load warmup 4 create_run.lua "$TMP/keys-big.txt" "$TMP/create-body.json"; SECS=$LOAD_SECS_SAVE
  # The tables the warm-up wrote to analyzed, as autovacuum does within its first minute: the
  # server's connections planned their statements (the foreign-key checks of 50 task rows
  # among them) while run_tasks and run_sections were empty, and kept seq-scanning them as
  # they grew until an ANALYZE invalidated those plans; pgbench's connections, opened later,
  # never see that. Measured without it: 288 then 212 creates/s in two 5 s runs after the
  # warm-up, against 452 and 444 with it (docs/performance.md).
  sql -c "ANALYZE runs, run_sections, run_tasks, outbox" >/dev/null
  settle "the create rows"
  # The floor's run ids: its clients' tags (ctag + client) and the round's start time in ms plus
  # a count of transactions far below the 2,000 ms between two rounds.
  rounds 'load create.svc.4 4 create_run.lua "$TMP/keys-big.txt" "$TMP/create-body.json"' \
    'floor create.sql.4 4 create_run.sql "${CREATE_FLOOR[@]}" -D base="$(date +%s%3N)" -D ctag=16'
  rounds 'load create.svc.16 16 create_run.lua "$TMP/keys-big.txt" "$TMP/create-body.json"' \
    'floor create.sql.16 16 create_run.sql "${CREATE_FLOOR[@]}" -D base="$(date +%s%3N)" -D ctag=32'
  xacts_count xact.create.svc load create_run.lua "$TMP/keys-big.txt" "$TMP/create-body.json"
  xacts_count xact.create.sql floor create_run.sql "${CREATE_FLOOR[@]}" -D base="$(date +%s%3N)" -D ctag=48
  RUNS_FRESH_END=$(sql -c "SELECT count(*) FROM runs")

  say "seeding $GROWTH_RUNS runs (set-based SQL, with their sections)"
  SEED_100K=$(timed sql -c "SELECT bench.seed_runs('$TEAM', '$TPL50', 1, $GROWTH_RUNS, $big_ms, false)")
  sql -c "ANALYZE" >/dev/null
  sql -c "CHECKPOINT" >/dev/null  # as after the main seeding, below
  say "  seeded in $SEED_100K s"
  say "growth: create a run after $GROWTH_RUNS runs"
  load create100k.svc.4 4 create_run.lua "$TMP/keys-big.txt" "$TMP/create-body.json"
  load create100k.svc.16 16 create_run.lua "$TMP/keys-big.txt" "$TMP/create-body.json"

  say "seeding the rest: $((BIG_RUNS - GROWTH_RUNS)) runs, a team of $SMALL_RUNS, task pools"
  # Three sessions at once (two halves of the big team's runs, then everything else): the
  # seed is bound by WAL flushes and index maintenance more than by one core.
  local rest=$((BIG_RUNS - GROWTH_RUNS)) half seed_pids=() t0
  half=$((rest / 2))
  t0=$(date +%s.%N)
  sql -c "SELECT bench.seed_runs('$TEAM', '$TPL50', 1, $half, $((big_ms + GROWTH_RUNS)), false)" >>"$LOG" &
  seed_pids+=($!)
  sql -c "SELECT bench.seed_runs('$TEAM', '$TPL50', 1, $((rest - half)), $((big_ms + GROWTH_RUNS + half)), false)" >>"$LOG" &
  seed_pids+=($!)
  sql -c "SELECT bench.seed_runs('$small_team', '$SMALL_TPL', 2, $SMALL_RUNS, $big_ms, false),
    bench.seed_runs('$TEAM', '$TPL50', 3, $TASK_POOL_RUNS, $svc_ms, true),
    bench.seed_runs('$TEAM', '$TPL50', 4, $FLOOR_POOL_RUNS, $floor_ms, true),
    bench.seed_runs('$TEAM', '$TPL5', 5, $SMALL_TASK_RUNS, $t5_ms, true),
    bench.seed_runs('$TEAM', '$TPL500', 6, $LARGE_TASK_RUNS, $t500_ms, true),
    bench.seed_runs('$TEAM', '$TPL50', 7, 1, $lt_ms, true)" >>"$LOG" &
  seed_pids+=($!)
  PIDS+=("${seed_pids[@]}")
  for pid in "${seed_pids[@]}"; do wait "$pid" || die "seeding failed (see ${LOG#"$ROOT"/})"; done
  SEED_REST=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  SEED_VACUUM=$(timed sql -c "VACUUM ANALYZE")
  # Seeding wrote gigabytes of WAL: without a checkpoint now, PostgreSQL takes one during the
  # next scenario, and its writes and fsyncs land in that scenario's tail latencies.
  SEED_CHECKPOINT=$(timed sql -c "CHECKPOINT")
  say "  seeded in $SEED_REST s, VACUUM ANALYZE $SEED_VACUUM s, CHECKPOINT $SEED_CHECKPOINT s"
  BIG_TOTAL=$(sql -c "SELECT count(*) FROM runs WHERE team_id = '$TEAM'")
  DB_SIZE=$(sql -c "SELECT pg_size_pretty(pg_database_size(current_database()))")

  sql -c "\\copy (SELECT run_id || ' ' || task_id FROM bench.task_order(3, $TASK_POOL_RUNS, 49, $svc_ms) ORDER BY k) TO '$TMP/tasks-50.txt'"
  sql -c "\\copy (SELECT run_id || ' ' || task_id FROM bench.task_order(5, $SMALL_TASK_RUNS, 4, $t5_ms) ORDER BY k) TO '$TMP/tasks-5.txt'"
  sql -c "\\copy (SELECT run_id || ' ' || task_id FROM bench.task_order(6, $LARGE_TASK_RUNS, 499, $t500_ms) ORDER BY k) TO '$TMP/tasks-500.txt'"
  settle "the complete rows"

  # 2. Complete a task, each request a different open task.
  say "scenario 2: complete a task"
  local next_svc=0 next_floor=0 cap_svc=$((TASK_POOL_RUNS * 49))
  local floor_vars=(-D pool_tag=4 -D pool_ms="$floor_ms" -D pool_runs="$FLOOR_POOL_RUNS") c
  for c in 4 16; do
    rounds 'load complete.svc.$c $c complete_task.lua "$TMP/keys-big.txt" "$TMP/tasks-50.txt" "$next_svc" 2; next_svc=$NEXT' \
      'floor complete.sql.$c $c complete_task.sql "${floor_vars[@]}" -D start="$next_floor"; next_floor=$((next_floor + NEXT))'
  done
  xacts_count xact.complete.svc load complete_task.lua "$TMP/keys-big.txt" "$TMP/tasks-50.txt" "$next_svc" 2; next_svc=$NEXT
  xacts_count xact.complete.sql floor complete_task.sql "${floor_vars[@]}" -D start="$next_floor"; next_floor=$((next_floor + NEXT))
  [ "$next_svc" -le "$cap_svc" ] || say "  WARNING: the task pool wrapped around ($next_svc > $cap_svc): some PATCHes repeated a completed task"
  TASK_NEXT=$next_svc  # the webhook rows go on with this pool
  [ "$next_floor" -le "$((FLOOR_POOL_RUNS * 49))" ] || say "  WARNING: the floor's task pool wrapped around"
  # The floor's statements find their rows by computed ids: check they did complete tasks.
  local done_svc done_floor
  done_svc=$(sql -c "SELECT count(*) FROM run_tasks WHERE team_id = '$TEAM' AND state = 'completed'
    AND run_id IN (SELECT bench.uuid($svc_ms + r, 3, 0) FROM generate_series(0, $TASK_POOL_RUNS - 1) r)")
  done_floor=$(sql -c "SELECT count(*) FROM run_tasks WHERE team_id = '$TEAM' AND state = 'completed'
    AND run_id IN (SELECT bench.uuid($floor_ms + r, 4, 0) FROM generate_series(0, $FLOOR_POOL_RUNS - 1) r)")
  say "  tasks completed: $done_svc by the service, $done_floor by the floor"
  [ "$done_svc" -gt 0 ] && [ "$done_floor" -gt 0 ] || die "scenario 2 completed no task (service $done_svc, floor $done_floor)"

  # 3. A run's tasks.
  say "scenario 3: list a run's 50 tasks (3g: its guest page, in the same rounds)"
  local lt_run
  lt_run=$(sql -c "SELECT bench.uuid($lt_ms, 7, 0)")
  # Scenario 3g, the guest page of the same run (bench/wrk/guest_page.lua), in the same rounds:
  # it is read against the API's list of the tasks.
  local share_path
  share_path=$(curl -s -H "Authorization: Bearer pf_live_bench_1_1" -H 'Content-Type: application/json' \
    -d '{}' "http://127.0.0.1:$PORT/api/v1/process-runs/$lt_run/invite" | sed -nE 's/.*"share_url":"[^"]*(\/instance\/[^"]*)".*/\1/p')
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT$share_path")" = 200 ] ||
    die "the guest page of $lt_run does not open ($share_path)"
  for c in 4 16; do
    rounds 'load tasks.svc.$c $c get.lua "$TMP/keys-big.txt" "/api/v1/process-runs/$lt_run/tasks?limit=50"' \
      'floor tasks.sql.$c $c list_tasks.sql -D run="$lt_run"' \
      'load guest.svc.$c $c guest_page.lua "$share_path"'
  done
  xacts_count xact.tasks.svc load get.lua "$TMP/keys-big.txt" "/api/v1/process-runs/$lt_run/tasks?limit=50"
  xacts_count xact.tasks.sql floor list_tasks.sql -D run="$lt_run"

  # 4. A page of runs after a cursor in the middle of the big team.
  say "scenario 4: a page of 20 runs after a cursor in the middle of $BIG_TOTAL runs (and of $SMALL_RUNS)"
  local cursor page_ids small_cursor
  cursor=$(sql -c "SELECT bench.uuid($((big_ms + BIG_RUNS / 2)), 1, 0)")
  page_ids=$(sql -c "SELECT '{' || string_agg(id::text, ',' ORDER BY id DESC) || '}' FROM
    (SELECT id FROM runs WHERE team_id = '$TEAM' AND id < '$cursor' ORDER BY id DESC LIMIT 21) p")
  # Growth: the same page on a team of SMALL_RUNS runs, in the same rounds.
  small_cursor=$(sql -c "SELECT bench.uuid($((big_ms + SMALL_RUNS / 2)), 2, 0)")
  for c in 4 16; do
    rounds 'load list.svc.$c $c get.lua "$TMP/keys-big.txt" "/api/v1/process-runs?limit=20&cursor=$cursor"' \
      'floor list.sql.$c $c list_runs.sql -D cursor="$cursor" -D page_ids="$page_ids"' \
      'load list10k.svc.$c $c get.lua "$TMP/keys-small.txt" "/api/v1/process-runs?limit=20&cursor=$small_cursor"'
  done
  xacts_count xact.list.svc load get.lua "$TMP/keys-big.txt" "/api/v1/process-runs?limit=20&cursor=$cursor"
  xacts_count xact.list.sql floor list_runs.sql -D cursor="$cursor" -D page_ids="$page_ids"

  # 5. One run.
  say "scenario 5: get one run"
  local one_run
  one_run=$(sql -c "SELECT bench.uuid($((big_ms + BIG_RUNS / 4)), 1, 0)")
  load get.svc.4 4 get.lua "$TMP/keys-big.txt" "/api/v1/process-runs/$one_run"
  load get.svc.16 16 get.lua "$TMP/keys-big.txt" "/api/v1/process-runs/$one_run"
  xacts_count xact.get.svc load get.lua "$TMP/keys-big.txt" "/api/v1/process-runs/$one_run"

  # Growth: task update on runs of 5 and of 500 tasks.
  say "growth: complete a task of a 5-task run, of a 500-task run"
  local n5=0 n500=0
  load update5.svc.4 4 complete_task.lua "$TMP/keys-big.txt" "$TMP/tasks-5.txt" "$n5" 2; n5=$NEXT
  load update5.svc.16 16 complete_task.lua "$TMP/keys-big.txt" "$TMP/tasks-5.txt" "$n5" 2; n5=$NEXT
  load update500.svc.4 4 complete_task.lua "$TMP/keys-big.txt" "$TMP/tasks-500.txt" "$n500" 2; n500=$NEXT
  load update500.svc.16 16 complete_task.lua "$TMP/keys-big.txt" "$TMP/tasks-500.txt" "$n500" 2; n500=$NEXT
  [ "$n5" -le "$((SMALL_TASK_RUNS * 4))" ] && [ "$n500" -le "$((LARGE_TASK_RUNS * 499))" ] ||
    say "  WARNING: a growth task pool wrapped around (5: $n5, 500: $n500)"

  etag_scenario "$one_run"
  batch_scenario
  busy_key_scenario
  logic_scenario

  RSS_END=$(rss_kib "$MAIN_PID" VmRSS)
  RSS_PEAK=$(rss_kib "$MAIN_PID" VmHWM)

  # 6. Over the rate limit: a second instance with a limit of 1 a minute, its key exhausted.
  say "scenario 6: over the rate limit (second instance, PROCFLOW_RATE_LIMIT_PER_MINUTE=1)"
  local limited_port first second xacts_before xacts_after
  limited_port="$(free_port)"
  start_server "$limited_port" 1 server-limited
  first=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $LIMITED_KEY" "http://127.0.0.1:$limited_port/api/v1/process-runs/$one_run")
  second=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $LIMITED_KEY" "http://127.0.0.1:$limited_port/api/v1/process-runs/$one_run")
  [ "$first" = 200 ] && [ "$second" = 429 ] || die "the limited key answered $first then $second (expected 200 then 429)"
  LOAD_PORT=$limited_port load limited.svc.4 4 limited.lua "$LIMITED_KEY" "/api/v1/process-runs/$one_run"
  # Database transactions during the second run only: PostgreSQL backends publish their
  # transaction counts up to 10 s after they go idle, so the main server's last requests are
  # counted by now, and what the second run adds is the limited instance's doing (plus the
  # bench's own psql query and autovacuum, if it runs).
  xacts_before=$(xacts_now)
  LOAD_PORT=$limited_port load limited.svc.16 16 limited.lua "$LIMITED_KEY" "/api/v1/process-runs/$one_run"
  sleep 1.1   # a backend publishes its counts at most once a second
  xacts_after=$(xacts_now)
  LIMITED_XACTS=$((xacts_after - xacts_before))
  LIMITED_REQUESTS=$(awk -F'\t' '$1 == "limited.svc.16" { print $2 * '"$SECS"' }' "$RESULTS")

  webhook_scenarios
  inbox_scenario
  comments_scenario
  scheduler_scenario
  files_scenario
  report
}

# BENCH_ONLY=inbox, comments, scheduler and/or files: the teams' runs seeded without the other scenarios' pools,
# then only those rows and their report.
only_issue_rows() {
  say "seeding $BIG_RUNS runs and a team of $SMALL_RUNS (set-based SQL, with their sections)"
  local t0
  t0=$(date +%s.%N)
  sql -c "SELECT bench.seed_runs('$TEAM', '$TPL50', 1, $BIG_RUNS, $BASE_MS, false)" >>"$LOG"
  sql -c "SELECT bench.seed_runs('$SMALL_TEAM', '$SMALL_TPL', 2, $SMALL_RUNS, $BASE_MS, false)" >>"$LOG"
  sql -c "VACUUM ANALYZE" >/dev/null
  sql -c "CHECKPOINT" >/dev/null
  say "  seeded in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
  BIG_TOTAL=$(sql -c "SELECT count(*) FROM runs WHERE team_id = '$TEAM'")
  case "$BENCH_ONLY" in *inbox*) inbox_scenario ;; esac
  case "$BENCH_ONLY" in *comments*) comments_scenario ;; esac
  case "$BENCH_ONLY" in *scheduler*) scheduler_scenario ;; esac
  case "$BENCH_ONLY" in *files*) files_scenario ;; esac
  { echo "## procflow bench, BENCH_ONLY=$BENCH_ONLY, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    echo "$(nproc) cores, load average at the end $(cut -d' ' -f1-3 /proc/loadavg); $BUILD_NOTE;" \
      "$(server_tuning); each figure ${SECS} s of load (the inbox page's four in alternating rounds of ${ROUND_SECS} s)."
    case "$BENCH_ONLY" in *inbox*) inbox_report ;; esac
    case "$BENCH_ONLY" in *comments*) comments_report ;; esac
    case "$BENCH_ONLY" in *scheduler*) scheduler_report ;; esac
    case "$BENCH_ONLY" in *files*) files_report ;; esac
  } >"$REPORT"
  say "report written to ${REPORT#"$ROOT"/}"
  echo
  cat "$REPORT"
}

# ---------------------------------------------------------------------------------------------
ratio() {
  local s f
  s=$(result "$1" 2); f=$(result "$2" 2)
  [ -n "$s" ] && [ -n "$f" ] && [ "$f" != 0 ] && awk -v s="$s" -v f="$f" 'BEGIN { printf "%.2f", s / f }' || printf '–'
}

# row_head: the head of a table of row() lines.
row_head() {
  echo "| Scenario | Conns | Service req/s | p50 ms | p99 ms | Errors | SQL floor tx/s | SQL p50 ms | SQL p99 ms | Service / SQL | Steal %, service / SQL |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
}

row() {  # row <label> <conns> <service key> [floor key]
  local svc="$3" fl="${4:-}"
  if [ -n "$fl" ]; then
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s |\n' "$1" "$2" \
      "$(result "$svc" 2)" "$(result "$svc" 3)" "$(result "$svc" 4)" "$(result "$svc" 5)" \
      "$(result "$fl" 2)" "$(result "$fl" 3)" "$(result "$fl" 4)" "$(ratio "$svc" "$fl")" \
      "$(steal_pct "$svc")" "$(steal_pct "$fl")"
  else
    printf '| %s | %s | %s | %s | %s | %s | – | – | – | – | %s |\n' "$1" "$2" \
      "$(result "$svc" 2)" "$(result "$svc" 3)" "$(result "$svc" 4)" "$(result "$svc" 5)" \
      "$(steal_pct "$svc")"
  fi
}

report() {
  local elapsed=$(($(date +%s) - STARTED)) cpu
  cpu="$(sed -nE 's/^model name[[:space:]]*: (.*)/\1/p' /proc/cpuinfo | head -n 1)"
  {
    echo "## procflow bench, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    echo "Machine: $(nproc) cores ($cpu), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM;" \
      "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)." \
      "PostgreSQL $("$PG_BIN/postgres" --version | awk '{ print $3 }') (fsync on, synchronous_commit on," \
      "shared_buffers 512MB), wrk $(wrk -v 2>&1 | awk 'NR == 1 { print $2 }'), server, database and load" \
      "generator on the same machine. $BUILD_NOTE; $(server_tuning)."
    echo
    echo "Each figure: ${SECS} s of load; a row with a SQL floor (with the guest page and the small team's" \
      "list beside theirs) takes its service and floor in alternating rounds of ${ROUND_SECS} s (A B, B A, ...)," \
      "each figure the sum of its rounds. Rate limit raised with PROCFLOW_RATE_LIMIT_PER_MINUTE=$RATE_LIMIT," \
      "and requests spread round-robin over $NKEYS API keys of the team (pgbench: a random key of the same" \
      "$NKEYS), so each key's window stays small; scenario 6 runs on a second instance with a limit of 1."
    echo
    row_head
    row "1. Create a run (50 tasks × 3 fields, 5 pre-filled), fresh database" 4 create.svc.4 create.sql.4
    row "1. Create a run, fresh database" 16 create.svc.16 create.sql.16
    row "2. Complete a task (PATCH), a different open task each time" 4 complete.svc.4 complete.sql.4
    row "2. Complete a task" 16 complete.svc.16 complete.sql.16
    row "3. List a run's tasks (50 with their fields)" 4 tasks.svc.4 tasks.sql.4
    row "3. List a run's tasks" 16 tasks.svc.16 tasks.sql.16
    row "3g. The guest page of that run (HTML, no key)" 4 guest.svc.4
    row "3g. The guest page of that run" 16 guest.svc.16
    row "4. List runs: page of 20 after a cursor mid-team ($BIG_TOTAL runs)" 4 list.svc.4 list.sql.4
    row "4. List runs, mid-team" 16 list.svc.16 list.sql.16
    row "5. Get one run" 4 get.svc.4
    row "5. Get one run" 16 get.svc.16
    row "6. Over the rate limit (429; errors = answers other than 429)" 4 limited.svc.4
    row "6. Over the rate limit" 16 limited.svc.16
    echo
    echo "Steal: the share of the machine's CPU time (all its cores) the hypervisor gave to other guests while" \
      "the service's load, then the floor's, ran (/proc/stat). A ratio read beside a few percent of steal" \
      "on one side only is that minute's as much as the code's: run the bench again."
    echo
    echo "The guest page against the API's read of the same run's tasks (scenario 3g / 3, target at least 0.8):" \
      "$(ratio guest.svc.4 tasks.svc.4) at 4 connections, $(ratio guest.svc.16 tasks.svc.16) at 16."
    echo
    echo "Growth (service only):"
    echo
    echo "| Measure | Conns | Before: req/s | p50 ms | p99 ms | After: req/s | p50 ms | p99 ms |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    local c
    for c in 4 16; do
      printf '| Create a run: fresh (%s runs at the end) → after %s runs | %s | %s | %s | %s | %s | %s | %s |\n' \
        "$RUNS_FRESH_END" "$GROWTH_RUNS" "$c" \
        "$(result create.svc.$c 2)" "$(result create.svc.$c 3)" "$(result create.svc.$c 4)" \
        "$(result create100k.svc.$c 2)" "$(result create100k.svc.$c 3)" "$(result create100k.svc.$c 4)"
    done
    for c in 4 16; do
      printf '| Complete a task: run of 5 tasks → run of 500 tasks | %s | %s | %s | %s | %s | %s | %s |\n' "$c" \
        "$(result update5.svc.$c 2)" "$(result update5.svc.$c 3)" "$(result update5.svc.$c 4)" \
        "$(result update500.svc.$c 2)" "$(result update500.svc.$c 3)" "$(result update500.svc.$c 4)"
    done
    for c in 4 16; do
      printf '| List page: team of %s runs → of %s runs | %s | %s | %s | %s | %s | %s | %s |\n' \
        "$SMALL_RUNS" "$BIG_TOTAL" "$c" \
        "$(result list10k.svc.$c 2)" "$(result list10k.svc.$c 3)" "$(result list10k.svc.$c 4)" \
        "$(result list.svc.$c 2)" "$(result list.svc.$c 3)" "$(result list.svc.$c 4)"
    done
    xacts_report
    batch_report
    etag_report
    busy_key_report
    logic_report
    echo
    echo "Memory of the server (VmRSS): idle after start $(mib "$RSS_IDLE") MiB; at the end of the load" \
      "$(mib "$RSS_END") MiB (peak VmHWM $(mib "$RSS_PEAK") MiB)."
    echo
    echo "Rate-limit refusals: during the 16-connection run of scenario 6, about ${LIMITED_REQUESTS} requests" \
      "answered 429 while the database counted ${LIMITED_XACTS} transactions in all (pg_stat_database;" \
      "the bench's own psql query included): once a key is refused, further refusals in its window do" \
      "no database round trip."
    echo
    echo "Seeding (set-based SQL, fsync on): $GROWTH_RUNS runs with their sections in $SEED_100K s;" \
      "$((BIG_RUNS - GROWTH_RUNS)) more, the $SMALL_RUNS-run team and the task pools (3 sessions at once)" \
      "in $SEED_REST s; VACUUM ANALYZE $SEED_VACUUM s; CHECKPOINT $SEED_CHECKPOINT s. Database at the end of seeding: $DB_SIZE." \
      "Total wall time of the bench: ${elapsed} s."
    webhook_report
    inbox_report
    comments_report
    scheduler_report
    files_report
    citus_report
  } >"$REPORT"
  say "report written to ${REPORT#"$ROOT"/}"
  echo
  cat "$REPORT"
}

# shellcheck source=bench/webhooks.sh
. "$BENCH/webhooks.sh"
# shellcheck source=bench/citus.sh
. "$BENCH/citus.sh"  # last: on Citus (BENCH_CITUS_URL) it replaces some of the above
if [ "${BENCH_ONLY:-}" = busy-key ]; then
  busy_key_main
else
  main "$@"
fi
