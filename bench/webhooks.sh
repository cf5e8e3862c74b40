# procflow bench: the webhook rows, sourced by bench/run.sh (its functions and variables).
#
#   W1  create a run, and complete a task (webhook_enabled), without an endpoint and then with
#       one endpoint subscribed to every event, posting to a sink on loopback, back to back on
#       the same server (its worker running, as in production);
#   W2  the worker's throughput: deliveries done per second while W1 loads the API, the most
#       deliveries pending during it, and how long the backlog takes to drain afterwards;
#   W3  the worker alone: 20,000 deliveries queued at once, drained at how many per second.
#
# Results go to results.tsv like the other rows; webhook_report prints the section.

SINK_PID=""

# start_sink: a release build of procflow-testkit's webhook_sink on a free port; sets SINK_PORT.
start_sink() {
  local sink="$OUT_DIR/release/examples/webhook_sink"
  if [ ! -x "$sink" ] || [ -z "${BENCH_BIN:-}" ]; then
    say "building the webhook sink (cargo build --release --example webhook_sink)"
    $CARGO build --release -q -p procflow-testkit --example webhook_sink >>"$LOG" 2>&1 \
      || die "cannot build the webhook sink"
  fi
  "$sink" 0 >"$TMP/sink.log" 2>&1 &
  SINK_PID=$!
  PIDS+=("$SINK_PID")
  for _ in $(seq 100); do
    SINK_PORT=$(sed -nE 's/^port ([0-9]+)$/\1/p' "$TMP/sink.log")
    [ -n "$SINK_PORT" ] && return
    sleep 0.05
  done
  die "the webhook sink did not start"
}

pending() { sql -c "SELECT count(*) FROM webhook_deliveries WHERE status IN ('pending', 'delivering')"; }
delivered() { sql -c "SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered'"; }
# Events not fanned out yet: deliveries are still to come from them.
undispatched() { sql -c "SELECT count(*) FROM outbox WHERE delivered_at IS NULL AND dead_at IS NULL"; }

# no_dead_events <when>: every event the service and the floor scripts wrote can be read; one
# set aside means a script writes what the worker cannot deliver, and the figures would lie.
no_dead_events() {
  local dead
  dead=$(sql -c "SELECT count(*) FROM outbox WHERE dead_at IS NOT NULL")
  [ "$dead" -eq 0 ] || die "$dead outbox events were set aside $1 (first: $(sql -c \
    "SELECT kind || ': ' || last_error FROM outbox WHERE dead_at IS NOT NULL ORDER BY dead_at LIMIT 1"))"
}

# sample_pending <file>: the backlog once a second, in the background; sets SAMPLER_PID.
sample_pending() {
  (while :; do pending >>"$1"; sleep 1; done) &
  SAMPLER_PID=$!
  PIDS+=("$SAMPLER_PID")
}

# drain <deadline s>: waits until no event waits for its fan-out and no delivery is pending;
# prints the seconds it took. Fails the bench when they do not drain in time.
drain() {
  local t0 deadline=$1
  t0=$(date +%s.%N)
  while [ "$(pending)" -gt 0 ] || [ "$(undispatched)" -gt 0 ]; do
    awk -v a="$t0" -v b="$(date +%s.%N)" -v d="$deadline" 'BEGIN { exit !(b - a > d) }' \
      && die "deliveries still pending after $deadline s ($(pending) deliveries, $(undispatched) events)"
    sleep 0.2
  done
  awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}

webhook_scenarios() {
  local c key="pf_live_bench_1_1"
  say "webhooks W1: create a run and complete a task, without an endpoint"
  for c in 4 16; do
    load hook.create.off.$c "$c" create_run.lua "$TMP/keys-big.txt" "$TMP/create-body.json"
    load hook.complete.off.$c "$c" complete_task.lua "$TMP/keys-big.txt" "$TMP/tasks-50.txt" "$TASK_NEXT" 2
    TASK_NEXT=$NEXT
  done

  no_dead_events "before the webhook scenarios"
  start_sink
  local created
  created="$(curl -s -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
    -d "{\"url\": \"http://127.0.0.1:$SINK_PORT/hook\"}" "http://127.0.0.1:$PORT/api/v1/webhooks")"
  [ -n "$(field secret "$created")" ] || die "cannot register the bench's endpoint: $created"
  WEBHOOK_ENDPOINT=$(field id "$created")  # bench/scheduler.sh removes it before its rows
  say "webhooks W1: the same with one endpoint subscribed to every event (sink on port $SINK_PORT)"
  local before_delivered t0
  before_delivered=$(delivered)
  t0=$(date +%s.%N)
  sample_pending "$TMP/pending.txt"
  for c in 4 16; do
    load hook.create.on.$c "$c" create_run.lua "$TMP/keys-big.txt" "$TMP/create-body.json"
    load hook.complete.on.$c "$c" complete_task.lua "$TMP/keys-big.txt" "$TMP/tasks-50.txt" "$TASK_NEXT" 2
    TASK_NEXT=$NEXT
  done
  local load_end
  load_end=$(date +%s.%N)
  HOOK_DRAIN=$(drain 300)
  kill "$SAMPLER_PID" 2>/dev/null || true
  local done_at made expected
  done_at=$(date +%s.%N)
  made=$(($(delivered) - before_delivered))
  # One delivery per webhook event raised under the load: the endpoint takes every event.
  expected=$(sql -c "SELECT count(*) FROM outbox WHERE webhook_event IS NOT NULL
    AND occurred_at >= to_timestamp($t0)")
  no_dead_events "under the webhook load"
  [ "$expected" -gt 0 ] || die "the webhook load raised no webhook event"
  [ "$made" -ge "$expected" ] || die "$made deliveries for $expected webhook events raised under the load"
  HOOK_MADE=$made
  HOOK_RATE=$(awk -v n="$made" -v a="$t0" -v b="$done_at" 'BEGIN { printf "%.0f", n / (b - a) }')
  HOOK_LOAD_SECS=$(awk -v a="$t0" -v b="$load_end" 'BEGIN { printf "%.0f", b - a }')
  HOOK_MAX_PENDING=$(sort -n "$TMP/pending.txt" | tail -n 1)
  HOOK_FAILED=$(sql -c "SELECT count(*) FROM webhook_deliveries WHERE status = 'failed' OR attempts > 1")
  say "  $made deliveries in $(awk -v a="$t0" -v b="$done_at" 'BEGIN { printf "%.0f", b - a }') s ($HOOK_RATE/s);" \
    "at most $HOOK_MAX_PENDING pending; drained $HOOK_DRAIN s after the load; $HOOK_FAILED retried or failed"

  say "webhooks W3: the worker alone drains 20000 queued deliveries"
  local queued before_alone
  before_alone=$(delivered)
  queued=$(sql -c "WITH queued AS (
            INSERT INTO webhook_deliveries (team_id, id, webhook_id, event_id, event, origin, status,
                payload, created_at, due_at)
            SELECT d.team_id, gen_random_uuid(), d.webhook_id, d.event_id, d.event, 'redelivery',
                   'pending', d.payload, now(), now()
            FROM (SELECT * FROM webhook_deliveries WHERE status = 'delivered' LIMIT 1) d,
                 generate_series(1, 20000)
            RETURNING 1)
          SELECT count(*) FROM queued")
  [ "$queued" -eq 20000 ] || die "W3 queued $queued deliveries instead of 20000 (none delivered to copy?)"
  HOOK_ALONE_SECS=$(drain 600)
  [ "$(($(delivered) - before_alone))" -ge 20000 ] \
    || die "W3 delivered $(($(delivered) - before_alone)) of the 20000 queued deliveries"
  HOOK_ALONE_RATE=$(awk -v s="$HOOK_ALONE_SECS" 'BEGIN { printf "%.0f", 20000 / s }')
  say "  20000 deliveries in $HOOK_ALONE_SECS s ($HOOK_ALONE_RATE/s)"
}

webhook_report() {
  echo
  echo "Webhooks (the main server's worker delivering to a sink on loopback, one endpoint subscribed to every event; tasks have webhook_enabled):"
  echo
  echo "| Scenario | Conns | Without endpoint: req/s | p50 ms | p99 ms | With endpoint: req/s | p50 ms | p99 ms | With / without |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  local c what
  for what in create complete; do
    for c in 4 16; do
      printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
        "$([ $what = create ] && echo "Create a run (1 delivery each)" || echo "Complete a task (1 delivery each)")" "$c" \
        "$(result hook.$what.off.$c 2)" "$(result hook.$what.off.$c 3)" "$(result hook.$what.off.$c 4)" \
        "$(result hook.$what.on.$c 2)" "$(result hook.$what.on.$c 3)" "$(result hook.$what.on.$c 4)" \
        "$(ratio hook.$what.on.$c hook.$what.off.$c)"
    done
  done
  echo
  echo "Worker: $HOOK_MADE deliveries during the $HOOK_LOAD_SECS s of load above and its drain, $HOOK_RATE per second" \
    "sustained; at most $HOOK_MAX_PENDING pending (sampled each second); the backlog drained $HOOK_DRAIN s after" \
    "the load ended; $HOOK_FAILED deliveries needed a retry or failed. The worker alone (no API load): 20,000" \
    "queued deliveries drained in $HOOK_ALONE_SECS s, $HOOK_ALONE_RATE per second."
}
