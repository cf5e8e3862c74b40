# procflow bench: the scheduler rows (issue 21), sourced by bench/run.sh, whose helpers (sql,
# admin, field, free_port, say, die) and variables (TEAM, TPL50, BIN, DB_URL, TMP, PORT, PIDS,
# SECS) it uses. Run last: it stops the bench's servers, so that one instance alone schedules.
#
#   S1  SCHEDULES schedules (default 10,000) of the big team, all due at the same moment (the
#       start of a minute), each starting a run of the 50-task template: one `procflow worker`
#       (the real scheduler, PROCFLOW_SCHEDULER_INTERVAL=SCHEDULER_INTERVAL) starts them all.
#       Measured: the seconds from the due moment until every run exists (polled twice a
#       second), the largest and the median gap between a run's occurrence and its created_at.
#       Target: every run started within 60 s.
#   S0  Before them, the API's list of schedules: GET /api/v1/schedules?limit=20, the first page
#       of the team's SCHEDULE_PAGE_OF schedules (made through the API), beside its SQL floor
#       (bench/sql/list_schedules.sql) in alternating rounds at 4 and 16 connections, with its
#       transactions per request. Target: 0.8 of the floor, as every row with one.
#   S2  Then none of them is due (each next occurrence is a day later): the scheduler's tick
#       over SCHEDULES not-due schedules is one statement, the due read through the partial
#       index `schedules_due`. Its duration as PostgreSQL measures it (log_min_duration_statement
#       = 0 for SECS seconds; parse, bind and execute summed per tick). Target: under 10 ms.
#
# The schedules: one created through the API (its stored form is the service's), copied in SQL
# (bench.seed_schedules), all set to a daily recurrence starting at the due moment.

SCHEDULES="${BENCH_SCHEDULES:-10000}"
SCHEDULER_INTERVAL="${BENCH_SCHEDULER_INTERVAL:-1s}"
SCHEDULE_PAGE_OF=25  # S0's schedules

# drop_bench_endpoint: removes the webhook rows' endpoint, if they made one: after them, a
# delivery per run created would be work of the worker that the rows below do not measure.
drop_bench_endpoint() {
  [ -n "${WEBHOOK_ENDPOINT:-}" ] || return 0
  local status
  status=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE -H "Authorization: Bearer pf_live_bench_1_1" \
    "http://127.0.0.1:$PORT/api/v1/webhooks/$WEBHOOK_ENDPOINT")
  [ "$status" = 204 ] ||
    say "  WARNING: removing the webhook rows' endpoint answered $status: its deliveries weigh on the rows below"
  WEBHOOK_ENDPOINT=""
}

# bench_servers_stop: every `procflow serve` the bench started (their workers would schedule too).
bench_servers_stop() {
  local pid
  for pid in "${SERVE_PIDS[@]}"; do
    kill -INT "$pid" 2>/dev/null || continue
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
}

# schedule_body <name>: a schedule of the 50-task template, daily from a far date: none is due
# while the bench runs.
schedule_body() {
  printf '{"template_id": "%s", "name": "%s", "timezone": "UTC", "recurrence": "DTSTART:20991201T090000\\nRRULE:FREQ=DAILY", "run": {"name": "Scheduled run {date}"}}' \
    "$TPL50" "$1"
}

# S0: the first page of the team's schedules beside its floor (on the main server, before S1
# stops it). The team has no schedule before it.
schedules_list_scenario() {
  local key=pf_live_bench_1_1 n status items
  say "schedules S0: the first page of 20 of $SCHEDULE_PAGE_OF schedules"
  for ((n = 1; n <= SCHEDULE_PAGE_OF; n++)); do
    status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $key" \
      -H 'Content-Type: application/json' -d "$(schedule_body "Listed schedule $n")" \
      "http://127.0.0.1:$PORT/api/v1/schedules")
    [ "$status" = 201 ] || die "creating schedule $n of S0 answered $status"
  done
  items=$(curl -s -H "Authorization: Bearer $key" "http://127.0.0.1:$PORT/api/v1/schedules?limit=20" |
    grep -o '"recurrence":' | wc -l)
  [ "$items" = 20 ] || die "S0's page has $items schedules, not 20"
  local c
  for c in 4 16; do
    rounds 'load schedules.svc.$c $c get.lua "$TMP/keys-big.txt" "/api/v1/schedules?limit=20"' \
      'floor schedules.sql.$c $c list_schedules.sql'
  done
  xacts_count xact.schedules.svc load get.lua "$TMP/keys-big.txt" "/api/v1/schedules?limit=20"
  xacts_count xact.schedules.sql floor list_schedules.sql
  # S1's schedules are the team's only ones: these go before it seeds them.
  sql -c "DELETE FROM schedules WHERE team_id = '$TEAM'" >/dev/null
}

scheduler_scenario() {
  schedules_list_scenario
  say "scheduler S1: $SCHEDULES schedules due in the same minute, one procflow worker (interval $SCHEDULER_INTERVAL)"
  local key=pf_live_bench_1_1 model
  drop_bench_endpoint
  model=$(curl -s -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
    -d "$(schedule_body "Bench schedule")" "http://127.0.0.1:$PORT/api/v1/schedules")
  model=$(field id "$model")
  [ -n "$model" ] || die "cannot create the bench's schedule through the API"
  bench_servers_stop

  local due due_epoch
  # The start of a minute 20 to 80 s away: the worker has started by then.
  due=$(sql -c "SELECT to_char(date_trunc('minute', now() + interval '80 seconds') AT TIME ZONE 'UTC',
                 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')")
  [ "$(sql -c "SELECT bench.seed_schedules('$TEAM', '$model', $SCHEDULES, '$due')")" = "$SCHEDULES" ] ||
    die "the bench's schedules were not all made due at $due"
  sql -c "ANALYZE schedules" >/dev/null
  SCHED_RUNS_BEFORE=$(sql -c "SELECT count(*) FROM runs")

  local worker_port worker_pid
  worker_port="$(free_port)"
  env -u PROCFLOW_DB_POOL_SIZE DATABASE_URL="$DB_URL" PROCFLOW_BIND="127.0.0.1:$worker_port" \
    PROCFLOW_SCHEDULER_INTERVAL="$SCHEDULER_INTERVAL" PROCFLOW_WEBHOOK_ALLOW_PRIVATE=true \
    RUST_LOG=warn "$BIN" worker >"$TMP/scheduler-worker.log" 2>&1 &
  worker_pid=$!
  PIDS+=("$worker_pid")
  SIGINT_PIDS+=("$worker_pid")
  for _ in $(seq 100); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$worker_port/healthz")" = 200 ] && break
    kill -0 "$worker_pid" 2>/dev/null || { cat "$TMP/scheduler-worker.log" >&2; die "procflow worker stopped"; }
    sleep 0.1
  done
  due_epoch=$(date -d "$due" +%s)
  while [ "$(date +%s)" -lt "$due_epoch" ]; do sleep 0.2; done
  say "  due at $due; waiting for $SCHEDULES runs"

  # Up to 5 minutes, or 50 ms a schedule if that is longer: the target is 60 s, the wait
  # only says how far past it the worker got.
  local deadline=$((SCHEDULES / 20 > 300 ? SCHEDULES / 20 : 300)) started=0 now
  while :; do
    started=$(sql -c "SELECT count(*) FROM schedule_occurrences WHERE team_id = '$TEAM'")
    now=$(date +%s.%N)
    [ "$started" -ge "$SCHEDULES" ] && break
    awk -v a="$due_epoch" -v b="$now" -v d="$deadline" 'BEGIN { exit !(b - a > d) }' && break
    sleep 0.5
  done
  SCHED_STARTED=$started
  SCHED_ALL_AFTER=$(awk -v a="$due_epoch" -v b="$now" 'BEGIN { printf "%.1f", b - a }')
  [ "$started" -gt 0 ] || { tail -n 20 "$TMP/scheduler-worker.log" >&2; die "the scheduler started no run"; }
  local lags
  lags=$(sql -F ' ' -c "SELECT round(extract(epoch FROM max(r.created_at - o.occurrence_at))::numeric, 1),
      round(extract(epoch FROM percentile_cont(0.5) WITHIN GROUP (ORDER BY r.created_at - o.occurrence_at))::numeric, 1),
      round((count(*) / greatest(extract(epoch FROM max(r.created_at) - min(r.created_at)), 0.001))::numeric, 0)
    FROM schedule_occurrences o JOIN runs r ON r.team_id = o.team_id AND r.id = o.run_id
    WHERE o.team_id = '$TEAM'")
  read -r SCHED_MAX_LAG SCHED_P50_LAG SCHED_RATE <<<"$lags"
  SCHED_RUNS_TOTAL=$(sql -c "SELECT count(*) FROM runs")
  SCHED_FAILED=$(sql -c "SELECT count(*) FROM schedules WHERE team_id = '$TEAM' AND last_error IS NOT NULL")
  say "  $started of $SCHEDULES runs started, all $SCHED_ALL_AFTER s after the due time" \
    "(created_at - occurrence: max $SCHED_MAX_LAG s, median $SCHED_P50_LAG s; $SCHED_RATE runs/s); failures $SCHED_FAILED"

  say "scheduler S2: ticks over $SCHEDULES schedules none of which is due, for $SECS s"
  local not_due log="$TMP/run/postgres.log" offset
  not_due=$(sql -c "SELECT count(*) FROM schedules WHERE enabled AND next_run_at > now()")
  offset=$(stat -c %s "$log")
  sql -c "ALTER SYSTEM SET log_min_duration_statement = 0" -c "SELECT pg_reload_conf()" >/dev/null
  sleep "$SECS"
  sql -c "ALTER SYSTEM RESET log_min_duration_statement" -c "SELECT pg_reload_conf()" >/dev/null
  # Each tick's due read: its parse (when not cached), bind and execute lines, summed.
  local ticks
  ticks=$(tail -c +"$((offset + 1))" "$log" | grep -E 'duration: [0-9.]+ ms  (parse|bind|execute) [^:]*: SELECT .*FROM "schedules" WHERE .*"next_run_at" <=' |
    awk '{ match($0, /duration: [0-9.]+ ms/); d = substr($0, RSTART + 10, RLENGTH - 13); sum += d
           if ($0 ~ / execute /) { print sum; sum = 0 } }' | sort -n)
  SCHED_TICKS=$(grep -c . <<<"$ticks" || true)
  [ "$SCHED_TICKS" -gt 0 ] || die "no tick of the scheduler was logged in $SECS s"
  SCHED_TICK_P50=$(awk '{ v[NR] = $1 } END { i = int((NR + 1) / 2); printf "%.3f", v[i] }' <<<"$ticks")
  SCHED_TICK_MAX=$(tail -n 1 <<<"$ticks" | awk '{ printf "%.3f", $1 }')
  SCHED_NOT_DUE=$not_due
  SCHED_TICK_PLAN=$(sql -c "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT * FROM schedules
      WHERE enabled = true AND next_run_at IS NOT NULL AND next_run_at <= now()
      ORDER BY next_run_at, id LIMIT 100" |
    awk '/"Node Type": "[A-Za-z ]*Scan"/ && !n { split($0, p, "\""); n = p[4] }
         /"Index Name"/ && !i { split($0, p, "\""); i = " on " p[4] }
         /"Shared Hit Blocks"/ && !b { gsub(/,/, ""); b = $4 }
         END { printf "EXPLAIN: %s%s, %s buffers", n, i, b }')
  say "  $SCHED_TICKS ticks over $not_due not-due schedules: due read p50 $SCHED_TICK_P50 ms, max $SCHED_TICK_MAX ms ($SCHED_TICK_PLAN)"
  # Stopped before the rows after it start, not while they run.
  kill -INT "$worker_pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$worker_pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$worker_pid" 2>/dev/null || true
}

scheduler_report() {
  local c
  echo
  echo "Schedules' list (S0; bench/scheduler.sh): the first page of 20 of the team's $SCHEDULE_PAGE_OF schedules." \
    "Target: the service at least 0.8 of its floor, p99 under 50 ms at 16 connections."
  echo
  row_head
  for c in 4 16; do
    row "S0. List schedules, page of 20" $c schedules.svc.$c schedules.sql.$c
  done
  echo
  echo "Database transactions per request (as above): S0 $(xacts xact.schedules.svc) (floor $(xacts xact.schedules.sql))."
  echo
  echo "Scheduler (issue 21; bench/scheduler.sh), one \`procflow worker\` alone (PROCFLOW_SCHEDULER_INTERVAL=$SCHEDULER_INTERVAL)," \
    "on a database of $SCHED_RUNS_BEFORE runs:"
  echo
  echo "| Measure | Result | Target |"
  echo "|---|---|---|"
  echo "| $SCHEDULES schedules due in the same minute (50-task template): runs started | $SCHED_STARTED, the last $SCHED_ALL_AFTER s after the due time (run created_at − occurrence: max $SCHED_MAX_LAG s, median $SCHED_P50_LAG s; $SCHED_RATE runs/s); failed occurrences $SCHED_FAILED | all within 60 s |"
  echo "| A tick over $SCHED_NOT_DUE not-due schedules (the due read, PostgreSQL's log_min_duration_statement timings, $SCHED_TICKS ticks) | p50 $SCHED_TICK_P50 ms, max $SCHED_TICK_MAX ms ($SCHED_TICK_PLAN) | under 10 ms |"
}
