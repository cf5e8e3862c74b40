-- procflow bench: GET one path with If-None-Match set to its current ETag, round-robin over
-- API keys (bench/etag.sh). Every answer should be 304; others are counted as unexpected.
--   wrk -s get_conditional.lua <url> -- <keys file> <path> <etag, quotes included>
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "common.lua")

local prepared = {}

function init(args)
  local keys = bench.lines(args[1])
  for i, key in ipairs(keys) do
    local headers = bench.headers(key, false)
    headers["If-None-Match"] = args[3]
    prepared[i] = wrk.format("GET", args[2], headers)
  end
end

function request()
  counter = counter + 1
  return prepared[(counter + thread_index * 7919) % #prepared + 1]
end

function response(status, headers, body)
  if status ~= 304 then unexpected = unexpected + 1 end
end
