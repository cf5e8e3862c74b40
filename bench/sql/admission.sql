-- The admission every floor script starts with, as the service sends it before each request's
-- own statements (crates/procflow-postgres/src/store/rate_limits.rs, `ADMIT`): the API key
-- found by its team and hash, and, its team being active, the request counted in the key's row
-- of per-second counters, in one statement committed asynchronously. The key's team comes from
-- the token directory, read once per key and process, so not on a measured request.
--
-- bench/run.sh puts this file in place of the line `-- @admission` of each floor script
-- (pgbench has no include). One deviation: the service binds the request's second from its
-- clock ($2); here PostgreSQL's statement_timestamp() gives it.
-- The unit test `the_bench_floor_sends_this_admission` (crates/procflow-postgres, rate_limits.rs)
-- fails when the two differ in anything else: change them together.
--
-- Variables: -D team=<team uuid> -D key_tag=<tag> -D nkeys=<keys> -D limit=<rate limit>
-- -D active=active; a random key of the nkeys each time.

\set k random(1, :nkeys)
\set window 60

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
