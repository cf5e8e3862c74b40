-- procflow bench: the guest page (HTML) of a shared run, as a guest's browser asks for it: no
-- API key, the share token in the query. Compared with scenario 3, the API's read of the same
-- run's tasks. Like get.lua, it defines no response() callback: wrk would then hand every
-- body to Lua, and the bench would measure that copy rather than the server (errors are
-- counted by wrk: statuses of 400 and more; run.sh checks the page answers 200 first).
--   wrk -s guest_page.lua <url> -- <path with ?token=...>
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "common.lua")

local prepared

function init(args)
  prepared = wrk.format("GET", args[1], { ["Accept"] = "text/html" })
end

function request()
  return prepared
end
