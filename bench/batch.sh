# procflow bench: batch task updates beside single ones (API contract 11). Sourced by
# bench/run.sh, whose helpers (sql, load, result, say, die) and variables (TEAM, TPL50, TMP,
# BENCH_BASE_MS via BASE_MS, SECS) it uses.
#
# Completing every task of a 50-task run, two ways, on runs seeded for it (50 open tasks each):
#   singles: 50 PATCH /process-runs/:id/tasks/:task_id, one after the other, run by run
#            (complete_task.lua over a file ordered run by run);
#   batch:   one PATCH /process-runs/:id/tasks with the 50 tasks (batch_tasks.lua).
# At 1 connection, a closed loop: the mean time of a request is 1000 / req/s ms, so completing
# a run takes 50 x that with singles and 1 x that with a batch. Both complete the run (its last
# task closes it). At 4 connections: tasks completed per second.

BATCH_TASKS=50
BATCH_SINGLE_RUNS=800       # runs for the singles (x50 requests): a 10 s run uses ~100-250
BATCH_BATCH_RUNS=6000       # runs for the batches (1 request each)

batch_seed() {
  local singles_ms=$((BASE_MS + 7000000)) batches_ms=$((BASE_MS + 8000000))
  sql -c "SELECT bench.seed_runs('$TEAM', '$TPL50', 8, $BATCH_SINGLE_RUNS, $singles_ms, true),
                 bench.seed_runs('$TEAM', '$TPL50', 9, $BATCH_BATCH_RUNS, $batches_ms, true)" >>"$LOG"
  sql -c "ANALYZE run_tasks" >/dev/null
  # Singles: every task of run 0, then of run 1, ...: each run completed in order.
  sql -c "\\copy (SELECT bench.uuid($singles_ms + r, 8, 0) || ' ' || bench.uuid($singles_ms + r, 8, p + 1)
                 FROM generate_series(0, $BATCH_SINGLE_RUNS - 1) r, generate_series(0, $BATCH_TASKS - 1) p
                 ORDER BY r, p) TO '$TMP/batch-singles.txt'"
  # Batches: one line per run, its id then its 50 task ids.
  sql -c "\\copy (SELECT bench.uuid($batches_ms + r, 9, 0) || ' ' ||
                   string_agg(bench.uuid($batches_ms + r, 9, p + 1)::text, ' ' ORDER BY p)
                 FROM generate_series(0, $BATCH_BATCH_RUNS - 1) r, generate_series(0, $BATCH_TASKS - 1) p
                 GROUP BY r ORDER BY r) TO '$TMP/batch-runs.txt'"
}

batch_scenario() {
  say "beyond the spec: complete a 50-task run with 50 single PATCHes, and with one batch"
  batch_seed
  local singles=0 batches=0
  load batch.single.1 1 complete_task.lua "$TMP/keys-big.txt" "$TMP/batch-singles.txt" "$singles" 1; singles=$NEXT
  load batch.batch.1 1 batch_tasks.lua "$TMP/keys-big.txt" "$TMP/batch-runs.txt" "$batches" 1; batches=$NEXT
  # At 4 connections the singles take consecutive tasks of one run from 4 connections (2 wrk
  # threads): they queue on the run's lock, as concurrent clients of one run would.
  load batch.single.4 4 complete_task.lua "$TMP/keys-big.txt" "$TMP/batch-singles.txt" "$singles" 2; singles=$NEXT
  load batch.batch.4 4 batch_tasks.lua "$TMP/keys-big.txt" "$TMP/batch-runs.txt" "$batches" 2; batches=$NEXT
  [ "$singles" -le $((BATCH_SINGLE_RUNS * BATCH_TASKS)) ] && [ "$batches" -le "$BATCH_BATCH_RUNS" ] ||
    say "  WARNING: a batch pool wrapped around (singles $singles, batches $batches): repeats answered 409"
  local completed
  completed=$(sql -c "SELECT count(*) FROM runs WHERE team_id = '$TEAM' AND status = 'completed'
    AND id IN (SELECT bench.uuid($BASE_MS + 8000000 + r, 9, 0) FROM generate_series(0, $BATCH_BATCH_RUNS - 1) r)")
  say "  runs completed by batches: $completed"
  [ "$completed" -gt 0 ] || die "the batches completed no run"
  BATCH_SINGLE_MS=$(awk -v r="$(result batch.single.1 2)" -v n="$BATCH_TASKS" 'BEGIN { printf "%.1f", n * 1000 / r }')
  BATCH_BATCH_MS=$(awk -v r="$(result batch.batch.1 2)" 'BEGIN { printf "%.1f", 1000 / r }')
  BATCH_RATIO=$(awk -v s="$BATCH_SINGLE_MS" -v b="$BATCH_BATCH_MS" 'BEGIN { printf "%.1f", s / b }')
  say "  a 50-task run: $BATCH_SINGLE_MS ms with 50 single PATCHes, $BATCH_BATCH_MS ms with one batch ($BATCH_RATIO x)"
}

batch_report() {
  local c tasks
  echo
  echo "Batch task updates (API contract 11): completing every task of a 50-task run, with 50 single"
  echo "PATCHes one after the other or with one batch PATCH. At 1 connection (a closed loop) a request"
  echo "takes 1000 / req/s ms on average."
  echo
  echo "| Measure | Conns | Requests/s | p50 ms | p99 ms | Errors | Tasks completed/s |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for c in 1 4; do
    printf '| 50 single PATCHes per run | %s | %s | %s | %s | %s | %s |\n' "$c" \
      "$(result batch.single.$c 2)" "$(result batch.single.$c 3)" "$(result batch.single.$c 4)" \
      "$(result batch.single.$c 5)" "$(result batch.single.$c 2)"
    tasks=$(awk -v r="$(result batch.batch.$c 2)" -v n="$BATCH_TASKS" 'BEGIN { printf "%.0f", r * n }')
    printf '| 1 batch PATCH of 50 tasks per run | %s | %s | %s | %s | %s | %s |\n' "$c" \
      "$(result batch.batch.$c 2)" "$(result batch.batch.$c 3)" "$(result batch.batch.$c 4)" \
      "$(result batch.batch.$c 5)" "$tasks"
  done
  echo
  echo "Completing a 50-task run at 1 connection: **$BATCH_SINGLE_MS ms** with 50 single PATCHes," \
    "**$BATCH_BATCH_MS ms** with one batch: **${BATCH_RATIO}x** fewer milliseconds."
}
