-- SQL floor of scenario 1: POST /api/v1/process-runs
--   (a run from a published template of 50 tasks x 3 form fields, 5 values pre-filled).
--
-- The statements procflow runs for that request, in the same order and transaction shape
-- (captured with log_statement=all; see crates/procflow-postgres/src/store/{teams,rate_limits,
-- templates,runs}.rs):
--   autocommit: admission (API key lookup and rate-limit decision in one statement); the
--   template's header (its sections and tasks come from the process's cache of published
--   documents, crates/procflow-postgres/src/store/documents.rs: read once per template version,
--   not per request);
--   one transaction: INSERT runs, INSERT run_sections (5 rows), INSERT run_tasks (50 rows),
--   INSERT outbox (the run_created event), the four sent together (pipelined).
--
-- The 5 section and 50 task rows go, as the service sends them, as arrays (one per column) to
-- INSERT ... SELECT * FROM unnest(...): the template's columns as array literals bench/run.sh
-- builds once from the template (-D sec_* and task_*, the 5 pre-filled values set in the
-- elements with jsonb_set), so PostgreSQL decodes the same arrays and parses the same jsonb;
-- what is new per run (the run's id repeated, the task ids, now()) is built with array_fill
-- and generate_series where the service binds arrays it filled itself.
--
-- Differences, on purpose:
--   - Parameters in text form (pgbench) where the service sends binary ones.
--   - Ids are made by bench.uuid() from the client's number and a counter (the service makes
--     UUIDv7 ids in Rust), in the same increasing order.
--   - The event is a valid stored event (procflow_domain::event, version 7), its task_count the
--     template's 50 written as a constant (the service counts the tasks it copied).
--
-- Run with -M prepared (the service's statements are prepared too) and:
--   -D team=<team uuid> -D tpl=<template uuid> -D key_tag=<tag> -D nkeys=<keys>
--   -D limit=<rate limit> -D base=<epoch ms, now> -D ctag=<16 x the invocation number> -D i=0
--   and the template's arrays: -D nsec -D sec_ids ... -D ntasks -D task_template_ids ...
--   (bench/run.sh, create_floor_arrays)
-- Keys are bench.make_keys() keys: each transaction uses one at random, as the load does.

\set i :i + 1
\set ms :base + :i
\set tag :ctag + :client_id

\set one 1

-- @admission: bench/sql/admission.sql, the same statement as the service's (bench/run.sh puts it here)

SELECT templates.team_id, templates.id, templates.title, templates.description,
       templates.cover_image, templates.icon, templates.icon_type, templates.is_published,
       templates.version, templates.created_at, templates.updated_at, templates.archived_at,
       templates.rules
FROM templates
WHERE templates.team_id = :team AND templates.id = :tpl AND templates.archived_at IS NULL
LIMIT :one;

BEGIN;

\startpipeline

INSERT INTO runs (team_id, id, template_id, template_version, title, status, started_by, timezone,
                  due_date, is_shared, open_tasks, created_at, updated_at, completed_at,
                  logic_state, logic)
VALUES (:team, bench.uuid(:ms, :tag, 0), :tpl, 1, 'Bench run', 'active', 'api', 'UTC',
        DEFAULT, false, 50, now(), DEFAULT, DEFAULT, DEFAULT, DEFAULT);

INSERT INTO run_sections (team_id, run_id, id, title, description, position, color)
SELECT * FROM unnest(array_fill(CAST(:team AS uuid), ARRAY[CAST(:nsec AS int)]),
                     array_fill(bench.uuid(:ms, :tag, 0), ARRAY[CAST(:nsec AS int)]),
                     CAST(:sec_ids AS uuid[]), CAST(:sec_titles AS text[]),
                     CAST(:sec_descriptions AS text[]), CAST(:sec_positions AS int4[]),
                     CAST(:sec_colors AS text[]));

INSERT INTO run_tasks (team_id, run_id, id, template_task_id, section_id, title, position, state,
                       completed_at, completed_by, assignee, is_essential, task_type, due_date,
                       webhook_enabled, decision, comment, custom_elements, created_at,
                       reference, depends_on, hidden, blocked)
SELECT * FROM unnest(array_fill(CAST(:team AS uuid), ARRAY[CAST(:ntasks AS int)]),
                     array_fill(bench.uuid(:ms, :tag, 0), ARRAY[CAST(:ntasks AS int)]),
                     ARRAY(SELECT bench.uuid(:ms, :tag, g) FROM generate_series(1, CAST(:ntasks AS int)) g),
                     CAST(:task_template_ids AS uuid[]), CAST(:task_sections AS uuid[]),
                     CAST(:task_titles AS text[]), CAST(:task_positions AS int4[]),
                     array_fill(CAST('open' AS text), ARRAY[CAST(:ntasks AS int)]),
                     array_fill(CAST(NULL AS timestamptz), ARRAY[CAST(:ntasks AS int)]),
                     array_fill(CAST(NULL AS text), ARRAY[CAST(:ntasks AS int)]),
                     array_fill(CAST(NULL AS text), ARRAY[CAST(:ntasks AS int)]),
                     CAST(:task_essential AS bool[]), CAST(:task_types AS text[]),
                     array_fill(CAST(NULL AS timestamptz), ARRAY[CAST(:ntasks AS int)]),
                     CAST(:task_webhooks AS bool[]),
                     array_fill(CAST(NULL AS text), ARRAY[CAST(:ntasks AS int)]),
                     array_fill(CAST(NULL AS text), ARRAY[CAST(:ntasks AS int)]),
                     CAST(:task_elements AS jsonb[]), array_fill(now(), ARRAY[CAST(:ntasks AS int)]),
                     CAST(:task_refs AS text[]), CAST(:task_depends AS jsonb[]),
                     array_fill(false, ARRAY[CAST(:ntasks AS int)]), array_fill(false, ARRAY[CAST(:ntasks AS int)]));

INSERT INTO outbox (id, team_id, kind, payload, occurred_at, due_at, webhook_event)
VALUES (bench.uuid(:ms, :tag, 4095), :team, 'process_run.created',
        jsonb_build_object(
            'version', 7, 'id', bench.uuid(:ms, :tag, 4095), 'team_id', CAST(:team AS uuid),
            'occurred_at', now(), 'payload', jsonb_build_object(
                'kind', 'run_created', 'task_count', 50, 'run', jsonb_build_object(
                    'id', bench.uuid(:ms, :tag, 0), 'title', 'Bench run',
                    'status', 'active', 'team_id', CAST(:team AS uuid), 'timezone', 'UTC',
                    'created_at', now(), 'started_by', 'api', 'template_id', CAST(:tpl AS uuid),
                    'completed_at', NULL, 'due_date', NULL, 'is_shared', false))),
        now(), now(), 'process_run.created');

\endpipeline

COMMIT;
