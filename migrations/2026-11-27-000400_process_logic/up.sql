-- Process logic (API contract 12, issue 19): document-local names and dependencies of tasks,
-- a template's rules, and in runs the frozen plan of those rules and dependencies, its live
-- state, and each task's hidden and blocked flags, written with every change that turns them
-- (lists and the guest page read them without evaluating anything). Element refs live in the
-- elements' jsonb. No new table: every column is on a table distributed by team_id already.

ALTER TABLE templates
    ADD COLUMN rules jsonb NOT NULL DEFAULT '[]';

ALTER TABLE template_tasks
    ADD COLUMN reference text,
    ADD COLUMN depends_on jsonb NOT NULL DEFAULT '[]';

-- `logic` is written once, when the run starts (null for a template without logic);
-- `logic_state` with every change that touches what the plan reads.
ALTER TABLE runs
    ADD COLUMN logic jsonb,
    ADD COLUMN logic_state jsonb,
    ADD CONSTRAINT runs_logic_with_state CHECK ((logic IS NULL) = (logic_state IS NULL));

ALTER TABLE run_tasks
    ADD COLUMN reference text,
    ADD COLUMN depends_on jsonb NOT NULL DEFAULT '[]',
    ADD COLUMN hidden boolean NOT NULL DEFAULT false,
    ADD COLUMN blocked boolean NOT NULL DEFAULT false;

-- The "ready to start" email of a task unblocked.
ALTER TABLE emails
    DROP CONSTRAINT emails_kind_check,
    ADD CONSTRAINT emails_kind_check CHECK (kind IN (
        'guest_invitation', 'guest_reminder', 'task_assigned', 'task_overdue', 'task_ready'));
