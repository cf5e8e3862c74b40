# procflow bench: process logic (issue 19), sourced by bench/run.sh, whose helpers (sql, load,
# result, ratio, admin, field, say, die) and variables (TEAM, TPL50, TMP, PORT, BENCH) it uses.
#
# A PATCH that changes one form value, on a 50-task run with 20 rules and 20 dependencies
# (bench/gen-template.sh 50 5 logic; the value is one a rule reads, and each request turns the
# visibility of the task that rule shows), beside the same PATCH on a run of the 50-task
# template without logic: same shape of run, same server, same connections, back to back. Then
# the same PATCH on runs with logic of 5 and of 500 tasks: its cost should not depend on the
# number of tasks.
#
# The runs are created through the API (the logic's plan is the service's to make), LOGIC_RUNS
# of each template; each wrk request takes the next run of its pool, round-robin.

LOGIC_RUNS="${BENCH_LOGIC_RUNS:-100}"

# logic_pool <tag> <template id>: creates LOGIC_RUNS runs of the template and writes the pool
# file $TMP/logic-<tag>.txt, "<run> <first task> <its Name element>" per run.
logic_pool() {
  local tag="$1" template="$2" ids=() i out
  for ((i = 0; i < LOGIC_RUNS; i++)); do
    out=$(curl -s -H "Authorization: Bearer pf_live_bench_1_$((i % NKEYS + 1))" \
      -H 'Content-Type: application/json' -d "{\"template_id\":\"$template\"}" \
      "http://127.0.0.1:$PORT/api/v1/process-runs")
    ids+=("$(field id "$out")")
    [ -n "${ids[-1]}" ] || die "creating a run of $template answered $out"
  done
  local list
  list=$(IFS=,; printf '%s' "${ids[*]}")
  sql -c "\\copy (SELECT t.run_id || ' ' || t.id || ' ' || (t.custom_elements->0->>'id')
                  FROM run_tasks t WHERE t.team_id = '$TEAM' AND t.run_id = ANY('{$list}')
                  AND t.position = 0 ORDER BY t.run_id) TO '$TMP/logic-$tag.txt'"
  [ "$(wc -l <"$TMP/logic-$tag.txt")" -eq "$LOGIC_RUNS" ] || die "the $tag pool is incomplete"
}

logic_scenario() {
  say "process logic: a PATCH of a value on runs with 20 rules and 20 dependencies, and without"
  local n
  for n in 5 50 500; do
    "$BENCH/gen-template.sh" "$n" "" logic >"$TMP/template-logic-$n.json"
    declare -g "TPL_LOGIC_$n=$(field template_id "$(admin import-template --team "$TEAM" \
      "$TMP/template-logic-$n.json" --publish)")"
  done
  logic_pool plain "$TPL50"
  logic_pool l5 "$TPL_LOGIC_5"
  logic_pool l50 "$TPL_LOGIC_50"
  logic_pool l500 "$TPL_LOGIC_500"
  sql -c "ANALYZE run_tasks" >/dev/null
  local hidden_before
  hidden_before=$(sql -c "SELECT count(*) FROM run_tasks WHERE team_id = '$TEAM' AND hidden")
  # Interleaved, so that neither side has the warmer server: plain, logic, plain, logic.
  local next_plain=0 next_l50=0 c
  for c in 4 16; do
    load logic.plain.$c "$c" patch_value.lua "$TMP/keys-big.txt" "$TMP/logic-plain.txt" "$next_plain" 2
    next_plain=$NEXT
    load logic.l50.$c "$c" patch_value.lua "$TMP/keys-big.txt" "$TMP/logic-l50.txt" "$next_l50" 2
    next_l50=$NEXT
  done
  load logic.l5.4 4 patch_value.lua "$TMP/keys-big.txt" "$TMP/logic-l5.txt" 0 2
  load logic.l500.4 4 patch_value.lua "$TMP/keys-big.txt" "$TMP/logic-l500.txt" 0 2
  # The PATCHes did turn tasks: the rule's task of a pool run is shown after a "vip" value and
  # hidden after a "regular" one, and every task's flags are the ones the run's last change
  # stored (the HTTP and conformance tests check them against the domain).
  local hidden_after turned
  hidden_after=$(sql -c "SELECT count(*) FROM run_tasks WHERE team_id = '$TEAM' AND hidden")
  turned=$(sql -c "SELECT count(*) FROM runs WHERE team_id = '$TEAM' AND logic IS NOT NULL
    AND logic_state::text LIKE '%vip%'")
  say "  hidden tasks of the team: $hidden_before before, $hidden_after after; runs holding a vip value: $turned"
  [ "$turned" -gt 0 ] || die "no PATCH reached a rule's value"
  LOGIC_RATIO_4=$(ratio logic.l50.4 logic.plain.4)
  LOGIC_RATIO_16=$(ratio logic.l50.16 logic.plain.16)
  say "  with logic / without: $LOGIC_RATIO_4 at 4 connections, $LOGIC_RATIO_16 at 16 (target at least 0.9)"
}

logic_report() {
  local c
  echo
  echo "Process logic (issue 19): a PATCH of one form value that a rule reads, each request turning the"
  echo "visibility of the task the rule shows, on 50-task runs with 20 rules and 20 dependencies, beside"
  echo "the same PATCH on 50-task runs without logic; then on runs with logic of 5 and 500 tasks."
  echo "$LOGIC_RUNS runs per pool, created through the API, round-robin."
  echo
  echo "| Measure | Conns | Requests/s | p50 ms | p99 ms | Errors |"
  echo "|---|---:|---:|---:|---:|---:|"
  for c in 4 16; do
    printf '| PATCH a value, 50 tasks, no logic | %s | %s | %s | %s | %s |\n' "$c" \
      "$(result logic.plain.$c 2)" "$(result logic.plain.$c 3)" "$(result logic.plain.$c 4)" "$(result logic.plain.$c 5)"
    printf '| PATCH a value, 50 tasks, 20 rules + 20 dependencies | %s | %s | %s | %s | %s |\n' "$c" \
      "$(result logic.l50.$c 2)" "$(result logic.l50.$c 3)" "$(result logic.l50.$c 4)" "$(result logic.l50.$c 5)"
  done
  for n in 5 500; do
    printf '| PATCH a value, %s tasks with logic | 4 | %s | %s | %s | %s |\n' "$n" \
      "$(result logic.l$n.4 2)" "$(result logic.l$n.4 3)" "$(result logic.l$n.4 4)" "$(result logic.l$n.4 5)"
  done
  echo
  echo "With logic against without (target at least 0.9): **$LOGIC_RATIO_4** at 4 connections," \
    "**$LOGIC_RATIO_16** at 16. With logic, 5 → 50 → 500 tasks at 4 connections:" \
    "$(result logic.l5.4 2) → $(result logic.l50.4 2) → $(result logic.l500.4 2) req/s."
}
