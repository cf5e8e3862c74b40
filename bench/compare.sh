#!/usr/bin/env bash
# Each bench row on Citus beside the same row on one PostgreSQL (issue 25; docs/scaling.md,
# "Performance on Citus"): prints a Markdown table.
#
#   bench/compare.sh [plain results.tsv] [citus results.tsv] [citus.tsv] [citus-multi.tsv]
#
# Defaults: the last plain run's target/bench/results.tsv and the last Citus run's files in
# target/bench-citus/ (`make bench`, then `make bench BENCH_CITUS_URL=...`; CARGO_TARGET_DIR is
# honoured). results.tsv: key, req/s (tx/s for the pgbench floor rows, `.sql.`), p50, p99,
# errors. citus.tsv: key, single-shard and multi-shard statements Citus executed during that
# row (citus_stat_counters). citus-multi.tsv: key, count, "team" or "no team", statement (160
# characters, a SELECT's list cut), the statements the coordinator logged as multi-shard
# (BENCH_CITUS_LOG); "team": it binds its team (team_id = $n), so Citus should have routed it
# to one shard (a request's statement); "no team": a cross-team statement of the worker, by
# design (docs/scaling.md).
#
# Single-shard share: of the row's statements, leaving out the multi-shard ones that name no
# team (the server's worker polls and claims during every row): single / (single + multi-shard
# naming a team). 100 % when no statement that names its team ran on several shards. Without
# the log it is single / (single + multi), the worker's statements included.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
case "$OUT_DIR" in /*) ;; *) OUT_DIR="$ROOT/$OUT_DIR" ;; esac
PLAIN="${1:-$OUT_DIR/bench/results.tsv}"
CITUS="${2:-$OUT_DIR/bench-citus/results.tsv}"
COUNTERS="${3:-$OUT_DIR/bench-citus/citus.tsv}"
MULTI="${4:-$OUT_DIR/bench-citus/citus-multi.tsv}"

[ -s "$CITUS" ] || { echo "compare: no Citus results at $CITUS (make bench BENCH_CITUS_URL=...)" >&2; exit 1; }
if [ ! -s "$PLAIN" ]; then
  echo "(No plain run's results at ${PLAIN#"$ROOT"/}: run \`make bench\` for the column of one PostgreSQL.)"
  echo
  PLAIN=/dev/null
fi
[ -f "$COUNTERS" ] || COUNTERS=/dev/null
[ -f "$MULTI" ] || MULTI=/dev/null

echo "| Row | Conns | One PostgreSQL req/s | Citus req/s | Citus / one | Single-shard | Multi-shard | … naming a team | Single-shard share | Most frequent multi-shard statement |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
awk -F'\t' '
  function label(k,   p, name) {
    p = k; sub(/\.(svc|sql)\.[0-9]+$/, "", p)
    name = (p in names) ? names[p] : p
    return name (k ~ /\.sql\./ ? " (SQL floor, tx/s)" : "")
  }
  BEGIN {
    names["create"] = "1. Create a run, fresh database"; names["create100k"] = "1. Create a run, after the growth runs"
    names["complete"] = "2. Complete a task"; names["tasks"] = "3. List a run'"'"'s tasks"
    names["guest"] = "3g. Guest page"; names["list"] = "4. List runs, big team"
    names["list10k"] = "4. List runs, small team"; names["get"] = "5. Get one run"
    names["limited"] = "6. Over the rate limit"; names["update5"] = "Complete a task, 5-task run"
    names["update500"] = "Complete a task, 500-task run"
  }
  FILENAME == ARGV[1] { plain[$1] = $2; next }
  FILENAME == ARGV[2] { single[$1] += $2; multi[$1] += $3; next }  # a row in rounds: one line a round
  FILENAME == ARGV[3] {
    logged = 1; if ($3 == "team") named[$1] += $2
    if (!($1 in top)) { s = $4; gsub(/\|/, "\\|", s); top[$1] = $2 " × `" substr(s, 1, 70) "`" }
    next
  }
  $1 == "warmup" { next }
  {
    k = $1; conns = k; sub(/.*\./, "", conns); if (conns !~ /^[0-9]+$/) conns = ""
    one = (k in plain) ? plain[k] : "–"
    ratio = (k in plain && plain[k] > 0) ? sprintf("%.2f", $2 / plain[k]) : "–"
    s = (k in single) ? single[k] : "–"; m = (k in multi) ? multi[k] : "–"
    t = logged ? named[k] + 0 : "–"
    bad = logged ? named[k] + 0 : multi[k]
    share = (k in single && single[k] + bad > 0) ? sprintf("%.1f %%", 100 * single[k] / (single[k] + bad)) : "–"
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", label(k), conns, one, $2, ratio, s, m, t, share, (k in top) ? top[k] : ""
  }
' "$PLAIN" "$COUNTERS" "$MULTI" "$CITUS"

if [ -s "$MULTI" ]; then
  echo
  echo "Multi-shard statements over the whole Citus run (coordinator log), with how many times, in how many rows, and whether they name a team:"
  echo
  echo "| Times | Rows | Names a team | Statement |"
  echo "|---:|---:|---|---|"
  awk -F'\t' '{ n[$4] += $2; rows[$4]++; team[$4] = $3 } END { for (s in n) { t = s; gsub(/\|/, "\\|", t); printf "%d\t| %d | %d | %s | `%s` |\n", n[s], n[s], rows[s], team[s] == "team" ? "**yes**" : "no", t } }' "$MULTI" |
    sort -t$'\t' -k1,1nr | cut -f2-
fi
