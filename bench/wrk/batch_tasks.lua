-- procflow bench: PATCH a run's tasks in one batch, {"tasks": [{"id", "completed": true}, ...]},
-- each request a different run (bench/batch.sh).
--   wrk -s batch_tasks.lua <url> -- <keys file> <runs file> <start index> <wrk threads>
-- The runs file holds one line per run: "<run id> <task id> <task id> ...", every task of the
-- run; line selection and next= are as in complete_task.lua, so no run is batched twice.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "common.lua")

local keys, runs, start

function init(args)
  keys = bench.lines(args[1])
  runs = bench.lines(args[2])
  start = tonumber(args[3] or "0")
  thread_total = tonumber(args[4] or "1")
end

function request()
  local index = start + thread_index + counter * thread_total
  counter = counter + 1
  last_index = index
  local line = runs[index % #runs + 1]
  local run, rest = line:match("^(%S+)%s+(.*)$")
  local items = {}
  for task in rest:gmatch("%S+") do
    items[#items + 1] = '{"id":"' .. task .. '","completed":true}'
  end
  local key = keys[(counter + thread_index * 7919) % #keys + 1]
  return wrk.format("PATCH", "/api/v1/process-runs/" .. run .. "/tasks",
    bench.headers(key, true), '{"tasks":[' .. table.concat(items, ",") .. ']}')
end
