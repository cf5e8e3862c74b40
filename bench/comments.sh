# procflow bench: the comment rows (issue 22's endpoints, with floors as issue 20 asks of this
# round's), sourced by bench/run.sh, whose helpers (sql, load, floor, rounds, row, say, die,
# xacts_count, xacts) and variables (TEAM, TPL50, BASE_MS, TMP, PORT) it uses.
#
#   C1  POST /api/v1/process-runs/:id/tasks/:task_id/comments {"text": ...}: a comment by the
#       API on an open task of a pool of COMMENT_RUNS runs of 50 tasks (none assigned, so no
#       email is raised), beside its SQL floor (bench/sql/comment.sql).
#   C2  GET the first page of 20 of one task's thread of 25 comments, beside its SQL floor
#       (bench/sql/list_comments.sql).
# Both at 4 and 16 connections, service and floor in alternating rounds; target 0.8 of the
# floor, p99 at 16 connections under 50 ms. Transactions per request of each, as for the
# scenarios of run.sh (bench/xacts.sh).

COMMENT_RUNS="${BENCH_COMMENT_RUNS:-200}"
COMMENT_THREAD=25  # comments on C2's task, written through the API before its rounds

comments_scenario() {
  drop_bench_endpoint  # bench/scheduler.sh: the comments' events would feed it
  # Pool 10 at BASE_MS + 9,000,000: run.sh's pools are 1-7 (up to + 6,000,000), batch.sh's 8
  # and 9 (+ 7,000,000 and + 8,000,000).
  local pool_ms=$((BASE_MS + 9000000)) pool_tag=10
  say "comments: seeding a pool of $COMMENT_RUNS runs of 50 tasks"
  sql -c "SELECT bench.seed_runs('$TEAM', '$TPL50', $pool_tag, $COMMENT_RUNS, $pool_ms, true)" >/dev/null
  sql -c "ANALYZE runs, run_tasks" >/dev/null
  sql -c "\\copy (SELECT run_id || ' ' || task_id FROM bench.task_order($pool_tag, $COMMENT_RUNS, 50, $pool_ms) ORDER BY k) TO '$TMP/tasks-comments.txt'"

  # C2's thread: the last task of the pool's last run, which C1's requests also reach (rarely).
  local run task path n status
  run=$(sql -c "SELECT bench.uuid($((pool_ms + COMMENT_RUNS - 1)), $pool_tag, 0)")
  task=$(sql -c "SELECT bench.uuid($((pool_ms + COMMENT_RUNS - 1)), $pool_tag, 50)")
  path="/api/v1/process-runs/$run/tasks/$task/comments"
  for ((n = 1; n <= COMMENT_THREAD; n++)); do
    status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer pf_live_bench_1_1" \
      -H 'Content-Type: application/json' -d "{\"text\":\"Comment $n of the thread.\"}" \
      "http://127.0.0.1:$PORT$path")
    [ "$status" = 201 ] || die "writing comment $n of C2's thread answered $status"
  done
  # The floor must read what the service reads: a page of 21 rows.
  local items
  items=$(curl -s -H "Authorization: Bearer pf_live_bench_1_1" "http://127.0.0.1:$PORT$path?limit=20" |
    grep -o '"task_id":' | wc -l)
  [ "$items" = 20 ] || die "C2's page has $items comments, not 20"

  say "comments C1: comment on a task; C2: a page of 20 of a thread of $COMMENT_THREAD"
  local c floor_vars=(-D pool_tag=$pool_tag -D pool_ms="$pool_ms" -D pool_runs="$COMMENT_RUNS" -D ctag=64)
  local by_service by_floor
  for c in 4 16; do
    rounds 'load comment.svc.$c $c comment.lua "$TMP/keys-big.txt" "$TMP/tasks-comments.txt" 2' \
      'floor comment.sql.$c $c comment.sql "${floor_vars[@]}"'
    rounds 'load comments.svc.$c $c get.lua "$TMP/keys-big.txt" "$path?limit=20"' \
      'floor comments.sql.$c $c list_comments.sql -D run="$run" -D task="$task"'
  done
  # The floor's statements write real rows: check both sides wrote comments (the floor's say
  # Monday where the service's say Friday).
  by_service=$(sql -c "SELECT count(*) FROM task_comments WHERE team_id = '$TEAM' AND body LIKE '%Friday.'")
  by_floor=$(sql -c "SELECT count(*) FROM task_comments WHERE team_id = '$TEAM' AND body LIKE '%Monday.'")
  say "  comments written: $by_service by the service, $by_floor by the floor"
  [ "$by_service" -gt 0 ] && [ "$by_floor" -gt 0 ] || die "C1 wrote no comment through the service or through the floor"
  xacts_count xact.comment.svc load comment.lua "$TMP/keys-big.txt" "$TMP/tasks-comments.txt" 1
  xacts_count xact.comment.sql floor comment.sql "${floor_vars[@]}"
  xacts_count xact.comments.svc load get.lua "$TMP/keys-big.txt" "$path?limit=20"
  xacts_count xact.comments.sql floor list_comments.sql -D run="$run" -D task="$task"
}

comments_report() {
  local c
  echo
  echo "Comments (bench/comments.sh): C1 a comment by the API on an open, unassigned task of a pool of" \
    "$COMMENT_RUNS runs of 50 tasks; C2 the first page of 20 of a thread of $COMMENT_THREAD. Target: the" \
    "service at least 0.8 of its floor, p99 under 50 ms at 16 connections."
  echo
  row_head
  for c in 4 16; do
    row "C1. Comment on a task" $c comment.svc.$c comment.sql.$c
  done
  for c in 4 16; do
    row "C2. A task's comments, page of 20" $c comments.svc.$c comments.sql.$c
  done
  echo
  echo "Database transactions per request (as above): C1 $(xacts xact.comment.svc) (floor" \
    "$(xacts xact.comment.sql)), C2 $(xacts xact.comments.svc) (floor $(xacts xact.comments.sql))."
}
