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


\set page_limit 21

-- @admission: bench/sql/admission.sql, the same statement as the service's (bench/run.sh puts it here)

SELECT runs.team_id, runs.id, runs.template_id, runs.template_version, runs.title, runs.status,
       runs.started_by, runs.timezone, runs.due_date, runs.is_shared, runs.open_tasks,
       runs.created_at, runs.updated_at, runs.completed_at, runs.logic_state, runs.logic
FROM runs
WHERE runs.team_id = :team AND runs.id < :cursor
  AND EXISTS (SELECT runs.id FROM runs WHERE runs.team_id = :team AND runs.id = :cursor)
ORDER BY runs.id DESC
LIMIT :page_limit;

SELECT run_sections.team_id, run_sections.run_id, run_sections.id, run_sections.title,
       run_sections.description, run_sections.position, run_sections.color
FROM run_sections
WHERE run_sections.team_id = :team AND run_sections.run_id = ANY(CAST(:page_ids AS uuid[]))
ORDER BY run_sections.run_id, run_sections.position;
