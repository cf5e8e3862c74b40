-- SQL floor of the comment row C1: POST /api/v1/process-runs/:id/tasks/:task_id/comments
--   {"text": "..."} (a comment of 63 characters by the API, no mention, on an open task with no
--   assignee; each request a task of a pool of runs).
--
-- The statements procflow runs for that request (captured with log_statement=all; see
-- crates/procflow-domain/src/service/comments.rs, Comments::write, and
-- crates/procflow-postgres/src/store/comments.rs, add_comment), in the same order and
-- transaction shape:
--   autocommit: the admission (API key lookup and rate-limit decision in one statement); the
--   task's assignee, read alone (store/runs.rs, task_assignee; none: no member is looked up);
--   one transaction: BEGIN sent with the run's title and the task read share-locked, one round
--   trip (store/thread.rs, thread_of); then the comment's INSERT and the outbox's
--   (task.comment_created), sent together; COMMIT.
--
-- Differences, on purpose: the text says Monday where the service's says Friday (the same
-- length), so that bench/comments.sh can count what each side wrote; the comment's and the
-- event's ids are made by bench.uuid() from the moment, the client and a counter, time-ordered
-- as the service's UUIDv7 are; the event's payload is built in SQL, of the same shape and size.
--
-- Which task: a pool of runs seeded by bench.seed_runs(tag => :pool_tag, first_ms => :pool_ms,
-- count => :pool_runs, with tasks); a random run and a random one of its 50 tasks each time.
--
-- Run with -M prepared and:
--   -D team=<team uuid> -D key_tag=<tag> -D nkeys=<keys> -D limit=<rate limit>
--   -D pool_tag=<tag> -D pool_ms=<first ms> -D pool_runs=<runs> -D ctag=<first id tag> -D i=0

\set r random(0, :pool_runs - 1)
\set task_n random(1, 50)
\set run_ms :pool_ms + :r
\set id_tag :ctag + :client_id
\set i :i + 1
\set one 1

-- @admission: bench/sql/admission.sql, the same statement as the service's (bench/run.sh puts it here)

SELECT "run_tasks"."assignee"
FROM "run_tasks"
WHERE ((("run_tasks"."team_id" = :team) AND ("run_tasks"."run_id" = bench.uuid(:run_ms, :pool_tag, 0)))
  AND ("run_tasks"."id" = bench.uuid(:run_ms, :pool_tag, :task_n)))
LIMIT :one;

-- BEGIN goes out with both reads, as the service sends them (store/transaction.rs).
\startpipeline

BEGIN;

SELECT "runs"."title" FROM "runs"
WHERE (("runs"."team_id" = :team) AND ("runs"."id" = bench.uuid(:run_ms, :pool_tag, 0)))
LIMIT :one;

SELECT "run_tasks"."team_id", "run_tasks"."run_id", "run_tasks"."id", "run_tasks"."template_task_id",
       "run_tasks"."section_id", "run_tasks"."title", "run_tasks"."position", "run_tasks"."state",
       "run_tasks"."completed_at", "run_tasks"."completed_by", "run_tasks"."assignee",
       "run_tasks"."is_essential", "run_tasks"."task_type", "run_tasks"."due_date",
       "run_tasks"."webhook_enabled", "run_tasks"."decision", "run_tasks"."comment",
       "run_tasks"."custom_elements", "run_tasks"."created_at", "run_tasks"."reference",
       "run_tasks"."depends_on", "run_tasks"."hidden", "run_tasks"."blocked"
FROM "run_tasks"
WHERE ((("run_tasks"."team_id" = :team) AND ("run_tasks"."run_id" = bench.uuid(:run_ms, :pool_tag, 0)))
  AND ("run_tasks"."id" = bench.uuid(:run_ms, :pool_tag, :task_n)))
LIMIT :one FOR SHARE;

\endpipeline

\startpipeline

INSERT INTO "task_comments" ("team_id", "id", "run_id", "task_id", "author", "author_email",
                             "body", "mentions", "deleted", "created_at", "edited_at",
                             "attachment_ids")
VALUES (:team, bench.uuid(bench.ms(clock_timestamp()), :id_tag, 2 * :i),
        bench.uuid(:run_ms, :pool_tag, 0), bench.uuid(:run_ms, :pool_tag, :task_n), 'api', NULL,
        'The contract is attached: please check clause 4 before Monday.', '{}', false, now(),
        NULL, '{}');

INSERT INTO "outbox" ("id", "team_id", "kind", "payload", "occurred_at", "due_at", "webhook_event")
SELECT e.id, :team, 'task.comment_created',
       jsonb_build_object(
           'id', e.id, 'version', 7, 'team_id', CAST(:team AS uuid), 'occurred_at', now(),
           'payload', jsonb_build_object(
               'kind', 'comment_created', 'comment', jsonb_build_object(
                   'id', bench.uuid(bench.ms(clock_timestamp()), :id_tag, 2 * :i),
                   'author', 'api', 'run_id', bench.uuid(:run_ms, :pool_tag, 0),
                   'task_id', bench.uuid(:run_ms, :pool_tag, :task_n), 'author_email', NULL,
                   'text_excerpt', 'The contract is attached: please check clause 4 before Monday.'))),
       now(), now(), 'task.comment_created'
FROM (SELECT bench.uuid(bench.ms(clock_timestamp()), :id_tag, 2 * :i + 1) AS id) AS e;

\endpipeline

COMMIT;
