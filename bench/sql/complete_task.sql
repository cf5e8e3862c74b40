-- SQL floor of scenario 2: PATCH /api/v1/process-runs/:id/tasks/:task_id {"completed": true}
--   (each transaction completes a different open task of a 50-task run).
--
-- The statements procflow runs for that request, in the same order and transaction shape
-- (captured with log_statement=all; see crates/procflow-postgres/src/store/runs.rs,
-- update_task):
--   autocommit: admission (API key lookup and rate-limit decision in one
--   statement);
--   one transaction: BEGIN sent with the run and the task read and locked in one statement
--   (a join, FOR UPDATE), one round trip; then UPDATE the task, UPDATE the run (open_tasks) and INSERT outbox (the
--   task_completed event), sent together (pipelined, as diesel-async does for futures joined
--   on one connection); COMMIT.
--
-- The task's custom elements: the service binds them only when the update changed them, and
-- NULL otherwise (store/task_write.rs), as completing a task does; so does this script.
--
-- Differences, on purpose:
-- The event is a valid stored event (procflow_domain::event, version 7) of the same size,
-- with made-up template task and section ids: the worker reads and dispatches it as any other.
-- open_tasks is decremented in SQL where the service sets the value it computed.
--
-- Which task: a pool of runs seeded by bench.seed_runs(tag => :pool_tag, first_ms =>
-- :pool_ms, count => :pool_runs, with tasks). Index n = :start + i * clients + client_id is
-- unique per transaction; it takes run n % pool_runs and position n / pool_runs (below 49:
-- no run completes), the order of bench.task_order(), so consecutive transactions touch
-- different runs. bench/run.sh passes a :start past every index used before.
--
-- Run with -M prepared and:
--   -D team=<team uuid> -D key_tag=<tag> -D nkeys=<keys> -D limit=<rate limit>
--   -D pool_tag=<tag> -D pool_ms=<first ms> -D pool_runs=<runs> -D start=<first index>
--   -D clients=<-c> -D i=0

\set n :start + :i * :clients + :client_id
\set i :i + 1
\set run_ms :pool_ms + (:n % :pool_runs)
\set position :n / :pool_runs
\set task_n :position + 1

\set one 1

-- @admission: bench/sql/admission.sql, the same statement as the service's (bench/run.sh puts it here)

-- BEGIN goes out with the locked read, as the service sends them (store/transaction.rs).
\startpipeline

BEGIN;

SELECT runs.team_id, runs.id, runs.template_id, runs.template_version, runs.title, runs.status,
       runs.started_by, runs.timezone, runs.due_date, runs.is_shared, runs.open_tasks,
       runs.created_at, runs.updated_at, runs.completed_at, runs.logic_state,
       run_tasks.team_id, run_tasks.run_id, run_tasks.id, run_tasks.template_task_id,
       run_tasks.section_id, run_tasks.title, run_tasks.position, run_tasks.state,
       run_tasks.completed_at, run_tasks.completed_by, run_tasks.assignee, run_tasks.is_essential,
       run_tasks.task_type, run_tasks.due_date, run_tasks.webhook_enabled, run_tasks.decision,
       run_tasks.comment, run_tasks.custom_elements, run_tasks.created_at, run_tasks.reference,
       run_tasks.depends_on, run_tasks.hidden, run_tasks.blocked
FROM runs
INNER JOIN run_tasks ON run_tasks.team_id = runs.team_id AND run_tasks.run_id = runs.id
WHERE runs.team_id = :team AND runs.id = bench.uuid(:run_ms, :pool_tag, 0)
  AND run_tasks.id = bench.uuid(:run_ms, :pool_tag, :task_n)
LIMIT :one FOR UPDATE;

\endpipeline

\startpipeline

UPDATE run_tasks
SET state = 'completed', completed_at = now(), completed_by = 'api', assignee = NULL,
    decision = NULL, comment = NULL,
    custom_elements = COALESCE(CAST(NULL AS jsonb), run_tasks.custom_elements), hidden = false,
    blocked = false
WHERE run_tasks.team_id = :team AND run_tasks.run_id = bench.uuid(:run_ms, :pool_tag, 0)
  AND run_tasks.id = bench.uuid(:run_ms, :pool_tag, :task_n);

UPDATE runs
SET status = 'active', is_shared = false, open_tasks = open_tasks - 1, updated_at = now(),
    completed_at = NULL
WHERE runs.team_id = :team AND runs.id = bench.uuid(:run_ms, :pool_tag, 0);

-- One id for the row and its payload: the worker marks an event dispatched by its id.
INSERT INTO outbox (id, team_id, kind, payload, occurred_at, due_at, webhook_event)
SELECT e.id, :team, 'process_step.completed',
        jsonb_build_object(
            'version', 7, 'id', e.id, 'team_id', CAST(:team AS uuid),
            'occurred_at', now(), 'payload', jsonb_build_object(
                'kind', 'task_completed', 'task', jsonb_build_object(
                    'id', bench.uuid(:run_ms, :pool_tag, :task_n), 'title', 'Task',
                    'assignee', NULL, 'completed', true,
                    'instance_id', bench.uuid(:run_ms, :pool_tag, 0),
                    'completed_at', now(), 'completed_by', 'api', 'webhook_enabled', false,
                    'template_task_id', gen_random_uuid(), 'section_id', gen_random_uuid(),
                    'due_date', NULL))),
        now(), now(), 'process_step.completed'
FROM (SELECT gen_random_uuid() AS id) AS e;

\endpipeline

COMMIT;
