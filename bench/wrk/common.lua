-- procflow bench: what every wrk script of bench/wrk shares. Loaded by each scenario script
-- with dofile; wrk runs one Lua state per thread.
--
-- - API keys: the requests of a scenario go round-robin over the keys of a file (one key a
--   line), so that each key's rate-limit window stays small (see bench/README.md).
-- - done() prints one machine-readable line that bench/run.sh parses:
--     BENCH requests=<n> duration_us=<n> p50_us=<n> p99_us=<n> errors=<n> unexpected=<n> next=<n>
--   errors: socket errors (connect, read, write, timeout) plus responses with status >= 400;
--   unexpected: responses whose status is not the expected one (counted only by scripts that
--   define response(), see limited.lua); next: the first index of a list not used yet (see
--   complete_task.lua).
-- - With BENCH_HIST set to a path, done() also writes the latency histogram there, one
--   "<microseconds> <count>" a line, so that bench/run.sh can merge the histograms of a
--   measure taken in several rounds into exact percentiles (see rounds() there).

bench = {}
local threads = {}
local thread_count = 0

function bench.lines(path)
  local out = {}
  local file = assert(io.open(path, "r"), "cannot open " .. path)
  for line in file:lines() do
    if line ~= "" then out[#out + 1] = line end
  end
  file:close()
  assert(#out > 0, path .. " is empty")
  return out
end

function bench.read(path)
  local file = assert(io.open(path, "r"), "cannot open " .. path)
  local text = file:read("*a")
  file:close()
  return (text:gsub("%s+$", ""))
end

function setup(thread)
  thread:set("thread_index", thread_count)
  thread_count = thread_count + 1
  threads[#threads + 1] = thread
end

-- Requests made by this thread; scripts that pick from lists use it.
counter = 0
unexpected = 0

function bench.headers(key, with_body)
  local headers = { ["Authorization"] = "Bearer " .. key }
  if with_body then headers["Content-Type"] = "application/json" end
  return headers
end

function done(summary, latency, requests)
  local e = summary.errors
  local errors = e.connect + e.read + e.write + e.timeout + e.status
  local unexpected_total, next_index = 0, 0
  for _, t in ipairs(threads) do
    unexpected_total = unexpected_total + (t:get("unexpected") or 0)
    local last = t:get("last_index") or -1
    if last + 1 > next_index then next_index = last + 1 end
  end
  io.write(string.format(
    "BENCH requests=%d duration_us=%d p50_us=%d p99_us=%d errors=%d unexpected=%d next=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    errors, unexpected_total, next_index))
  local hist = os.getenv("BENCH_HIST")
  if hist and hist ~= "" then
    local file = assert(io.open(hist, "w"), "cannot write " .. hist)
    for i = 1, #latency do
      local value, count = latency(i)
      file:write(string.format("%d %d\n", value, count))
    end
    file:close()
  end
end
