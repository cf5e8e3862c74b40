-- procflow bench: scenario 1, POST /api/v1/process-runs from the 50-task template with 5
-- pre-filled values (the body is made by bench/run.sh), round-robin over API keys.
--   wrk -s create_run.lua <url> -- <keys file> <body file> [path]
-- The path defaults to /api/v1/process-runs; the dry-run row (bench/inbox.sh) passes
-- /api/v1/process-runs?validate_only=true.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "common.lua")

local prepared = {}

function init(args)
  local keys = bench.lines(args[1])
  local body = bench.read(args[2])
  local path = args[3] or "/api/v1/process-runs"
  for i, key in ipairs(keys) do
    prepared[i] = wrk.format("POST", path, bench.headers(key, true), body)
  end
end

function request()
  counter = counter + 1
  return prepared[(counter + thread_index * 7919) % #prepared + 1]
end
