# procflow bench: the inbox and dry-run rows (issue 23), sourced by bench/run.sh, whose helpers
# (sql, load, floor, rounds, result, ratio, row, say, die) and variables (TEAM, SMALL_TEAM,
# BIG_ADMIN, SMALL_ADMIN, TPL50, SMALL_TPL, BASE_MS, BIG_RUNS, SMALL_RUNS, TMP, PORT) it uses.
#
#   I1  GET /api/v1/tasks?assignee=<a member's id>&limit=20: the first page of one assignee's
#       open tasks, on the team of SMALL_RUNS runs and on the team of BIG_RUNS runs, each beside
#       its SQL floor (bench/sql/inbox.sql: the admission and the service's page statement);
#       the two pages should cost the same (flat within noise) and the service at least 0.8 of
#       its floor. EXPLAIN (ANALYZE, BUFFERS) of the page on both teams goes in the report.
#   I2  POST /api/v1/process-runs?validate_only=true beside the real create, interleaved on
#       the same server: the dry run at least as fast as the real one.
#
# The tasks of the two teams' seeded runs are written here (bench.seed_inbox_tasks):
# INBOX_TASKS per run (default 5, not the issue's 50: see bench/README.md, "Inbox seeding").

INBOX_TASKS="${BENCH_INBOX_TASKS:-5}"

# inbox_explain <team> <assignee>: "<shared buffers> buffers, <ms> ms, <index>" of the page.
inbox_explain() {
  local plan
  plan=$(sql -c "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) $(inbox_statement "$1" "$2")")
  printf '%s buffers, %s ms, %s' \
    "$(sed -nE 's/.*"Shared Hit Blocks": ([0-9]+).*/\1/p' <<<"$plan" | head -n 1)" \
    "$(sed -nE 's/.*"Execution Time": ([0-9.]+).*/\1/p' <<<"$plan" | head -n 1)" \
    "$(grep -oE '"Index Name": "[a-z_]+"' <<<"$plan" | head -n 1 | cut -d'"' -f4)"
}

# The page statement of bench/sql/inbox.sql with its variables bound.
inbox_statement() {
  sed -n '/^-- page:begin/,/^-- page:end/p' "$BENCH/sql/inbox.sql" | grep -v '^--' |
    sed -e "s/:team/'$1'/g" -e "s/:assignee/'$2'/" -e "s/:hidden/false/" \
      -e "s/:task_state/'open'/" -e "s/:active/'active'/" -e "s/:page_limit/21/" -e 's/;$//'
}

inbox_scenario() {
  drop_bench_endpoint  # bench/scheduler.sh: the real creates below would feed it
  say "inbox: seeding $INBOX_TASKS tasks per run on the teams of $SMALL_RUNS and $BIG_RUNS runs"
  local t0 half=$((BIG_RUNS / 2)) pids=() pid
  t0=$(date +%s.%N)
  sql -c "SELECT bench.seed_inbox_tasks('$SMALL_TEAM', '$SMALL_TPL', 2, $SMALL_RUNS, $BASE_MS, $INBOX_TASKS, '$SMALL_ADMIN')" >>"$LOG" &
  pids+=($!)
  sql -c "SELECT bench.seed_inbox_tasks('$TEAM', '$TPL50', 1, $half, $BASE_MS, $INBOX_TASKS, '$BIG_ADMIN')" >>"$LOG" &
  pids+=($!)
  sql -c "SELECT bench.seed_inbox_tasks('$TEAM', '$TPL50', 1, $((BIG_RUNS - half)), $((BASE_MS + half)), $INBOX_TASKS, '$BIG_ADMIN')" >>"$LOG" &
  pids+=($!)
  PIDS+=("${pids[@]}")
  for pid in "${pids[@]}"; do wait "$pid" || die "seeding the inbox tasks failed (see ${LOG#"$ROOT"/})"; done
  # Millions of rows inserted: autovacuum would take run_tasks up within its first minute and
  # vacuum it, throttled, for minutes, through the service's loads and the floors' that follow
  # them (as the seeding's VACUUM in run.sh and the one before the files' rows prevent).
  sql -c "VACUUM ANALYZE run_tasks" >/dev/null
  sql -c "CHECKPOINT" >/dev/null
  INBOX_SEED=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  INBOX_BIG_TASKS=$(sql -c "SELECT count(*) FROM run_tasks WHERE team_id = '$TEAM' AND NOT hidden")
  INBOX_SMALL_TASKS=$(sql -c "SELECT count(*) FROM run_tasks WHERE team_id = '$SMALL_TEAM' AND NOT hidden")
  INBOX_DB_SIZE=$(sql -c "SELECT pg_size_pretty(pg_database_size(current_database()))")
  say "  seeded, vacuumed and checkpointed in $INBOX_SEED s: $INBOX_BIG_TASKS tasks in the big team, $INBOX_SMALL_TASKS in the small one; database $INBOX_DB_SIZE"

  # The floor must do the page's work: 21 rows on both teams, as the service reads them.
  local n rows
  for n in "$SMALL_TEAM $SMALL_ADMIN" "$TEAM $BIG_ADMIN"; do
    rows=$(sql -c "SELECT count(*) FROM ($(inbox_statement "${n% *}" "${n#* }")) p" 2>&1)
    [ "$rows" = 21 ] || die "the inbox floor statement reads $rows, not a page of 21 rows (team ${n% *})"
  done
  local items
  items=$(curl -s -H "Authorization: Bearer pf_live_bench_1_1" \
    "http://127.0.0.1:$PORT/api/v1/tasks?assignee=$BIG_ADMIN&limit=20" | grep -o '"run":{' | wc -l)
  [ "$items" = 20 ] || die "the inbox page of the big team has $items items, not 20"

  say "inbox I1: a page of 20 for one assignee, $SMALL_RUNS runs and $BIG_RUNS runs"
  local c
  # The four measures of each connection count in the same rounds (bench/run.sh, rounds()).
  for c in 4 16; do
    rounds 'load inbox10k.svc.$c $c get.lua "$TMP/keys-small.txt" "/api/v1/tasks?assignee=$SMALL_ADMIN&limit=20"' \
      'floor inbox10k.sql.$c $c inbox.sql -D team="$SMALL_TEAM" -D key_tag=2 -D assignee="$SMALL_ADMIN" -D task_state=open -D active=active' \
      'load inbox1m.svc.$c $c get.lua "$TMP/keys-big.txt" "/api/v1/tasks?assignee=$BIG_ADMIN&limit=20"' \
      'floor inbox1m.sql.$c $c inbox.sql -D assignee="$BIG_ADMIN" -D task_state=open -D active=active'
  done
  INBOX_PLAN_SMALL=$(inbox_explain "$SMALL_TEAM" "$SMALL_ADMIN")
  INBOX_PLAN_BIG=$(inbox_explain "$TEAM" "$BIG_ADMIN")

  say "dry runs I2: create a run, real and with validate_only=true, interleaved"
  # The dry runs write nothing: the team's runs are counted around each of their loads.
  local before
  DRY_WRITTEN=0
  for c in 4 16; do
    load dry.real.$c $c create_run.lua "$TMP/keys-big.txt" "$TMP/create-body.json"
    sleep 1  # requests of the real load still in flight when wrk stopped
    before=$(sql -c "SELECT count(*) FROM runs WHERE team_id = '$TEAM'")
    load dry.validate.$c $c create_run.lua "$TMP/keys-big.txt" "$TMP/create-body.json" \
      "/api/v1/process-runs?validate_only=true"
    DRY_WRITTEN=$((DRY_WRITTEN + $(sql -c "SELECT count(*) FROM runs WHERE team_id = '$TEAM'") - before))
  done
  [ "$DRY_WRITTEN" -eq 0 ] || die "the validate_only creates wrote $DRY_WRITTEN runs"
}

inbox_report() {
  local c
  echo
  echo "Inbox and dry runs (issue 23; bench/inbox.sh). The assignee's page, limit 20, of the team of" \
    "$SMALL_RUNS runs ($INBOX_SMALL_TASKS tasks, $INBOX_TASKS per run) and of the team of $BIG_TOTAL runs" \
    "($INBOX_BIG_TASKS tasks; $INBOX_TASKS per seeded run): one task in ten is the assignee's; seeded, vacuumed and checkpointed in $INBOX_SEED s (database then $INBOX_DB_SIZE)."
  echo
  row_head
  for c in 4 16; do
    row "Inbox: page of 20 for one assignee, $SMALL_RUNS runs" $c inbox10k.svc.$c inbox10k.sql.$c
    row "Inbox: page of 20 for one assignee, $BIG_TOTAL runs" $c inbox1m.svc.$c inbox1m.sql.$c
  done
  echo
  echo "Flat (big team / small team, service req/s; target: within noise, ±10 %):" \
    "$(ratio inbox1m.svc.4 inbox10k.svc.4) at 4 connections, $(ratio inbox1m.svc.16 inbox10k.svc.16) at 16." \
    "EXPLAIN (ANALYZE, BUFFERS) of the page: $INBOX_PLAN_SMALL ($SMALL_RUNS runs);" \
    "$INBOX_PLAN_BIG ($BIG_TOTAL runs)."
  echo
  echo "| Measure | Conns | Requests/s | p50 ms | p99 ms | Errors |"
  echo "|---|---:|---:|---:|---:|---:|"
  for c in 4 16; do
    printf '| Create a run (50 tasks × 3 fields, 5 pre-filled) | %s | %s | %s | %s | %s |\n' "$c" \
      "$(result dry.real.$c 2)" "$(result dry.real.$c 3)" "$(result dry.real.$c 4)" "$(result dry.real.$c 5)"
    printf '| The same with validate_only=true | %s | %s | %s | %s | %s |\n' "$c" \
      "$(result dry.validate.$c 2)" "$(result dry.validate.$c 3)" "$(result dry.validate.$c 4)" "$(result dry.validate.$c 5)"
  done
  echo
  echo "validate_only create / real create (target at least 1.0): $(ratio dry.validate.4 dry.real.4) at 4" \
    "connections, $(ratio dry.validate.16 dry.real.16) at 16; runs written by the validate_only" \
    "creates: $DRY_WRITTEN (counted around their loads)."
}
