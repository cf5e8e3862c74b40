-- Back to the timestamps of the accepted requests: each counted request becomes the start of
-- its second.
ALTER TABLE rate_windows
    ADD COLUMN hits     timestamptz[] NOT NULL DEFAULT '{}',
    ADD COLUMN last_hit timestamptz;

UPDATE rate_windows
SET last_hit = timestamptz '1970-01-01 00:00:00+00' + second * interval '1 second',
    hits = ARRAY(
        SELECT timestamptz '1970-01-01 00:00:00+00'
               + (second - cardinality(counts) + i) * interval '1 second'
        FROM generate_subscripts(counts, 1) AS i, generate_series(1, counts[i])
        ORDER BY 1);

DROP INDEX rate_windows_idle;
ALTER TABLE rate_windows ALTER COLUMN last_hit SET NOT NULL;
ALTER TABLE rate_windows DROP COLUMN second, DROP COLUMN counts;
CREATE INDEX rate_windows_idle ON rate_windows (last_hit);

ALTER TABLE rate_limits ADD COLUMN hits timestamptz[] NOT NULL DEFAULT '{}';

UPDATE rate_limits
SET hits = ARRAY(
    SELECT timestamptz '1970-01-01 00:00:00+00'
           + (second - cardinality(counts) + i) * interval '1 second'
    FROM generate_subscripts(counts, 1) AS i, generate_series(1, counts[i])
    ORDER BY 1)
WHERE cardinality(counts) > 0;

ALTER TABLE rate_limits DROP COLUMN second, DROP COLUMN counts, DROP COLUMN admitted;
