-- procflow bench: the process-logic rows (bench/logic.sh), PATCH one form value of a task,
-- {"custom_elements": [{"id": <element>, "value": "vip <n>" | "regular <n>"}]}, each request
-- the next run of a pool, round-robin.
--   wrk -s patch_value.lua <url> -- <keys file> <targets file> <start index> <wrk threads> <mode>
-- The targets file holds "<run id> <task id> <element id>" lines, one per run. Every request
-- writes a value the element does not hold (the number changes). Mode `steady`: always
-- "vip <n>"; on a run with logic, where a rule shows a later task while the value contains
-- "vip", the value the rule reads changes every time and the task stays shown. Mode `turn`:
-- each visit of a run alternates "vip" and "regular", so every request also turns that task's
-- visibility (one more row written). Line selection and next= are as in complete_task.lua.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "common.lua")

local keys, targets, start, turn

function init(args)
  keys = bench.lines(args[1])
  targets = bench.lines(args[2])
  start = tonumber(args[3] or "0")
  thread_total = tonumber(args[4] or "1")
  turn = args[5] == "turn"
end

function request()
  local index = start + thread_index + counter * thread_total
  counter = counter + 1
  last_index = index
  local run, task, element = targets[index % #targets + 1]:match("^(%S+)%s+(%S+)%s+(%S+)$")
  local word = "vip"
  if turn and math.floor(index / #targets) % 2 == 1 then word = "regular" end
  local key = keys[(counter + thread_index * 7919) % #keys + 1]
  local body = '{"custom_elements":[{"id":"' .. element .. '","value":"' .. word .. ' '
    .. index .. '"}]}'
  return wrk.format("PATCH", "/api/v1/process-runs/" .. run .. "/tasks/" .. task,
    bench.headers(key, true), body)
end
