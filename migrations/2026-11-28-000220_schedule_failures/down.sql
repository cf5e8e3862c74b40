DELETE FROM emails WHERE kind = 'schedule_failed';
CREATE UNIQUE INDEX emails_event ON emails (team_id, event_id);
DROP INDEX emails_event_recipient;
ALTER TABLE emails
    DROP CONSTRAINT emails_kind_check,
    ADD CONSTRAINT emails_kind_check CHECK (kind IN (
        'guest_invitation', 'guest_reminder', 'task_assigned', 'task_overdue', 'task_ready'));
