# procflow bench: the attachment rows (issue 22), sourced by bench/run.sh, whose helpers (say,
# die, sql, record, result, free_port, start_server, rss_kib, mib) and variables (TMP, TEAM,
# RATE_LIMIT, PIDS, BENCH, LOG) it uses. Each row runs on a `procflow serve` of its own over a
# storage directory in TMP (PROCFLOW_STORAGE_URL), with the bench's tuning (start_server).
#
#   F1  a 10 MiB file uploaded (POST multipart to /api/v1/process-runs/:id/tasks/:task_id/
#       attachments) and downloaded (GET /api/v1/attachments/:id/content) with curl, beside the
#       same bytes copied with curl over loopback to a plain file server: `python3 -m
#       http.server` over a directory for the download, bench/plain_upload.py (a PUT's body
#       written to a file) for the upload. FILES_REPS repetitions of each, interleaved; MB/s
#       (10^6 bytes per second of curl's time_total), the median and the range. Target: the
#       service at least 0.5 of the plain server each way. Beside it, what the upload's ratio
#       depends on and the plain server's does not: the disk's durable write (before and after)
#       and the server's CPU per upload.
#   F2  the server's memory during 8 concurrent uploads of 25 MiB: a fresh `procflow serve`
#       (its VmHWM is this row's alone), its VmRSS after a warm-up (an upload and its
#       download), then 8 curl uploads at once, then its VmHWM. Target: the peak less than
#       64 MiB above idle.
#
# curl is given `Expect:` (none) on every upload: it would otherwise wait for a 100 Continue
# before sending a body over 1 MiB, which the plain server does not send.

FILES_REPS="${BENCH_FILES_REPS:-20}"
FILES_MIB=10         # F1's file
FILES_RSS_MIB=25     # F2's files (PROCFLOW_UPLOAD_MAX_BYTES, the default, is 25 MiB)
FILES_CONCURRENT=8   # F2's uploads at once

# files_serve <name>: a `procflow serve` on the bench's storage directory; sets FILES_PORT and
# FILES_PID. The body timeout is raised so that a loaded machine cannot cut an upload.
files_serve() {
  FILES_PORT="$(free_port)"
  PROCFLOW_STORAGE_URL="file://$TMP/files-store" PROCFLOW_REQUEST_BODY_TIMEOUT=5m \
    start_server "$FILES_PORT" "$RATE_LIMIT" "$1"
  FILES_PID=$SERVER_PID
}

# files_stop <pid> [signal]: stops a process of this file (SIGINT unless told) and waits for
# it. The plain servers take TERM: started in the background of a script, they ignore SIGINT.
files_stop() {
  kill "-${2:-INT}" "$1" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
}

# files_wait_http <port> <what>: waits until something answers on the port.
files_wait_http() {
  for _ in $(seq 100); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/")" = 200 ] && return
    sleep 0.1
  done
  die "$2 on port $1 is not answering after 10 s"
}

# files_disk_mbs: how fast the disk takes a durable write now, in MB/s: the median of three
# 10 MiB writes, each flushed before dd ends (`conv=fdatasync`). The service's upload is such a
# write (its file flushed before it answers), the plain server's is not: a slow disk lowers the
# upload's ratio alone.
files_disk_mbs() {
  local probe="$TMP/files-disk-probe" i
  for i in 1 2 3; do
    dd if=/dev/zero of="$probe" bs=1M count=10 conv=fdatasync 2>&1 |
      awk '/copied/ { printf "%.0f\n", 10485760 / $(NF - 3) / 1e6 }'
  done | sort -n | sed -n 2p
  rm -f "$probe"
}

# files_cpu_ticks <pid>: the process's CPU time so far (user and system), in clock ticks.
files_cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

json_field() { python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][sys.argv[1]])' "$1"; }

# files_upload <file> [answer file]: POSTs it as an attachment of FILES_TASK; "<status>
# <seconds> <id>" (no id when the answer is not 201).
files_upload() {
  local out="${2:-$TMP/files-upload.json}" status time id=""
  read -r status time < <(curl -s -o "$out" -w '%{http_code} %{time_total}\n' -H 'Expect:' \
    -H "Authorization: Bearer pf_live_bench_1_1" -F "file=@$1;type=application/octet-stream" \
    "http://127.0.0.1:$FILES_PORT$FILES_PATH")
  if [ "$status" = 201 ]; then id="$(json_field id <"$out" || true)"; fi
  printf '%s %s %s\n' "$status" "$time" "$id"
}

# files_get <url> [curl args...]: downloads to /dev/null; "<status> <seconds> <bytes>".
files_get() {
  local url="$1"
  shift
  curl -s -o /dev/null -w '%{http_code} %{time_total} %{size_download}\n' "$@" "$url"
}

# files_rate <bytes> <seconds>: MB/s.
files_rate() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.0f\n", b / s / 1e6 }'; }

# files_record <key> <file of MB/s, one a line> <errors>: the median, min and max.
files_record() {
  local sorted
  sorted="$(sort -n "$2")"
  [ -n "$sorted" ] || { record "$1" 0 0 0 "$3"; return; }
  record "$1" "$(awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }' <<<"$sorted")" \
    "$(head -n 1 <<<"$sorted")" "$(tail -n 1 <<<"$sorted")" "$3"
  say "  $1: median $(result "$1" 2) MB/s (min $(result "$1" 3), max $(result "$1" 4)), errors $3"
}

files_scenario() {
  local size=$((FILES_MIB * 1024 * 1024)) file="$TMP/files-plain-dl/f1.bin"
  mkdir -p "$TMP/files-store" "$TMP/files-plain-dl" "$TMP/files-plain-ul"
  head -c "$size" /dev/urandom >"$file"
  local sha
  sha="$(sha256sum "$file" | cut -d' ' -f1)"

  # The rows before wrote hundreds of thousands of rows (the scheduler's 10,000 runs last):
  # autovacuum would take them up during F1 (run_tasks for some 20 s after the scheduler rows of
  # a reduced bench), so they are vacuumed now; and without a checkpoint now, PostgreSQL takes
  # one during F1, and its writes go to the disk ahead of the flush that ends each of the
  # service's uploads (docs/operations.md, "File storage"), never ahead of the plain server's,
  # which flushes nothing. As after the seeding (run.sh) and the inbox's (inbox.sh).
  local t0
  t0=$(date +%s.%N)
  sql -c "VACUUM ANALYZE" >/dev/null
  sql -c "CHECKPOINT" >/dev/null
  say "files: the database vacuumed and checkpointed in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
  FILES_DISK_BEFORE=$(files_disk_mbs)
  say "files F1: a $FILES_MIB MiB file up and down, service and plain file server, $FILES_REPS times each"
  files_serve files
  local svc_pid=$FILES_PID run
  run="$(curl -s -H "Authorization: Bearer pf_live_bench_1_1" -H 'Content-Type: application/json' \
    -d @"$TMP/create-body.json" "http://127.0.0.1:$FILES_PORT/api/v1/process-runs" | json_field id)" ||
    die "cannot create the run the files are attached to"
  FILES_TASK="$(sql -c "SELECT id FROM run_tasks WHERE team_id = '$TEAM' AND run_id = '$run'
    AND NOT hidden ORDER BY position LIMIT 1")"
  FILES_PATH="/api/v1/process-runs/$run/tasks/$FILES_TASK/attachments"
  local dl_port ul_port
  dl_port="$(free_port)"
  python3 -m http.server --bind 127.0.0.1 --directory "$TMP/files-plain-dl" "$dl_port" \
    >"$TMP/files-plain-dl.log" 2>&1 &
  local dl_pid=$!
  PIDS+=("$dl_pid")
  ul_port="$(free_port)"
  python3 "$BENCH/plain_upload.py" "$ul_port" "$TMP/files-plain-ul" >"$TMP/files-plain-ul.log" 2>&1 &
  local ul_pid=$!
  PIDS+=("$ul_pid")
  files_wait_http "$dl_port" "python3 -m http.server"
  files_wait_http "$ul_port" "bench/plain_upload.py"

  # Warm-up, and the bytes checked both ways once.
  local status time id got
  read -r status time id < <(files_upload "$file")
  [ "$status" = 201 ] || die "the warm-up upload answered $status"
  got="$(curl -s -H "Authorization: Bearer pf_live_bench_1_1" \
    "http://127.0.0.1:$FILES_PORT/api/v1/attachments/$id/content" | sha256sum | cut -d' ' -f1)"
  [ "$got" = "$sha" ] || die "the attachment downloaded is not the file uploaded"
  curl -s -o /dev/null -H 'Expect:' -T "$file" "http://127.0.0.1:$ul_port/f1.bin"
  [ "$(sha256sum <"$TMP/files-plain-ul/f1.bin" | cut -d' ' -f1)" = "$sha" ] ||
    die "the plain upload server did not write the file whole"

  local kind errors_up=0 errors_down=0 errors_plain_up=0 errors_plain_down=0 r bytes
  for kind in up.svc up.plain down.svc down.plain; do : >"$TMP/files-$kind.txt"; done
  local ticks=0 t
  for ((r = 1; r <= FILES_REPS; r++)); do
    t=$(files_cpu_ticks "$svc_pid")
    read -r status time id < <(files_upload "$file")
    ticks=$((ticks + $(files_cpu_ticks "$svc_pid") - t))
    if [ "$status" = 201 ]; then files_rate "$size" "$time" >>"$TMP/files-up.svc.txt"
    else errors_up=$((errors_up + 1)); fi
    read -r status time < <(curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -H 'Expect:' \
      -T "$file" "http://127.0.0.1:$ul_port/f1.bin")
    if [ "$status" = 201 ]; then files_rate "$size" "$time" >>"$TMP/files-up.plain.txt"
    else errors_plain_up=$((errors_plain_up + 1)); fi
    read -r status time bytes < <(files_get "http://127.0.0.1:$FILES_PORT/api/v1/attachments/$id/content" \
      -H "Authorization: Bearer pf_live_bench_1_1")
    if [ "$status" = 200 ] && [ "$bytes" = "$size" ]; then files_rate "$size" "$time" >>"$TMP/files-down.svc.txt"
    else errors_down=$((errors_down + 1)); fi
    read -r status time bytes < <(files_get "http://127.0.0.1:$dl_port/f1.bin")
    if [ "$status" = 200 ] && [ "$bytes" = "$size" ]; then files_rate "$size" "$time" >>"$TMP/files-down.plain.txt"
    else errors_plain_down=$((errors_plain_down + 1)); fi
  done
  FILES_DISK_AFTER=$(files_disk_mbs)
  FILES_UP_CPU_MS=$(awk -v t="$ticks" -v n="$FILES_REPS" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "%.0f", t * 1000 / hz / n }')
  say "  the server's CPU per upload: $FILES_UP_CPU_MS ms"
  say "  the disk's durable write of 10 MiB: $FILES_DISK_BEFORE MB/s before F1, $FILES_DISK_AFTER MB/s after"
  files_record files.up.svc "$TMP/files-up.svc.txt" "$errors_up"
  files_record files.up.plain "$TMP/files-up.plain.txt" "$errors_plain_up"
  files_record files.down.svc "$TMP/files-down.svc.txt" "$errors_down"
  files_record files.down.plain "$TMP/files-down.plain.txt" "$errors_plain_down"
  files_stop "$dl_pid" TERM
  files_stop "$ul_pid" TERM
  files_stop "$svc_pid"

  say "files F2: the server's memory during $FILES_CONCURRENT concurrent uploads of $FILES_RSS_MIB MiB"
  local big="$TMP/files-rss.bin"
  head -c $((FILES_RSS_MIB * 1024 * 1024)) /dev/urandom >"$big"
  files_serve files-rss
  local rss_pid=$FILES_PID
  read -r status time id < <(files_upload "$file")
  [ "$status" = 201 ] || die "the warm-up upload of F2 answered $status"
  files_get "http://127.0.0.1:$FILES_PORT/api/v1/attachments/$id/content" \
    -H "Authorization: Bearer pf_live_bench_1_1" >/dev/null
  sleep 1  # as for the main server's idle figure: what the warm-up left behind settles
  FILES_RSS_IDLE=$(rss_kib "$rss_pid" VmRSS)
  local pids=() i t0 pid
  t0=$(date +%s.%N)
  for ((i = 1; i <= FILES_CONCURRENT; i++)); do
    files_upload "$big" "$TMP/files-rss-$i.json" >"$TMP/files-rss-$i.txt" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || true; done
  FILES_RSS_SECONDS=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  FILES_RSS_PEAK=$(rss_kib "$rss_pid" VmHWM)
  FILES_RSS_AFTER=$(rss_kib "$rss_pid" VmRSS)
  FILES_RSS_OK=$(cat "$TMP"/files-rss-*.txt | awk '$1 == 201' | wc -l)
  say "  idle $(mib "$FILES_RSS_IDLE") MiB, peak $(mib "$FILES_RSS_PEAK") MiB, after $(mib "$FILES_RSS_AFTER") MiB;" \
    "$FILES_RSS_OK of $FILES_CONCURRENT uploads answered 201 in $FILES_RSS_SECONDS s"
  [ "$FILES_RSS_OK" -eq "$FILES_CONCURRENT" ] ||
    say "  WARNING: $((FILES_CONCURRENT - FILES_RSS_OK)) of the concurrent uploads failed (see $TMP/files-rss-*.txt)"
  files_stop "$rss_pid"
  rm -rf "$TMP/files-store" "$TMP/files-plain-dl" "$TMP/files-plain-ul" "$big"
}

files_report() {
  local c
  echo
  echo "Attachments (issue 22; bench/files.sh). F1: a $FILES_MIB MiB file with curl over loopback," \
    "$FILES_REPS times each way, interleaved, through the API (multipart upload into a local storage" \
    "directory, then the row; the download streamed from it) and to a plain file server (python3 -m" \
    "http.server for the download, bench/plain_upload.py writing a PUT's body to a file for the upload)." \
    "MB/s = 10^6 bytes per second of curl's time_total: the median (min–max)."
  echo
  echo "| Row | Service MB/s | Plain file server MB/s | Service / plain (target ≥ 0.5) | Errors |"
  echo "|---|---:|---:|---:|---:|"
  for c in up down; do
    printf '| F1. %s a %s MiB file | %s (%s–%s) | %s (%s–%s) | %s | %s |\n' \
      "$([ "$c" = up ] && echo Upload || echo Download)" "$FILES_MIB" \
      "$(result "files.$c.svc" 2)" "$(result "files.$c.svc" 3)" "$(result "files.$c.svc" 4)" \
      "$(result "files.$c.plain" 2)" "$(result "files.$c.plain" 3)" "$(result "files.$c.plain" 4)" \
      "$(ratio "files.$c.svc" "files.$c.plain")" \
      "$(($(result "files.$c.svc" 5) + $(result "files.$c.plain" 5)))"
  done
  echo
  echo "The disk's durable write (10 MiB written then flushed, \`dd conv=fdatasync\`, the median of" \
    "three): $FILES_DISK_BEFORE MB/s before F1, $FILES_DISK_AFTER MB/s after. The service's upload is" \
    "durable before it is answered (its file flushed, its row committed), the plain server's is" \
    "not: a slow disk lowers the upload's ratio alone." \
    "The server's CPU per upload (its user and system time across the F1 uploads): $FILES_UP_CPU_MS ms;" \
    "it hashes every byte (SHA-256) and parses the multipart body, which the plain server does not:" \
    "when the machine's CPU is slow the upload's ratio falls with it."
  echo
  echo "| Row | Idle VmRSS MiB | Peak VmHWM MiB | Peak − idle MiB (target < 64) | Uploads answered 201 | Wall time s |"
  echo "|---|---:|---:|---:|---:|---:|"
  printf '| F2. %s concurrent uploads of %s MiB, a fresh server | %s | %s | %s | %s of %s | %s |\n' \
    "$FILES_CONCURRENT" "$FILES_RSS_MIB" "$(mib "$FILES_RSS_IDLE")" "$(mib "$FILES_RSS_PEAK")" \
    "$(mib $((FILES_RSS_PEAK - FILES_RSS_IDLE)))" "$FILES_RSS_OK" "$FILES_CONCURRENT" "$FILES_RSS_SECONDS"
  echo
  echo "F2's idle figure is read after a warm-up upload and download of the F1 file; VmRSS after the" \
    "uploads: $(mib "$FILES_RSS_AFTER") MiB."
}
