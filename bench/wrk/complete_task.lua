-- procflow bench: scenario 2 and the task-update growth rows, PATCH a task {"completed":true},
-- each request a different open task.
--   wrk -s complete_task.lua <url> -- <keys file> <tasks file> <start index> <wrk threads>
-- The tasks file holds "<run id> <task id>" lines (bench.task_order(): consecutive lines are
-- tasks of different runs). Thread t of T takes lines start + t, start + t + T, ... : no line is
-- used twice in a run, and done() prints next = one past the highest line used, which
-- bench/run.sh passes as the start of the next run on the same file. Past the end of the file
-- it wraps around (a repeat: the task is completed already; run.sh sizes the pools so it does
-- not happen and warns when it does).
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "common.lua")

local keys, tasks, start
local body = '{"completed":true}'

function init(args)
  keys = bench.lines(args[1])
  tasks = bench.lines(args[2])
  start = tonumber(args[3] or "0")
  thread_total = tonumber(args[4] or "1")
end

function request()
  local index = start + thread_index + counter * thread_total
  counter = counter + 1
  last_index = index
  local run, task = tasks[index % #tasks + 1]:match("^(%S+)%s+(%S+)$")
  local key = keys[(counter + thread_index * 7919) % #keys + 1]
  return wrk.format("PATCH", "/api/v1/process-runs/" .. run .. "/tasks/" .. task,
    bench.headers(key, true), body)
end
