-- procflow bench: scenario 1, POST /api/v1/process-runs from the 50-task template with 5
-- pre-filled values (the body is made by bench/run.sh), round-robin over API keys.
--   wrk -s create_run.lua <url> -- <keys file> <body file>
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "common.lua")

local prepared = {}

function init(args)
  local keys = bench.lines(args[1])
  local body = bench.read(args[2])
  for i, key in ipairs(keys) do
    prepared[i] = wrk.format("POST", "/api/v1/process-runs", bench.headers(key, true), body)
  end
end

function request()
  counter = counter + 1
  return prepared[(counter + thread_index * 7919) % #prepared + 1]
end
