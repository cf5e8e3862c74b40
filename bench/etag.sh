# procflow bench: conditional GETs (API contract 11). Sourced by bench/run.sh, whose helpers
# (sql, load, result, say, die) and variables (PORT, TMP, LOG, SECS) it uses.
#
# A single GET's ETag is computed from the value the request reads anyway. This measures that
# it adds no database statement: PostgreSQL's own count of transactions (pg_stat_database;
# every statement of a GET runs in autocommit, so one statement is one transaction) over the
# requests of a 1-connection run, for GET one run answering 200 with its ETag and the same GET
# with If-None-Match answering 304; and the latency of both at 4 connections.

# etag_per_request <key> <script> <args...>: sets PER_REQUEST (transactions per request) and
# REQUESTS (how many requests were counted), over a 1-connection run of BENCH_SECONDS
# (bench/xacts.sh).
etag_per_request() {
  local key="$1" script="$2"
  shift 2
  xacts_per_request load "$SECS" "$key" "$script" "$TMP/keys-big.txt" "$@"
}

etag_unexpected() {
  local unexpected
  unexpected=$(grep '^BENCH ' "$LOG" | tail -n 1 | sed -E 's/.* unexpected=([0-9]+).*/\1/')
  [ "$unexpected" = 0 ] || die "$1: $unexpected answers were not 304"
}

etag_scenario() {  # etag_scenario <run id>
  local path="/api/v1/process-runs/$1" key
  say "beyond the spec: GET one run with its ETag (200) and with If-None-Match (304)"
  key="$(head -n 1 "$TMP/keys-big.txt")"
  ETAG="$(curl -s -D - -o /dev/null -H "Authorization: Bearer $key" "http://127.0.0.1:$PORT$path" |
    sed -n 's/^[Ee][Tt][Aa][Gg]: *//p' | tr -d '\r')"
  [ -n "$ETAG" ] || die "GET $path answered no ETag"
  load etag.get200.4 4 get.lua "$TMP/keys-big.txt" "$path"
  load etag.get304.4 4 get_conditional.lua "$TMP/keys-big.txt" "$path" "$ETAG"
  etag_unexpected etag.get304.4
  etag_per_request etag.count200.1 get.lua "$path"
  ETAG_XACTS_200=$PER_REQUEST ETAG_REQUESTS_200=$REQUESTS
  etag_per_request etag.count304.1 get_conditional.lua "$path" "$ETAG"
  etag_unexpected etag.count304.1
  ETAG_XACTS_304=$PER_REQUEST ETAG_REQUESTS_304=$REQUESTS
  say "  database transactions per GET: $ETAG_XACTS_200 (200 with ETag), $ETAG_XACTS_304 (304)"
}

etag_report() {
  echo
  echo "Conditional GET (API contract 11): GET one run, answered 200 with its ETag, and the same GET"
  echo "with If-None-Match: its ETag, answered 304 without a body."
  echo
  echo "| Measure | Conns | Requests/s | p50 ms | p99 ms | Errors | Database transactions per request |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  printf '| GET one run: 200 with ETag | 4 | %s | %s | %s | %s | – |\n' \
    "$(result etag.get200.4 2)" "$(result etag.get200.4 3)" "$(result etag.get200.4 4)" "$(result etag.get200.4 5)"
  printf '| GET one run, If-None-Match: 304 | 4 | %s | %s | %s | %s | – |\n' \
    "$(result etag.get304.4 2)" "$(result etag.get304.4 3)" "$(result etag.get304.4 4)" "$(result etag.get304.4 5)"
  printf '| GET one run: 200 with ETag | 1 | %s | %s | %s | %s | %s |\n' \
    "$(result etag.count200.1 2)" "$(result etag.count200.1 3)" "$(result etag.count200.1 4)" \
    "$(result etag.count200.1 5)" "$ETAG_XACTS_200"
  printf '| GET one run, If-None-Match: 304 | 1 | %s | %s | %s | %s | %s |\n' \
    "$(result etag.count304.1 2)" "$(result etag.count304.1 3)" "$(result etag.count304.1 4)" \
    "$(result etag.count304.1 5)" "$ETAG_XACTS_304"
  echo
  echo "Transactions are PostgreSQL's count (pg_stat_database) over the requests of each 1-connection run" \
    "($ETAG_REQUESTS_200 and $ETAG_REQUESTS_304), each statement in autocommit: a GET of a run is the admission statement (key" \
    "and rate limit) and the run's two reads (header and sections), 3 in all, with or without the" \
    "ETag: computing it adds no query."
}
