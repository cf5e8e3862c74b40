# procflow bench: database transactions per request of each scenario with a SQL floor, and of
# its floor (issue "At the floor"); etag.sh counts its GETs with the same functions. Sourced by
# bench/run.sh, whose helpers (sql, load, floor, say, die) and variables (SECS, LOG, OUT) it
# uses.
#
# PostgreSQL's own count (pg_stat_database: xact_commit + xact_rollback) over a short
# 1-connection run of the scenario (BENCH_XACT_SECS, default 3 s), divided by the requests the
# run made (wrk) or the script runs pgbench made. Everything the database did meanwhile counts:
# the worker's claims and settles of the events the requests raised (what a write really costs
# the database), and the little it does on its own clock (the scheduler's and sweeps' ticks,
# a few in each count).

XACT_SECS="${BENCH_XACT_SECS:-3}"

# The database's transactions so far, as PostgreSQL counts them (the reading is one).
xacts_now() {
  sql -c "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"
}

# The same, once every backend has published its own: a backend publishes its counts when it
# goes idle, at most 10 s late.
xacts_settled() {
  sleep 11
  xacts_now
}

# xacts_per_request load|floor <seconds> <key> <script> <args...>: runs `load` (the service,
# through wrk) or `floor` (pgbench) with 1 connection for <seconds> between two settled
# readings. Sets PER_REQUEST (transactions per request), REQUESTS, and NEXT as the runner does.
xacts_per_request() {
  local runner="$1" secs="$2" key="$3" script="$4" before after saved=$SECS
  shift 4
  before=$(xacts_settled)
  SECS=$secs
  "$runner" "$key" 1 "$script" "$@"
  SECS=$saved
  if [ "$runner" = load ]; then
    REQUESTS=$(grep '^BENCH ' "$LOG" | tail -n 1 | sed -E 's/.* requests=([0-9]+).*/\1/')
  else
    REQUESTS=$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$LOG" | tail -n 1)
  fi
  after=$(xacts_settled)
  [ "${REQUESTS:-0}" -gt 0 ] || die "$key made no request"
  # The reading of `before` is one transaction of its own.
  PER_REQUEST=$(awk -v a="$after" -v b="$before" -v n="$REQUESTS" 'BEGIN { printf "%.2f", (a - b - 1) / n }')
}

# xacts_count <key> load|floor <script> <args...>: xacts_per_request for XACT_SECS, recorded
# under <key> for the report. Sets NEXT as the runner does.
xacts_count() {
  local key="$1" runner="$2"
  shift 2
  xacts_per_request "$runner" "$XACT_SECS" "$key" "$@"
  printf '%s\t%s\t%s\n' "$key" "$PER_REQUEST" "$REQUESTS" >>"$OUT/xacts.tsv"
  say "  $key: $PER_REQUEST database transactions per request (over $REQUESTS)"
}

# xacts <key> [column]: the transactions per request recorded under <key> (2), or the requests
# counted (3); "–" when not measured.
xacts() {
  awk -F'\t' -v k="$1" -v c="${2:-2}" '$1 == k { v = $c } END { print (v == "" ? "–" : v) }' "$OUT/xacts.tsv" 2>/dev/null
}

xacts_report() {
  echo
  echo "Database transactions per request (PostgreSQL's pg_stat_database over a ${XACT_SECS} s run at 1" \
    "connection; the service's count includes what its worker did for the events the requests raised):"
  echo
  echo "| Scenario | Service | Requests counted | SQL floor | Script runs counted |"
  echo "|---|---:|---:|---:|---:|"
  local label key
  for label in "1. Create a run:create" "2. Complete a task:complete" "3. List a run's tasks:tasks" \
    "4. List runs:list" "5. Get one run:get"; do
    key=${label##*:}
    printf '| %s | %s | %s | %s | %s |\n' "${label%:*}" "$(xacts "xact.$key.svc")" \
      "$(xacts "xact.$key.svc" 3)" "$(xacts "xact.$key.sql")" "$(xacts "xact.$key.sql" 3)"
  done
}
