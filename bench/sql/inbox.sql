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

\set hidden false
\set page_limit 21

-- @admission: bench/sql/admission.sql, the same statement as the service's (bench/run.sh puts it here)

-- page:begin
SELECT "run_tasks"."team_id", "run_tasks"."run_id", "run_tasks"."id", "run_tasks"."template_task_id", "run_tasks"."section_id", "run_tasks"."title", "run_tasks"."position", "run_tasks"."state", "run_tasks"."completed_at", "run_tasks"."completed_by", "run_tasks"."assignee", "run_tasks"."is_essential", "run_tasks"."task_type", "run_tasks"."due_date", "run_tasks"."webhook_enabled", "run_tasks"."decision", "run_tasks"."comment", "run_tasks"."custom_elements", "run_tasks"."created_at", "run_tasks"."reference", "run_tasks"."depends_on", "run_tasks"."hidden", "run_tasks"."blocked", "runs"."title" FROM ("run_tasks" INNER JOIN "runs" ON (("runs"."team_id" = "run_tasks"."team_id") AND ("runs"."id" = "run_tasks"."run_id"))) WHERE (((((("run_tasks"."team_id" = :team) AND ("runs"."team_id" = :team)) AND ("run_tasks"."hidden" = :hidden)) AND ("run_tasks"."state" = :task_state)) AND ("runs"."status" = :active)) AND ("run_tasks"."assignee" = :assignee)) ORDER BY COALESCE(run_tasks.due_date, 'infinity'::timestamptz) ASC, "run_tasks"."id" ASC LIMIT :page_limit;
-- page:end
