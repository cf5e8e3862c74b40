-- SQL floor of scenario 2: PATCH /api/v1/process-runs/:id/tasks/:task_id {"completed": true}
--   (each transaction completes a different open task of a 50-task run).
--
-- The statements procflow runs for that request, in the same order and transaction shape
-- (captured with log_statement=all; see crates/procflow-postgres/src/store/runs.rs,
-- update_task):
--   autocommit: admission (API key lookup and rate-limit decision in one
--   statement);
--   one transaction: the run and the task read and locked in one statement (a join, FOR
--   UPDATE); then UPDATE the task, UPDATE the run (open_tasks) and INSERT outbox (the
--   task_completed event), sent together (pipelined, as diesel-async does for futures joined
--   on one connection); COMMIT.
--
-- Differences, on purpose: the service writes back the task's custom elements it read (a
-- parameter); here `custom_elements = custom_elements` (the same row version is written).
-- The event is a valid stored event (procflow_domain::event, version 4) of the same size,
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

\set k random(1, :nkeys)
\set n :start + :i * :clients + :client_id
\set i :i + 1
\set run_ms :pool_ms + (:n % :pool_runs)
\set position :n / :pool_runs
\set task_n :position + 1

-- Admission: the API key found by its hash in its team (the service reads the team from the
-- token directory once per key and process, so not on a measured request) and, the team being
-- active, the request counted in
-- the key's row of per-second counters (one UPDATE of the row the key was made with), in one
-- statement committed asynchronously (see crates/procflow-postgres/src/store/rate_limits.rs).
WITH k AS (
    SELECT api_keys.team_id, api_keys.id AS key_id, api_keys.name AS key_name,
           api_keys.prefix, api_keys.key_hash, api_keys.created_by,
           api_keys.created_at AS key_created_at, api_keys.revoked_at, api_keys.scope,
           teams.name AS team_name, teams.base_url, teams.timezone, teams.subscription,
           teams.created_at AS team_created_at
    FROM api_keys JOIN teams ON teams.id = api_keys.team_id
    WHERE api_keys.team_id = :team AND teams.id = :team
      AND api_keys.key_hash = sha256(convert_to('pf_live_bench_' || :key_tag || '_' || :k, 'UTF8'))
      AND api_keys.revoked_at IS NULL
), args AS (
    SELECT k.team_id, k.key_id AS api_key_id,
           floor(extract(epoch FROM clock_timestamp()))::bigint AS now_s,
           CAST(:limit AS bigint) AS lim, 60::bigint AS n,
           set_config('synchronous_commit', 'off', true) AS async_commit
    FROM k WHERE k.subscription = 'active'
), counted AS (
    UPDATE rate_limits AS r
    SET (second, counts, admitted) = (
        SELECT d.newest,
               CASE WHEN d.total < args.lim
                    THEN d.counts[ : d.at - 1] || (d.counts[d.at] + 1) || d.counts[d.at + 1:]
                    ELSE d.counts END,
               d.total < args.lim
        FROM (
            SELECT s.newest, s.counts,
                   (SELECT coalesce(sum(c), 0) FROM unnest(s.counts) AS c) AS total,
                   greatest(1, args.n + args.now_s - s.newest)::int AS at
            FROM (
                SELECT greatest(r.second, args.now_s) AS newest,
                       CASE WHEN r.second >= args.now_s AND cardinality(r.counts) = args.n
                       THEN r.counts
                       ELSE ARRAY(SELECT coalesce(CASE WHEN x > r.second - cardinality(r.counts)
                                                        AND x <= r.second
                                                   THEN r.counts[(x - r.second
                                                                  + cardinality(r.counts))::int]
                                                   END, 0)
                                  FROM generate_series(greatest(r.second, args.now_s) - args.n + 1,
                                                       greatest(r.second, args.now_s)) AS x
                                  ORDER BY x) END AS counts
            ) AS s
        ) AS d
    )
    FROM args
    WHERE r.team_id = :team AND r.team_id = args.team_id AND r.api_key_id = args.api_key_id
    RETURNING r.second, r.counts, r.admitted
)
SELECT k.*, counted.second, counted.counts, counted.admitted
FROM k LEFT JOIN counted ON true;

BEGIN;

SELECT runs.team_id, runs.id, runs.template_id, runs.template_version, runs.title, runs.status,
       runs.started_by, runs.timezone, runs.due_date, runs.is_shared, runs.open_tasks,
       runs.created_at, runs.updated_at, runs.completed_at,
       run_tasks.team_id, run_tasks.run_id, run_tasks.id, run_tasks.template_task_id,
       run_tasks.section_id, run_tasks.title, run_tasks.position, run_tasks.state,
       run_tasks.completed_at, run_tasks.completed_by, run_tasks.assignee, run_tasks.is_essential,
       run_tasks.task_type, run_tasks.due_date, run_tasks.webhook_enabled, run_tasks.decision,
       run_tasks.comment, run_tasks.custom_elements, run_tasks.created_at
FROM runs
INNER JOIN run_tasks ON run_tasks.team_id = runs.team_id AND run_tasks.run_id = runs.id
WHERE runs.team_id = :team AND runs.id = bench.uuid(:run_ms, :pool_tag, 0)
  AND run_tasks.id = bench.uuid(:run_ms, :pool_tag, :task_n)
LIMIT 1 FOR UPDATE;

\startpipeline

UPDATE run_tasks
SET state = 'completed', completed_at = now(), completed_by = 'api', assignee = NULL,
    decision = NULL, comment = NULL, custom_elements = custom_elements
WHERE run_tasks.team_id = :team AND run_tasks.run_id = bench.uuid(:run_ms, :pool_tag, 0)
  AND run_tasks.id = bench.uuid(:run_ms, :pool_tag, :task_n);

UPDATE runs
SET status = 'active', is_shared = false, open_tasks = open_tasks - 1, updated_at = now(),
    completed_at = NULL
WHERE runs.team_id = :team AND runs.id = bench.uuid(:run_ms, :pool_tag, 0);

-- One id for the row and its payload: the worker marks an event dispatched by its id.
INSERT INTO outbox (id, team_id, kind, payload, occurred_at, due_at)
SELECT e.id, :team, 'process_step.completed',
        jsonb_build_object(
            'version', 4, 'id', e.id, 'team_id', CAST(:team AS uuid),
            'occurred_at', now(), 'payload', jsonb_build_object(
                'kind', 'task_completed', 'task', jsonb_build_object(
                    'id', bench.uuid(:run_ms, :pool_tag, :task_n), 'title', 'Task',
                    'assignee', NULL, 'completed', true,
                    'instance_id', bench.uuid(:run_ms, :pool_tag, 0),
                    'completed_at', now(), 'completed_by', 'api', 'webhook_enabled', false,
                    'template_task_id', gen_random_uuid(), 'section_id', gen_random_uuid(),
                    'due_date', NULL))),
        now(), now()
FROM (SELECT gen_random_uuid() AS id) AS e;

\endpipeline

COMMIT;
