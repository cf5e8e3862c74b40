-- Two changes of the same round each rewrote the list of email kinds: schedule failures
-- (000220) added `schedule_failed`, then comments (000300) wrote the list again with
-- `task_comment` but without it. Every kind the service sends, once more.
ALTER TABLE emails
    DROP CONSTRAINT emails_kind_check,
    ADD CONSTRAINT emails_kind_check CHECK (kind IN (
        'guest_invitation', 'guest_reminder', 'task_assigned', 'task_overdue', 'task_ready',
        'schedule_failed', 'task_comment'));
