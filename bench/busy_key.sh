# procflow bench: one busy API key beside the same load spread over 40 keys (issue 29, point 2).
# Sourced by bench/run.sh, whose helpers (sql, load, result, say, die, admin, field, start_server,
# start_postgres, build, ensure_tools, free_port) and variables (TEAM, TMP, SECS, RATE_LIMIT) it
# uses.
#
# GET /api/v1/process-templates?limit=1 (a light read: the admission is most of its cost) from
# 8 connections (the integration of the issue), with the limit raised
# (PROCFLOW_RATE_LIMIT_PER_MINUTE), once with 40 keys round-robin and once with one key, for
# SECS each. With one counter per second per key, the one key should get at least 0.7 of the
# 40 keys' throughput; with the timestamp array of before it got a fraction of it, its cost
# growing with its own traffic.
#
# On its own, without seeding a million runs: BENCH_ONLY=busy-key bench/run.sh (about a minute
# after the release build), report in target/bench/busy-key.md.

BUSY_KEY_CONNS=8
BUSY_KEY_SPREAD=40
BUSY_KEY_PATH="/api/v1/process-templates?limit=1"

busy_key_scenario() {
  say "beyond the spec: one key with a raised limit, and the same load over $BUSY_KEY_SPREAD keys"
  head -n "$BUSY_KEY_SPREAD" "$TMP/keys-big.txt" >"$TMP/keys-spread.txt"
  head -n 1 "$TMP/keys-big.txt" >"$TMP/keys-busy.txt"
  [ "$(wc -l <"$TMP/keys-spread.txt")" -eq "$BUSY_KEY_SPREAD" ] || die "fewer than $BUSY_KEY_SPREAD keys"
  # The busy key goes last, and after a first run of it, so each measured run has a warm
  # server and the busy key's window already holds a run's worth of requests.
  local secs_save=$SECS
  SECS=2; load busykey.warmup "$BUSY_KEY_CONNS" get.lua "$TMP/keys-busy.txt" "$BUSY_KEY_PATH"; SECS=$secs_save
  load busykey.spread "$BUSY_KEY_CONNS" get.lua "$TMP/keys-spread.txt" "$BUSY_KEY_PATH"
  load busykey.one "$BUSY_KEY_CONNS" get.lua "$TMP/keys-busy.txt" "$BUSY_KEY_PATH"
  BUSY_KEY_RATIO=$(ratio busykey.one busykey.spread)
  BUSY_KEY_COUNTED=$(sql -c "SELECT sum(c) FROM rate_limits, unnest(counts) AS c WHERE api_key_id =
    (SELECT id FROM api_keys WHERE key_hash = sha256(convert_to('$(cat "$TMP/keys-busy.txt")', 'UTF8')))")
}

busy_key_report() {
  echo
  echo "One busy key (issue 29): GET $BUSY_KEY_PATH from $BUSY_KEY_CONNS connections, the limit raised to" \
    "$RATE_LIMIT a minute; requests round-robin over $BUSY_KEY_SPREAD keys, then all with one key."
  echo
  echo "| Keys | Conns | Requests/s | p50 ms | p99 ms | Errors |"
  echo "|---|---:|---:|---:|---:|---:|"
  printf '| %s keys | %s | %s | %s | %s | %s |\n' "$BUSY_KEY_SPREAD" "$BUSY_KEY_CONNS" \
    "$(result busykey.spread 2)" "$(result busykey.spread 3)" "$(result busykey.spread 4)" "$(result busykey.spread 5)"
  printf '| 1 key | %s | %s | %s | %s | %s |\n' "$BUSY_KEY_CONNS" \
    "$(result busykey.one 2)" "$(result busykey.one 3)" "$(result busykey.one 4)" "$(result busykey.one 5)"
  echo
  echo "One key against $BUSY_KEY_SPREAD keys: **$BUSY_KEY_RATIO** (target at least 0.7). The busy key's" \
    "row held $BUSY_KEY_COUNTED requests of its last minute, in 60 counters."
}

# BENCH_ONLY=busy-key: this scenario alone, on a database with nothing but a team, a template
# and the keys.
busy_key_main() {
  ensure_tools
  build
  : >"$RESULTS"
  say "starting PostgreSQL $("$PG_BIN/postgres" --version | awk '{ print $3 }') (fsync on, synchronous_commit on)"
  start_postgres
  DATABASE_URL="$DB_URL" RUST_LOG=warn "$BIN" migrate >>"$LOG" || die "migrate failed"
  local out admin_id n
  out="$(admin create-team --name "Bench big" --base-url http://127.0.0.1:1 \
    --admin-email admin@big.bench --admin-name Admin)"
  TEAM="$(field team_id "$out")"; admin_id="$(field admin_user_id "$out")"
  "$BENCH/gen-template.sh" 5 >"$TMP/template-5.json"
  admin import-template --team "$TEAM" "$TMP/template-5.json" --publish >/dev/null
  sql -f "$BENCH/seed.sql" >>"$LOG"
  sql -c "SELECT bench.make_keys('$TEAM', '$admin_id', 1, $BUSY_KEY_SPREAD)" >/dev/null
  for ((n = 1; n <= BUSY_KEY_SPREAD; n++)); do echo "pf_live_bench_1_$n"; done >"$TMP/keys-big.txt"
  PORT="$(free_port)"
  say "starting procflow serve on 127.0.0.1:$PORT (PROCFLOW_RATE_LIMIT_PER_MINUTE=$RATE_LIMIT; $(server_tuning))"
  start_server "$PORT" "$RATE_LIMIT" server
  busy_key_scenario
  REPORT="$OUT/busy-key.md"
  {
    echo "## procflow bench, one busy key only, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    echo "Machine: $(nproc) cores, load average at the end $(cut -d' ' -f1-3 /proc/loadavg); $BUILD_NOTE;" \
      "$(server_tuning); each figure one run of ${SECS} s."
    busy_key_report
  } >"$REPORT"
  say "report written to ${REPORT#"$ROOT"/}"
  echo
  cat "$REPORT"
}
