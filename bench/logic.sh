# procflow bench: process logic (issue 19), sourced by bench/run.sh, whose helpers (sql, load,
# result, ratio, admin, field, say, die) and variables (TEAM, TPL50, TMP, PORT, BENCH) it uses.
#
# A PATCH that changes one form value, on a 50-task run with 20 rules and 20 dependencies
# (bench/gen-template.sh 50 "" logic; the value is one a rule reads), beside the same PATCH on
# a run of the 50-task template without logic: same shape of run, same server, same connections,
# interleaved, each figure the better of two runs. Then the worst case, each PATCH also turning
# the visibility of the task the rule shows (one more task row written), and the same PATCH on
# runs with logic of 5 and of 500 tasks: its cost should not depend on the number of tasks.
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
  # Interleaved, so that neither side has the warmer server, and twice: each figure is the
  # better of its two runs (the machine is shared; other work only slows a run down).
  local c mode round tag
  local -A next=([plain]=0 [l50]=0)
  for mode in steady turn; do
    for c in 4 16; do
      [ "$mode" = turn ] && [ "$c" = 16 ] && continue
      for round in 1 2; do
        for tag in plain l50; do
          load "logic.$tag.$mode.$c.$round" "$c" patch_value.lua "$TMP/keys-big.txt" \
            "$TMP/logic-$tag.txt" "${next[$tag]}" 2 "$mode"
          next[$tag]=$NEXT
        done
      done
      for tag in plain l50; do logic_best "logic.$tag.$mode.$c"; done
    done
  done
  for tag in l5 l500; do
    for round in 1 2; do
      load "logic.$tag.steady.4.$round" 4 patch_value.lua "$TMP/keys-big.txt" "$TMP/logic-$tag.txt" 0 2 steady
    done
    logic_best "logic.$tag.steady.4"
  done
  # The PATCHes did turn tasks: the rule's task of a pool run is shown after a "vip" value and
  # hidden after a "regular" one, and every task's flags are the ones the run's last change
  # stored (the HTTP and conformance tests check them against the domain).
  local hidden_after turned
  hidden_after=$(sql -c "SELECT count(*) FROM run_tasks WHERE team_id = '$TEAM' AND hidden")
  turned=$(sql -c "SELECT count(*) FROM runs WHERE team_id = '$TEAM' AND logic IS NOT NULL
    AND logic_state::text LIKE '%vip%'")
  say "  hidden tasks of the team: $hidden_before before, $hidden_after after; runs holding a vip value: $turned"
  [ "$turned" -gt 0 ] || die "no PATCH reached a rule's value"
  LOGIC_RATIO_4=$(ratio logic.l50.steady.4 logic.plain.steady.4)
  LOGIC_RATIO_16=$(ratio logic.l50.steady.16 logic.plain.steady.16)
  LOGIC_RATIO_TURN=$(ratio logic.l50.turn.4 logic.plain.turn.4)
  say "  with logic / without: $LOGIC_RATIO_4 at 4 connections, $LOGIC_RATIO_16 at 16 (target at least 0.9);" \
    "$LOGIC_RATIO_TURN when each PATCH also turns a task's visibility"
}

# logic_best <key>: records <key> as the better (more requests/s) of <key>.1 and <key>.2.
logic_best() {
  local best=1
  awk -v a="$(result "$1.1" 2)" -v b="$(result "$1.2" 2)" 'BEGIN { exit !(b > a) }' && best=2
  record "$1" "$(result "$1.$best" 2)" "$(result "$1.$best" 3)" "$(result "$1.$best" 4)" \
    "$(( $(result "$1.1" 5) + $(result "$1.2" 5) ))"
}

logic_report() {
  local key label
  echo
  echo "Process logic (issue 19): a PATCH of one form value that a rule reads, on 50-task runs with 20"
  echo "rules and 20 dependencies, beside the same PATCH on 50-task runs without logic; the same when"
  echo "each PATCH also turns the visibility of the task the rule shows (one more row written); and"
  echo "on runs with logic of 5 and 500 tasks. $LOGIC_RUNS runs per pool, created through the API,"
  echo "round-robin; each figure the better of two interleaved runs."
  echo
  echo "| Measure | Conns | Requests/s | p50 ms | p99 ms | Errors |"
  echo "|---|---:|---:|---:|---:|---:|"
  for key in plain.steady.4 l50.steady.4 plain.steady.16 l50.steady.16 plain.turn.4 l50.turn.4 \
             l5.steady.4 l500.steady.4; do
    case "$key" in
      plain.steady.*) label="PATCH a value, 50 tasks, no logic" ;;
      l50.steady.*) label="PATCH a value a rule reads, 50 tasks, 20 rules + 20 dependencies" ;;
      plain.turn.*) label="PATCH a value, 50 tasks, no logic (as below)" ;;
      l50.turn.*) label="PATCH a value that turns a task's visibility, 50 tasks with logic" ;;
      l5.*) label="PATCH a value a rule reads, 5 tasks with logic" ;;
      l500.*) label="PATCH a value a rule reads, 500 tasks with logic" ;;
    esac
    printf '| %s | %s | %s | %s | %s | %s |\n' "$label" "${key##*.}" "$(result "logic.$key" 2)" \
      "$(result "logic.$key" 3)" "$(result "logic.$key" 4)" "$(result "logic.$key" 5)"
  done
  echo
  echo "With logic against without (target at least 0.9): **$LOGIC_RATIO_4** at 4 connections," \
    "**$LOGIC_RATIO_16** at 16; **$LOGIC_RATIO_TURN** when every PATCH also turns a task. With logic," \
    "5 → 50 → 500 tasks at 4 connections: $(result logic.l5.steady.4 2) → $(result logic.l50.steady.4 2)" \
    "→ $(result logic.l500.steady.4 2) req/s."
}
