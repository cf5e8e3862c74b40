DELETE FROM emails WHERE kind = 'schedule_failed';
ALTER TABLE emails
    DROP CONSTRAINT emails_kind_check,
    ADD CONSTRAINT emails_kind_check CHECK (kind IN (
        'guest_invitation', 'guest_reminder', 'task_assigned', 'task_overdue', 'task_ready',
        'task_comment'));
