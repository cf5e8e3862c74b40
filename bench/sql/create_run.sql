-- SQL floor of scenario 1: POST /api/v1/process-runs
--   (a run from a published template of 50 tasks x 3 form fields, 5 values pre-filled).
--
-- The statements procflow runs for that request, in the same order and transaction shape
-- (captured with log_statement=all; see crates/procflow-postgres/src/store/{teams,rate_limits,
-- templates,runs}.rs):
--   autocommit: admission (API key lookup and rate-limit decision in one statement); the
--   template header, its sections and its tasks, sent together (pipelined, as diesel-async
--   does for futures joined on one connection);
--   one transaction: INSERT runs, INSERT run_sections (5 rows), INSERT run_tasks (50 rows),
--   INSERT outbox (the run_created event), the four sent together (pipelined).
--
-- Differences, on purpose:
--   - The service sends the 5 section and 50 task rows as arrays, one per column, to a prepared
--     INSERT ... SELECT FROM unnest(...), built from the template it read; here they are
--     copied with INSERT ... SELECT from the template, the 5 pre-filled values set with
--     jsonb_set. Same rows written, the template read once more on the database side instead
--     of ~20 kB of parameters decoded.
--   - Ids are made by bench.uuid() from the client's number and a counter (the service makes
--     UUIDv7 ids in Rust), in the same increasing order.
--   - The event is a valid stored event (procflow_domain::event, version 4), its task_count the
--     template's 50 written as a constant (the service counts the tasks it copied).
--
-- Run with -M prepared (the service's statements are prepared too) and:
--   -D team=<team uuid> -D tpl=<template uuid> -D key_tag=<tag> -D nkeys=<keys>
--   -D limit=<rate limit> -D base=<epoch ms, now> -D ctag=<16 x the invocation number> -D i=0
-- Keys are bench.make_keys() keys: each transaction uses one at random, as the load does.

\set k random(1, :nkeys)
\set i :i + 1
\set ms :base + :i
\set tag :ctag + :client_id

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

\startpipeline

SELECT templates.team_id, templates.id, templates.title, templates.description,
       templates.cover_image, templates.icon, templates.icon_type, templates.is_published,
       templates.version, templates.created_at, templates.updated_at, templates.archived_at
FROM templates
WHERE templates.team_id = :team AND templates.id = :tpl AND templates.archived_at IS NULL
LIMIT 1;

SELECT template_sections.team_id, template_sections.template_id, template_sections.id,
       template_sections.title, template_sections.description, template_sections.position,
       template_sections.color
FROM template_sections
WHERE template_sections.team_id = :team AND template_sections.template_id = ANY(ARRAY[CAST(:tpl AS uuid)])
ORDER BY template_sections.template_id, template_sections.position;

SELECT template_tasks.team_id, template_tasks.template_id, template_tasks.id,
       template_tasks.section_id, template_tasks.title, template_tasks.position,
       template_tasks.assignee, template_tasks.is_essential, template_tasks.task_type,
       template_tasks.due_date, template_tasks.webhook_enabled, template_tasks.custom_elements,
       template_tasks.created_at
FROM template_tasks
WHERE template_tasks.team_id = :team AND template_tasks.template_id = :tpl
ORDER BY template_tasks.position;

\endpipeline

BEGIN;

\startpipeline

INSERT INTO runs (team_id, id, template_id, template_version, title, status, started_by, timezone,
                  due_date, is_shared, open_tasks, created_at, updated_at, completed_at)
VALUES (:team, bench.uuid(:ms, :tag, 0), :tpl, 1, 'Bench run', 'active', 'api', 'UTC',
        DEFAULT, false, 50, now(), DEFAULT, DEFAULT);

INSERT INTO run_sections (team_id, run_id, id, title, description, position, color)
SELECT :team, bench.uuid(:ms, :tag, 0), s.id, s.title, s.description, s.position, s.color
FROM template_sections s
WHERE s.team_id = :team AND s.template_id = :tpl;

INSERT INTO run_tasks (team_id, run_id, id, template_task_id, section_id, title, position, state,
                       completed_at, completed_by, assignee, is_essential, task_type, due_date,
                       webhook_enabled, decision, comment, custom_elements, created_at)
SELECT :team, bench.uuid(:ms, :tag, 0), bench.uuid(:ms, :tag, t.position + 1), t.id,
       t.section_id, t.title, t.position, 'open', NULL, NULL, NULL, t.is_essential,
       t.task_type, NULL, t.webhook_enabled, NULL, NULL,
       CASE WHEN t.position < 5
            THEN jsonb_set(t.custom_elements, '{0,value}', to_jsonb('Prefilled ' || t.position))
            ELSE t.custom_elements END,
       now()
FROM template_tasks t
WHERE t.team_id = :team AND t.template_id = :tpl;

INSERT INTO outbox (id, team_id, kind, payload, occurred_at, due_at)
VALUES (bench.uuid(:ms, :tag, 4095), :team, 'process_run.created',
        jsonb_build_object(
            'version', 4, 'id', bench.uuid(:ms, :tag, 4095), 'team_id', CAST(:team AS uuid),
            'occurred_at', now(), 'payload', jsonb_build_object(
                'kind', 'run_created', 'task_count', 50, 'run', jsonb_build_object(
                    'id', bench.uuid(:ms, :tag, 0), 'title', 'Bench run',
                    'status', 'active', 'team_id', CAST(:team AS uuid), 'timezone', 'UTC',
                    'created_at', now(), 'started_by', 'api', 'template_id', CAST(:tpl AS uuid),
                    'completed_at', NULL, 'due_date', NULL, 'is_shared', false))),
        now(), now());

\endpipeline

COMMIT;
