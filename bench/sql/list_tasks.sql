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

SELECT run_tasks.team_id, run_tasks.run_id, run_tasks.id, run_tasks.template_task_id,
       run_tasks.section_id, run_tasks.title, run_tasks.position, run_tasks.state,
       run_tasks.completed_at, run_tasks.completed_by, run_tasks.assignee, run_tasks.is_essential,
       run_tasks.task_type, run_tasks.due_date, run_tasks.webhook_enabled, run_tasks.decision,
       run_tasks.comment, run_tasks.custom_elements, run_tasks.created_at
FROM run_tasks
WHERE run_tasks.team_id = :team AND run_tasks.run_id = :run
ORDER BY run_tasks.position
LIMIT 51;
