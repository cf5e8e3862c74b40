# procflow bench on a Citus coordinator (issue 25, docs/scaling.md "Performance on Citus").
# Sourced last by bench/run.sh, so that what it defines replaces run.sh's own. Without
# BENCH_CITUS_URL it only defines its hooks as no-ops and changes nothing.
#
#   BENCH_CITUS_URL=postgres://user@host:port/db   a Citus coordinator with its workers, the
#                      `citus` extension created in that database on every node (the bench
#                      creates no database there). The bench runs in a schema of its own of that
#                      database (BENCH_CITUS_SCHEMA, default procflow_bench), dropped and made
#                      again at the start of each run and dropped at the end (BENCH_KEEP=1
#                      keeps it), with the seeding functions' schema `bench`: the same way
#                      `make test-citus` isolates its tests (a Citus database cannot be cloned
#                      from a template). `procflow migrate` migrates and distributes it.
#   BENCH_CITUS_SHARDS shards per distributed table (citus.shard_count of the bench's sessions;
#                      default: the coordinator's own setting, Citus's default 32)
#   BENCH_CITUS_LOG    the coordinator's log file, if this machine can read it: the statements
#                      that ran on more than one shard are then named per scenario (the bench's
#                      sessions set citus.multi_task_query_log_level = log, which logs each
#                      such statement with its text)
#
# Every session of the bench (servers, psql, pgbench) connects with `search_path` set to the
# schema and `citus.enable_stat_counters` on; each wrk or pgbench run resets the database's
# counters (citus_stat_counters_reset) and records, after it, the statements Citus executed on
# one shard and on several (citus_stat_counters), in citus.tsv beside results.tsv. Results go
# to target/bench-citus/ (the plain run's target/bench/ is left as it is), and the report ends
# with the comparison of bench/compare.sh when a plain run's results are there.
#
# What differs from the plain run, and why: the database is the coordinator given (its
# durability and memory settings are the cluster's own); VACUUM ANALYZE names the bench's
# tables (Citus propagates a VACUUM to the shards only for tables it is given) and CHECKPOINT
# runs on every node; the scheduler rows are not run (bench/scheduler.sh times its tick from the
# server's own log, with ALTER SYSTEM, on the bench's private PostgreSQL).

citus_counters_begin() { :; }
citus_counters_end() { :; }
citus_report() { :; }

[ -n "${BENCH_CITUS_URL:-}" ] || return 0

CITUS_SCHEMA="${BENCH_CITUS_SCHEMA:-procflow_bench}"
CITUS_COUNTERS="$OUT/citus.tsv"        # key, single-shard, multi-shard
CITUS_STATEMENTS="$OUT/citus-multi.tsv"  # key, count, "team" or "no team", statement (160 characters)
CITUS_LOG_OFFSET=0

[[ "$CITUS_SCHEMA" =~ ^[a-z_][a-z0-9_]*$ ]] || die "BENCH_CITUS_SCHEMA must be a plain lower-case identifier"

# psql on the coordinator as given (no schema): for what the bench does outside its schema.
citus_admin() { "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$BENCH_CITUS_URL" "$@"; }

# The URL of the bench's sessions: the coordinator's, with options.
citus_url() {
  local separator='?' options
  case "$BENCH_CITUS_URL" in *\?*) separator='&' ;; esac
  options="$SESSION_OPTIONS -c search_path=$CITUS_SCHEMA -c citus.enable_stat_counters=on -c citus.multi_task_query_log_level=log"
  [ -n "${BENCH_CITUS_SHARDS:-}" ] && options="$options -c citus.shard_count=$BENCH_CITUS_SHARDS"
  options="${options// /%20}"
  printf '%s%soptions=%s' "$BENCH_CITUS_URL" "$separator" "${options//=/%3D}"
}

# Replaces run.sh's start_postgres: the coordinator given, the bench's schema made fresh.
start_postgres() {
  TMP="$(mktemp -d /tmp/procflow-bench.XXXXXX)"
  chmod 755 "$TMP"
  mkdir -p "$TMP/run"
  local version workers
  version=$(citus_admin -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'") ||
    die "cannot connect to BENCH_CITUS_URL"
  [ -n "$version" ] || die "BENCH_CITUS_URL is not a Citus coordinator: no citus extension in its database"
  workers=$(citus_admin -c "SELECT count(*) FROM citus_get_active_worker_nodes()")
  [ "$workers" -gt 0 ] || die "the coordinator has no active worker (citus_add_node)"
  say "  Citus $version on the coordinator, $workers workers: schema $CITUS_SCHEMA made fresh"
  citus_admin -c "DROP SCHEMA IF EXISTS $CITUS_SCHEMA CASCADE" -c "DROP SCHEMA IF EXISTS bench CASCADE" \
    -c "CREATE SCHEMA $CITUS_SCHEMA" >>"$LOG" 2>&1 || die "cannot make the schema $CITUS_SCHEMA fresh"
  DB_URL="$(citus_url)"
  PG_DB="$DB_URL"   # psql and pgbench take it for their database (run.sh: sql, floor)
  CITUS_VERSION=$version
  PG_PORT=""       # the URL names the port (psql and pgbench take the URL last)
  CITUS_WORKERS=$workers
  CITUS_SHARDS=$(sql -c "SHOW citus.shard_count")
  : >"$CITUS_COUNTERS"
  : >"$CITUS_STATEMENTS"
  if [ -n "${BENCH_CITUS_LOG:-}" ]; then
    [ -r "$BENCH_CITUS_LOG" ] || die "BENCH_CITUS_LOG=$BENCH_CITUS_LOG cannot be read"
  fi
}

# VACUUM ANALYZE and CHECKPOINT as the plain run means them: on every shard, on every node.
eval "plain_sql() $(declare -f sql | tail -n +2)"
sql() {
  if [ "$#" -eq 2 ] && [ "$1" = -c ]; then
    case "$2" in
      "VACUUM ANALYZE")
        plain_sql -c "VACUUM ANALYZE $(plain_sql -c "SELECT string_agg(quote_ident(relname), ', ')
          FROM pg_class WHERE relnamespace = '$CITUS_SCHEMA'::regnamespace AND relkind IN ('r', 'p')")"
        return ;;
      CHECKPOINT)
        plain_sql -c CHECKPOINT -c "SELECT run_command_on_workers('CHECKPOINT')" >/dev/null
        return ;;
    esac
  fi
  plain_sql "$@"
}

# The scheduler rows need the server's own PostgreSQL (see above).
scheduler_scenario() { say "scheduler rows: not run on Citus (bench/citus.sh)"; }
scheduler_report() {
  echo
  echo "Scheduler rows: not run on Citus (they time the scheduler's tick from the log of the bench's own PostgreSQL)."
}

citus_counters_begin() {
  sql -c "SELECT citus_stat_counters_reset()" >/dev/null
  if [ -n "${BENCH_CITUS_LOG:-}" ]; then CITUS_LOG_OFFSET=$(stat -c %s "$BENCH_CITUS_LOG"); fi
}

# citus_counters_end <key>: the counts since citus_counters_begin, and the statements logged
# as multi-shard meanwhile (first line of each, grouped).
citus_counters_end() {
  local counts
  counts=$(sql -F $'\t' -c "SELECT query_execution_single_shard, query_execution_multi_shard
    FROM citus_stat_counters WHERE name = current_database()")
  printf '%s\t%s\n' "$1" "$counts" >>"$CITUS_COUNTERS"
  say "  $1 on Citus: ${counts%%$'\t'*} single-shard, ${counts##*$'\t'} multi-shard statements"
  [ -n "${BENCH_CITUS_LOG:-}" ] || return 0
  tail -c +"$((CITUS_LOG_OFFSET + 1))" "$BENCH_CITUS_LOG" |
    awk '/LOG:  multi-task query about to be executed/ { want = 1; next }
         want && /STATEMENT:  / {
           sub(/.*STATEMENT:  /, ""); gsub(/[ \t]+/, " "); want = 0
           # A statement that binds its team (team_id = $n) is a request'"'"'s or a settle of one
           # team'"'"'s rows: Citus should have routed it to one shard. The others name no team.
           team = ($0 ~ /team_id"?\)? = \$[0-9]/) ? "team" : "no team"
           if ($0 ~ /^SELECT / && index($0, " FROM ") > 0) $0 = "SELECT … " substr($0, index($0, " FROM ") + 1)
           print team "\t" substr($0, 1, 160) }' |
    sort | uniq -c | sort -rn |
    awk -v k="$1" '{ n = $1; sub(/^ *[0-9]+ /, ""); printf "%s\t%s\t%s\n", k, n, $0 }' >>"$CITUS_STATEMENTS"
}

# Stops what the bench started, drops its schema (unless BENCH_KEEP=1), then run.sh's cleanup.
citus_exit() {
  local status=$?
  set +e
  for pid in "${PIDS[@]}"; do kill -INT "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
  done
  if [ -n "${DB_URL:-}" ] && [ "${BENCH_KEEP:-0}" != 1 ]; then
    citus_admin -c "DROP SCHEMA IF EXISTS $CITUS_SCHEMA CASCADE" -c "DROP SCHEMA IF EXISTS bench CASCADE" \
      >>"$LOG" 2>&1 || say "could not drop the schema $CITUS_SCHEMA"
  elif [ -n "${DB_URL:-}" ]; then
    say "kept the schema $CITUS_SCHEMA on the coordinator"
  fi
  (exit "$status")
  cleanup
}
trap citus_exit EXIT

# The end of the report: how the run was made, and beside the plain run's figures.
citus_report() {
  echo
  echo "### On Citus"
  echo
  echo "Citus $CITUS_VERSION, a coordinator and $CITUS_WORKERS workers (BENCH_CITUS_URL), $CITUS_SHARDS shards" \
    "per distributed table; the bench in the schema $CITUS_SCHEMA, migrated and distributed by \`procflow migrate\`."
  echo "Settings of each node: $(sql -c "SELECT string_agg(n.nodename || ':' || n.nodeport || ' ' || r.result, '; ' ORDER BY r.nodeid)
    FROM run_command_on_all_nodes(\$\$SELECT 'shared_buffers ' || current_setting('shared_buffers')
      || ', max_wal_size ' || current_setting('max_wal_size') || ', fsync ' || current_setting('fsync')
      || ', synchronous_commit ' || current_setting('synchronous_commit')\$\$) r
    JOIN pg_dist_node n USING (nodeid)")."
  echo "Statements by shard (citus_stat_counters, reset before each run; every statement the coordinator" \
    "routed during it, the server's worker included):"
  echo
  "$BENCH/compare.sh" "$OUT_DIR/bench/results.tsv" "$RESULTS" "$CITUS_COUNTERS" "$CITUS_STATEMENTS"
}
