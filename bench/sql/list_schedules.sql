-- SQL floor of the schedule row S0: GET /api/v1/schedules?limit=20 (the first page of the team's
--   25 schedules, oldest first).
--
-- The statements procflow runs for that request (captured with log_statement=all; see
-- crates/procflow-postgres/src/store/schedules.rs, list_schedules_on), each in autocommit: the
-- admission (API key lookup and rate-limit decision in one statement), the page (limit + 1 = 21
-- rows asked).
--
-- Run with -M prepared and:
--   -D team=<team uuid> -D key_tag=<tag> -D nkeys=<keys> -D limit=<rate limit>

\set page_limit 21

-- @admission: bench/sql/admission.sql, the same statement as the service's (bench/run.sh puts it here)

SELECT "schedules"."team_id", "schedules"."id", "schedules"."template_id", "schedules"."name",
       "schedules"."recurrence", "schedules"."timezone", "schedules"."enabled", "schedules"."run",
       "schedules"."next_run_at", "schedules"."last_run_at", "schedules"."last_run_id",
       "schedules"."last_error", "schedules"."missed_count", "schedules"."revision",
       "schedules"."created_at", "schedules"."updated_at"
FROM "schedules"
WHERE ("schedules"."team_id" = :team)
ORDER BY "schedules"."id"
LIMIT :page_limit;
