-- SQL floor of the comment row C2: GET /api/v1/process-runs/:id/tasks/:task_id/comments?limit=20
--   (the first page of a task's thread of 25 comments, oldest first).
--
-- The statements procflow runs for that request (captured with log_statement=all; see
-- crates/procflow-postgres/src/store/comments.rs, list_comments_on), each in autocommit: the
-- admission (API key lookup and rate-limit decision in one statement), the thread's page
-- (limit + 1 = 21 rows asked). A page with comments asks nothing more: the run and the task are
-- looked up only when the page is empty, and the attachments only when a comment names some
-- (none here).
--
-- Run with -M prepared and:
--   -D team=<team uuid> -D key_tag=<tag> -D nkeys=<keys> -D limit=<rate limit>
--   -D run=<run uuid> -D task=<task uuid>

\set page_limit 21

-- @admission: bench/sql/admission.sql, the same statement as the service's (bench/run.sh puts it here)

SELECT "task_comments"."team_id", "task_comments"."id", "task_comments"."run_id",
       "task_comments"."task_id", "task_comments"."author", "task_comments"."author_email",
       "task_comments"."body", "task_comments"."mentions", "task_comments"."deleted",
       "task_comments"."created_at", "task_comments"."edited_at", "task_comments"."attachment_ids"
FROM "task_comments"
WHERE ((("task_comments"."team_id" = :team) AND ("task_comments"."run_id" = :run))
  AND ("task_comments"."task_id" = :task))
ORDER BY "task_comments"."id"
LIMIT :page_limit;
