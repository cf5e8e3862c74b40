DELETE FROM emails WHERE kind = 'task_ready';
ALTER TABLE emails
    DROP CONSTRAINT emails_kind_check,
    ADD CONSTRAINT emails_kind_check CHECK (kind IN (
        'guest_invitation', 'guest_reminder', 'task_assigned', 'task_overdue'));

ALTER TABLE run_tasks
    DROP COLUMN blocked,
    DROP COLUMN hidden,
    DROP COLUMN depends_on,
    DROP COLUMN reference;

ALTER TABLE runs
    DROP CONSTRAINT runs_logic_with_state,
    DROP COLUMN logic_state,
    DROP COLUMN logic;

ALTER TABLE template_tasks
    DROP COLUMN depends_on,
    DROP COLUMN reference;

ALTER TABLE templates
    DROP COLUMN rules;
