-- SQL floor of the inbox rows (issue 23): GET /api/v1/tasks?assignee=<member id>&limit=20
--   (the first page of one assignee's open tasks across the team's runs, by due date then id).
--
-- The statements procflow runs for that request (captured with log_statement=all; see
-- crates/procflow-postgres/src/store/{rate_limits,inbox}.rs), each in autocommit: the
-- admission (API key lookup and rate-limit decision in one statement; the key's team comes
-- from the token directory, read once per key and process, so not on a measured request),
-- then the page (limit + 1 = 21 rows), both as the service sends them, every value a bound
-- parameter (pgbench -M prepared binds each :variable). One deviation: the service binds the
-- request's second from its clock ($2 of the admission); here PostgreSQL's
-- statement_timestamp() gives it.
--
-- Run with -M prepared and:
--   -D team=<team uuid> -D key_tag=<tag> -D nkeys=<keys> -D limit=<rate limit>
--   -D assignee=<the member's user id> -D task_state=open -D active=active
-- bench/inbox.sh also runs the page statement (between the page markers) with psql, to check
-- that it reads 21 rows and for its EXPLAIN.

\set k random(1, :nkeys)
\set window 60
\set hidden false
\set page_limit 21

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
           set_config('synchronous_commit', 'off', true) AS async_commit
    FROM k WHERE k.subscription = :active
), counted AS (
    UPDATE rate_limits AS r
    SET (second, counts, admitted) = (
        SELECT d.newest,
               CASE WHEN d.total < :limit
                    THEN d.counts[ : d.at - 1] || (d.counts[d.at] + 1) || d.counts[d.at + 1:]
                    ELSE d.counts END,
               d.total < :limit
        FROM (
            SELECT s.newest, s.counts,
                   (SELECT coalesce(sum(c), 0) FROM unnest(s.counts) AS c) AS total,
                   greatest(1, :window + floor(extract(epoch FROM statement_timestamp()))::bigint - s.newest)::int AS at
            FROM (
                SELECT greatest(r.second, floor(extract(epoch FROM statement_timestamp()))::bigint) AS newest,
                       CASE WHEN r.second >= floor(extract(epoch FROM statement_timestamp()))::bigint AND cardinality(r.counts) = :window THEN r.counts
                       ELSE ARRAY(SELECT coalesce(CASE WHEN x > r.second - cardinality(r.counts)
                                                        AND x <= r.second
                                                   THEN r.counts[(x - r.second
                                                                  + cardinality(r.counts))::int]
                                                   END, 0)
                                  FROM generate_series(greatest(r.second, floor(extract(epoch FROM statement_timestamp()))::bigint) - :window + 1,
                                                       greatest(r.second, floor(extract(epoch FROM statement_timestamp()))::bigint)) AS x
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

-- page:begin
SELECT "run_tasks"."team_id", "run_tasks"."run_id", "run_tasks"."id", "run_tasks"."template_task_id", "run_tasks"."section_id", "run_tasks"."title", "run_tasks"."position", "run_tasks"."state", "run_tasks"."completed_at", "run_tasks"."completed_by", "run_tasks"."assignee", "run_tasks"."is_essential", "run_tasks"."task_type", "run_tasks"."due_date", "run_tasks"."webhook_enabled", "run_tasks"."decision", "run_tasks"."comment", "run_tasks"."custom_elements", "run_tasks"."created_at", "run_tasks"."reference", "run_tasks"."depends_on", "run_tasks"."hidden", "run_tasks"."blocked", "runs"."title" FROM ("run_tasks" INNER JOIN "runs" ON (("runs"."team_id" = "run_tasks"."team_id") AND ("runs"."id" = "run_tasks"."run_id"))) WHERE (((((("run_tasks"."team_id" = :team) AND ("runs"."team_id" = :team)) AND ("run_tasks"."hidden" = :hidden)) AND ("run_tasks"."state" = :task_state)) AND ("runs"."status" = :active)) AND ("run_tasks"."assignee" = :assignee)) ORDER BY COALESCE(run_tasks.due_date, 'infinity'::timestamptz) ASC, "run_tasks"."id" ASC LIMIT :page_limit;
-- page:end
