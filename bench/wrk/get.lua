-- procflow bench: GET one path, round-robin over API keys.
-- Scenarios 3 (a run's tasks), 4 (a page of runs after a cursor) and 5 (one run).
--   wrk -s get.lua <url> -- <keys file> <path with query>
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "common.lua")

local prepared = {}

function init(args)
  local keys = bench.lines(args[1])
  for i, key in ipairs(keys) do
    prepared[i] = wrk.format("GET", args[2], bench.headers(key, false))
  end
end

function request()
  counter = counter + 1
  return prepared[(counter + thread_index * 7919) % #prepared + 1]
end
