-- SQL floor of scenario 3: GET /api/v1/process-runs/:id/tasks?limit=50
--   (the 50 tasks of one run, each with its 3 form fields).
--
-- The statements procflow runs for that request (captured with log_statement=all; see
-- crates/procflow-postgres/src/store/task_page.rs, FirstTasks), each in autocommit: the admission
-- (API key lookup and rate-limit decision in one statement), the run's tasks by position
-- (limit + 1 = 51 rows asked, 50 found).
--
-- Run with -M prepared and:
--   -D team=<team uuid> -D key_tag=<tag> -D nkeys=<keys> -D limit=<rate limit> -D run=<run uuid>


\set page_limit 51

-- @admission: bench/sql/admission.sql, the same statement as the service's (bench/run.sh puts it here)

SELECT run_tasks.team_id, run_tasks.run_id, run_tasks.id, run_tasks.template_task_id,
       run_tasks.section_id, run_tasks.title, run_tasks.position, run_tasks.state,
       run_tasks.completed_at, run_tasks.completed_by, run_tasks.assignee, run_tasks.is_essential,
       run_tasks.task_type, run_tasks.due_date, run_tasks.webhook_enabled, run_tasks.decision,
       run_tasks.comment, run_tasks.custom_elements, run_tasks.created_at, run_tasks.reference,
       run_tasks.depends_on, run_tasks.hidden, run_tasks.blocked
FROM run_tasks
WHERE run_tasks.team_id = :team AND run_tasks.run_id = :run
ORDER BY run_tasks.position
LIMIT :page_limit;
