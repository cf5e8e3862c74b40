-- procflow bench: helper functions for seeding and for the pgbench "SQL floor" scripts.
--
-- Loaded once into the bench's own throwaway database by bench/run.sh, after `procflow migrate`.
-- Everything lives in the schema `bench`; nothing here is part of the product.
--
-- Seeding is set-based (INSERT ... SELECT generate_series), one statement per table, so a
-- million runs take seconds rather than the hours a million POSTs would.
--
-- Ids. The service makes UUIDv7 ids (48-bit millisecond timestamp first), so "newest first" is
-- `ORDER BY id DESC`. Seeded rows get UUIDv7-shaped ids built from an explicit millisecond
-- timestamp, `bench.uuid(ms, tag, n)`:
--
--     tttttttt-tttt-7ggg-8nnn-nnnnnnnnnnnn     t: ms (48 bits)  g: tag (12 bits)  n: n (60 bits)
--
-- Each seeded pool of runs takes its own range of milliseconds in the past (run i of a pool is
-- at `first_ms + i`), so seeded runs are ordered by their index and older than every run the
-- API creates. A run's id is `bench.uuid(ms, tag, 0)`; its task at position p is
-- `bench.uuid(ms, tag, p + 1)`. The pgbench scripts compute the same ids from integers, so they
-- need no lookup table.
--
-- Shortcut (documented in bench/README.md): runs seeded with `with_tasks => false` get their
-- run_sections (copied from the template, as the service does) but no run_tasks rows, although
-- their open_tasks says 50. Only the list-runs and get-run scenarios read them, and those read
-- runs and run_sections, never run_tasks. Every run whose tasks a scenario touches is seeded
-- complete.

CREATE SCHEMA IF NOT EXISTS bench;

-- A UUIDv7-shaped id from a millisecond timestamp, a 12-bit tag and a 60-bit number.
CREATE OR REPLACE FUNCTION bench.uuid(ms bigint, tag integer, n bigint) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (lpad(to_hex(ms), 12, '0') || '7' || lpad(to_hex(tag & 4095), 3, '0')
            || '8' || lpad(to_hex(n), 15, '0'))::uuid
$$;

-- Unix epoch milliseconds of a moment.
CREATE OR REPLACE FUNCTION bench.ms(at timestamptz) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (extract(epoch FROM at) * 1000)::bigint
$$;

-- API keys of a team made in SQL: secret 'pf_live_bench_<tag>_<n>', id bench.uuid(tag, 4094, n),
-- n = 1..count. The service hashes the bearer token with SHA-256 and looks the hash up, so any
-- secret works; these are predictable on purpose (a throwaway database on 127.0.0.1).
-- (PL/pgSQL, as the other seeding functions: Citus cannot plan a distributed statement that
-- uses a parameter of an SQL function.)
CREATE OR REPLACE FUNCTION bench.make_keys(team uuid, admin uuid, tag integer, count integer)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO api_keys (team_id, id, name, prefix, key_hash, created_by, created_at)
    SELECT team, bench.uuid(tag, 4094, n), 'bench ' || n, 'pf_live_benc',
           sha256(convert_to('pf_live_bench_' || tag || '_' || n, 'UTF8')), admin, now()
    FROM generate_series(1, count) AS n;
    -- Each key's rate-limit row, as the store makes it with a key.
    INSERT INTO rate_limits (team_id, api_key_id)
    SELECT team, bench.uuid(tag, 4094, n) FROM generate_series(1, count) AS n;
    -- And its entry in the token directory (migration citus_ready), where the service finds
    -- the team a key belongs to: without it every bench key answers 401.
    INSERT INTO token_directory (kind, digest, team_id)
    SELECT 'api_key', encode(sha256(convert_to('pf_live_bench_' || tag || '_' || n, 'UTF8')), 'hex'), team
    FROM generate_series(1, count) AS n;
END
$$;

-- `count` active runs of a published template, run i (0-based) at millisecond first_ms + i,
-- with the template's sections (same ids, as the service copies them) and, when with_tasks,
-- its tasks (state open, custom elements copied, so every value is null). Returns the number
-- of runs written.
CREATE OR REPLACE FUNCTION bench.seed_runs(team uuid, template uuid, tag integer, count integer,
                                           first_ms bigint, with_tasks boolean)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    task_count integer;
    version integer;
BEGIN
    SELECT t.version INTO version FROM templates t WHERE t.team_id = team AND t.id = template;
    SELECT count(*) INTO task_count
    FROM template_tasks tt WHERE tt.team_id = team AND tt.template_id = template;

    INSERT INTO runs (team_id, id, template_id, template_version, title, status, started_by,
                      timezone, open_tasks, created_at)
    SELECT team, bench.uuid(first_ms + i, tag, 0), template, version, 'Seeded run ' || i,
           'active', 'api', 'UTC', task_count, to_timestamp((first_ms + i) / 1000.0)
    FROM generate_series(0, count - 1) AS i;

    INSERT INTO run_sections (team_id, run_id, id, title, description, position, color)
    SELECT team, bench.uuid(first_ms + i, tag, 0), s.id, s.title, s.description, s.position,
           s.color
    FROM generate_series(0, count - 1) AS i
    CROSS JOIN template_sections s
    WHERE s.team_id = team AND s.template_id = template;

    IF with_tasks THEN
        INSERT INTO run_tasks (team_id, run_id, id, template_task_id, section_id, title,
                               position, state, assignee, is_essential, task_type,
                               webhook_enabled, custom_elements, created_at)
        SELECT team, bench.uuid(first_ms + i, tag, 0), bench.uuid(first_ms + i, tag, t.position + 1),
               t.id, t.section_id, t.title, t.position, 'open', NULL, t.is_essential,
               t.task_type, t.webhook_enabled, t.custom_elements,
               to_timestamp((first_ms + i) / 1000.0)
        FROM generate_series(0, count - 1) AS i
        CROSS JOIN template_tasks t
        WHERE t.team_id = team AND t.template_id = template;
    END IF;
    RETURN count;
END
$$;

-- The (run, task) pairs of a pool seeded with tasks, in the order the task scenarios use them:
-- index k takes run k % runs and position k / runs, so consecutive requests touch different
-- runs (little lock contention on the run row), and positions stay below `positions` (below
-- the task count: no run of the pool is ever completed by the scenario).
CREATE OR REPLACE FUNCTION bench.task_order(tag integer, runs integer, positions integer,
                                            first_ms bigint)
RETURNS TABLE (k bigint, run_id uuid, task_id uuid) LANGUAGE sql AS $$
    SELECT k, bench.uuid(first_ms + k % runs, tag, 0), bench.uuid(first_ms + k % runs, tag, k / runs + 1)
    FROM generate_series(0::bigint, runs::bigint * positions - 1) AS k
$$;

-- The inbox rows (issue 23): `per_run` tasks (positions 0 .. per_run - 1 of the template) for
-- each of `count` runs already seeded as pool `tag` at first_ms + i without their tasks, with
-- the ids seed_runs would give them. One task in ten (by run and position) is the assignee's
-- whose page is measured, the others go to nine other assignees; every other task has a due
-- date a month ahead (spread over 1,000 minutes, never overdue during the bench, so the
-- overdue notices stay idle), the rest none. Returns the number of tasks written.
CREATE OR REPLACE FUNCTION bench.seed_inbox_tasks(team uuid, template uuid, tag integer,
                                                  count integer, first_ms bigint,
                                                  per_run integer, who text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    written bigint;
BEGIN
    INSERT INTO run_tasks (team_id, run_id, id, template_task_id, section_id, title,
                           position, state, assignee, is_essential, task_type,
                           webhook_enabled, custom_elements, created_at, due_date)
    SELECT team, bench.uuid(first_ms + i, tag, 0), bench.uuid(first_ms + i, tag, t.position + 1),
           t.id, t.section_id, t.title, t.position, 'open',
           CASE WHEN (i + t.position) % 10 = 0 THEN who
                ELSE 'member' || (i + t.position) % 10 || '@bench.example' END,
           t.is_essential, t.task_type, t.webhook_enabled, t.custom_elements,
           to_timestamp((first_ms + i) / 1000.0),
           CASE WHEN t.position % 2 = 0
                THEN now() + interval '30 days' + ((i * 7 + t.position) % 1000) * interval '1 minute' END
    FROM generate_series(0, count - 1) AS i
    CROSS JOIN template_tasks t
    WHERE t.team_id = team AND t.template_id = template AND t.position < per_run;
    GET DIAGNOSTICS written = ROW_COUNT;
    RETURN written;
END
$$;

-- The scheduler rows (issue 21): `count - 1` copies of the schedule `model` (made through the
-- API, so its stored form is the service's), ids bench.uuid(ms, 8, n); then every one of them,
-- the model too, due at `due` on a daily recurrence starting there (UTC). Returns how many
-- schedules are due.
CREATE OR REPLACE FUNCTION bench.seed_schedules(team uuid, model uuid, count integer,
                                                due timestamptz)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
BEGIN
    INSERT INTO schedules (team_id, id, template_id, name, recurrence, timezone, enabled, run,
                           next_run_at, created_at, updated_at)
    SELECT s.team_id, bench.uuid(bench.ms(now()), 8, k), s.template_id, s.name || ' ' || k,
           s.recurrence, s.timezone, true, s.run, s.next_run_at, now(), now()
    FROM schedules s CROSS JOIN generate_series(1, count - 1) AS k
    WHERE s.team_id = team AND s.id = model;
    UPDATE schedules
    SET recurrence = 'DTSTART:' || to_char(due AT TIME ZONE 'UTC', 'YYYYMMDD"T"HH24MISS')
                     || E'\nRRULE:FREQ=DAILY',
        timezone = 'UTC', next_run_at = due
    WHERE team_id = team;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;
