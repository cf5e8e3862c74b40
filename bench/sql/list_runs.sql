-- SQL floor of scenario 4: GET /api/v1/process-runs?limit=20&cursor=<run id>
--   (a page of 20 runs, newest first, after a cursor in the middle of a team of 1,000,000 runs).
--
-- The statements procflow runs for that request (captured with log_statement=all; see
-- crates/procflow-postgres/src/store/runs.rs, list_runs), each in autocommit: the admission
-- (API key lookup and rate-limit decision in one statement), the page (limit + 1 = 21 rows,
-- the cursor's existence checked in the same statement), the sections of those 21 runs.
--
-- The service passes the 21 ids it just read to the sections query; here they come ready in
-- :page_ids ('{uuid,...}', computed by bench/run.sh with the page query), the same values.
--
-- Run with -M prepared and:
--   -D team=<team uuid> -D key_tag=<tag> -D nkeys=<keys> -D limit=<rate limit>
--   -D cursor=<run uuid> -D page_ids=<'{...}' of the 21 run ids of the page>

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

SELECT runs.team_id, runs.id, runs.template_id, runs.template_version, runs.title, runs.status,
       runs.started_by, runs.timezone, runs.due_date, runs.is_shared, runs.open_tasks,
       runs.created_at, runs.updated_at, runs.completed_at
FROM runs
WHERE runs.team_id = :team AND runs.id < :cursor
  AND EXISTS (SELECT runs.id FROM runs WHERE runs.team_id = :team AND runs.id = :cursor)
ORDER BY runs.id DESC
LIMIT 21;

SELECT run_sections.team_id, run_sections.run_id, run_sections.id, run_sections.title,
       run_sections.description, run_sections.position, run_sections.color
FROM run_sections
WHERE run_sections.team_id = :team AND run_sections.run_id = ANY(CAST(:page_ids AS uuid[]))
ORDER BY run_sections.run_id, run_sections.position;
