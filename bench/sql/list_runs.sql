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
