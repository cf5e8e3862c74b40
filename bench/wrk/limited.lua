-- procflow bench: scenario 6, the 429 path. One API key whose limit is exhausted (on a server
-- instance started with a limit of 1 request a minute); every request should be refused with
-- 429, from the server's memory of the refusal (no database round trip).
--   wrk -s limited.lua <url> -- <key> <path>
-- unexpected = responses that are not 429.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "common.lua")

local prepared

function init(args)
  prepared = wrk.format("GET", args[2], bench.headers(args[1], false))
end

function request()
  return prepared
end

function response(status, headers, body)
  if status ~= 429 then unexpected = unexpected + 1 end
end
