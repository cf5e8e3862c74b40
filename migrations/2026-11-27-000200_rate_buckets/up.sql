-- Rate-limit counts at a resolution of one second (API contract 3, 7.1): instead of the
-- timestamps of every accepted request in the window (an array rewritten by each request,
-- as long as the limit allows), each row keeps one counter per second of the window.
-- `counts[i]` holds the requests of second `second - cardinality(counts) + i` (Unix seconds),
-- the last counter being `second`, the newest second counted. The cost of admitting a request
-- no longer grows with the limit or with the key's own traffic.
--
-- Seconds are computed from intervals since the epoch (immutable arithmetic), not with
-- extract() on a timestamptz (stable), so that the data fix also runs where the table is
-- distributed (Citus refuses stable functions on columns in an UPDATE).

-- API keys: `admitted` is the decision of the latest request (the admission's UPDATE ...
-- RETURNING sees only the new row, and must say whether it counted the request).
ALTER TABLE rate_limits
    ADD COLUMN second   bigint    NOT NULL DEFAULT 0,
    ADD COLUMN counts   integer[] NOT NULL DEFAULT '{}',
    ADD COLUMN admitted boolean   NOT NULL DEFAULT false;

WITH per_second AS (
    SELECT r.team_id, r.api_key_id,
           floor(extract(epoch FROM (h - timestamptz '1970-01-01 00:00:00+00')))::bigint AS s,
           count(*)::integer AS n
    FROM rate_limits AS r, unnest(r.hits) AS h
    GROUP BY 1, 2, 3
), newest AS (
    SELECT team_id, api_key_id, max(s) AS newest FROM per_second GROUP BY 1, 2
), counted AS (
    SELECT w.team_id, w.api_key_id, w.newest, array_agg(coalesce(p.n, 0) ORDER BY x) AS counts
    FROM newest AS w
    CROSS JOIN LATERAL generate_series(w.newest - 59, w.newest) AS x
    LEFT JOIN per_second AS p
        ON p.team_id = w.team_id AND p.api_key_id = w.api_key_id AND p.s = x
    GROUP BY w.team_id, w.api_key_id, w.newest
)
UPDATE rate_limits AS r SET second = c.newest, counts = c.counts
FROM counted AS c
WHERE r.team_id = c.team_id AND r.api_key_id = c.api_key_id;

ALTER TABLE rate_limits DROP COLUMN hits;

-- Every usable key has its row from now on (the store creates it with the key), so that the
-- admission is one UPDATE of an existing row: no INSERT, no creation race.
INSERT INTO rate_limits (team_id, api_key_id)
SELECT team_id, id FROM api_keys WHERE revoked_at IS NULL
ON CONFLICT (team_id, api_key_id) DO NOTHING;

-- Guest post limits: the same counters per name; `second` (the newest second counted, or the
-- one the row was made in) is what idle rows are swept by.
ALTER TABLE rate_windows
    ADD COLUMN second bigint    NOT NULL DEFAULT 0,
    ADD COLUMN counts integer[] NOT NULL DEFAULT '{}';

WITH per_second AS (
    SELECT r.name,
           floor(extract(epoch FROM (h - timestamptz '1970-01-01 00:00:00+00')))::bigint AS s,
           count(*)::integer AS n
    FROM rate_windows AS r, unnest(r.hits) AS h
    GROUP BY 1, 2
), newest AS (
    SELECT name, max(s) AS newest FROM per_second GROUP BY 1
), counted AS (
    SELECT w.name, w.newest, array_agg(coalesce(p.n, 0) ORDER BY x) AS counts
    FROM newest AS w
    CROSS JOIN LATERAL generate_series(w.newest - 59, w.newest) AS x
    LEFT JOIN per_second AS p ON p.name = w.name AND p.s = x
    GROUP BY w.name, w.newest
)
UPDATE rate_windows AS r SET second = c.newest, counts = c.counts
FROM counted AS c
WHERE r.name = c.name;

UPDATE rate_windows
SET second = floor(extract(epoch FROM (last_hit - timestamptz '1970-01-01 00:00:00+00')))::bigint
WHERE cardinality(hits) = 0;

DROP INDEX rate_windows_idle;
ALTER TABLE rate_windows DROP COLUMN hits, DROP COLUMN last_hit;
CREATE INDEX rate_windows_idle ON rate_windows (second);
