-- SQL floor of scenario 3: GET /api/v1/process-runs/:id/tasks?limit=50
--   (the 50 tasks of one run, each with its 3 form fields).
--
-- The statements procflow runs for that request (captured with log_statement=all; see
-- crates/procflow-postgres/src/store/runs.rs, list_tasks), each in autocommit: the admission
-- (API key lookup and rate-limit decision in one statement), the run's tasks by position
-- (limit + 1 = 51 rows asked, 50 found).
--
-- Run with -M prepared and:
--   -D team=<team uuid> -D key_tag=<tag> -D nkeys=<keys> -D limit=<rate limit> -D run=<run uuid>

\set k random(1, :nkeys)

-- Admission: the API key found by its hash and, its team being active, the request counted in
-- the key's rolling window, in one statement committed asynchronously (see
-- crates/procflow-postgres/src/store/rate_limits.rs).
WITH k AS (
    SELECT api_keys.team_id, api_keys.id AS key_id, api_keys.name AS key_name,
           api_keys.prefix, api_keys.key_hash, api_keys.created_by,
           api_keys.created_at AS key_created_at, api_keys.revoked_at,
           teams.name AS team_name, teams.base_url, teams.timezone, teams.subscription,
           teams.created_at AS team_created_at
    FROM api_keys JOIN teams ON teams.id = api_keys.team_id
    WHERE api_keys.key_hash = sha256(convert_to('pf_live_bench_' || :key_tag || '_' || :k, 'UTF8'))
      AND api_keys.revoked_at IS NULL
), args AS (
    SELECT k.team_id, k.key_id AS api_key_id, clock_timestamp() AS now,
           clock_timestamp() - interval '60 seconds' AS since, CAST(:limit AS bigint) AS lim,
           set_config('synchronous_commit', 'off', true) AS async_commit
    FROM k WHERE k.subscription = 'active'
), old AS (
    SELECT r.hits FROM rate_limits AS r JOIN args USING (team_id, api_key_id) FOR UPDATE OF r
), counted AS MATERIALIZED (
    SELECT old.hits AS before, args.now, args.lim,
           ARRAY(SELECT h FROM unnest(old.hits) AS h WHERE h > args.since
                 ORDER BY h DESC LIMIT args.lim) AS hits
    FROM old, args
), decided AS (
    SELECT before, cardinality(hits) < lim AS allowed,
           ARRAY(SELECT h FROM unnest(CASE WHEN cardinality(hits) < lim THEN hits || now ELSE hits END)
                     AS h ORDER BY h) AS hits
    FROM counted
), updated AS (
    UPDATE rate_limits AS r SET hits = decided.hits
    FROM decided, args
    WHERE r.team_id = args.team_id AND r.api_key_id = args.api_key_id
      AND (decided.allowed OR decided.hits IS DISTINCT FROM decided.before)
), inserted AS (
    INSERT INTO rate_limits (team_id, api_key_id, hits)
    SELECT team_id, api_key_id, CASE WHEN lim > 0 THEN ARRAY[now] ELSE '{}' END
    FROM args WHERE NOT EXISTS (SELECT FROM old)
    ON CONFLICT (team_id, api_key_id) DO NOTHING
    RETURNING hits
), decision AS (
    SELECT allowed, cardinality(hits) AS counted, hits[1] AS oldest FROM decided
    UNION ALL
    SELECT cardinality(hits) > 0, cardinality(hits), hits[1] FROM inserted
)
SELECT k.*, decision.allowed, decision.counted, decision.oldest
FROM k LEFT JOIN decision ON true;

SELECT run_tasks.team_id, run_tasks.run_id, run_tasks.id, run_tasks.template_task_id,
       run_tasks.section_id, run_tasks.title, run_tasks.position, run_tasks.state,
       run_tasks.completed_at, run_tasks.completed_by, run_tasks.assignee, run_tasks.is_essential,
       run_tasks.task_type, run_tasks.due_date, run_tasks.webhook_enabled, run_tasks.decision,
       run_tasks.comment, run_tasks.custom_elements, run_tasks.created_at
FROM run_tasks
WHERE run_tasks.team_id = :team AND run_tasks.run_id = :run
ORDER BY run_tasks.position
LIMIT 51;
