-- procflow bench: the comment rows (bench/comments.sh), POST a comment on a task of a pool.
--   wrk -s comment.lua <url> -- <keys file> <tasks file> <wrk threads>
-- The tasks file holds "<run id> <task id>" lines (bench.task_order(): consecutive lines are
-- tasks of different runs). Thread t of T takes lines t, t + T, ... round the file: a comment
-- leaves its task open, so a task may take many; the file is large enough that requests in
-- flight at once are on different tasks (each share-locks its task while it writes).
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "common.lua")

local keys, tasks, thread_total
local body = '{"text":"The contract is attached: please check clause 4 before Friday."}'

function init(args)
  keys = bench.lines(args[1])
  tasks = bench.lines(args[2])
  thread_total = tonumber(args[3] or "1")
end

function request()
  local index = thread_index + counter * thread_total
  counter = counter + 1
  local run, task = tasks[index % #tasks + 1]:match("^(%S+)%s+(%S+)$")
  local key = keys[(counter + thread_index * 7919) % #keys + 1]
  return wrk.format("POST", "/api/v1/process-runs/" .. run .. "/tasks/" .. task .. "/comments",
    bench.headers(key, true), body)
end
