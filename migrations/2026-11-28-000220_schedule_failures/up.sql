-- A schedule's occurrence that started no run (API contract 13.1) raises one event,
-- `schedule.failed`, which is told by email to each of the team's active admins: the first
-- event whose emails go to several people. An email is now unique per event AND recipient
-- (still led by team_id, as every unique index of a tenant table is), so a repeated fan-out
-- still queues nothing twice.
ALTER TABLE emails
    DROP CONSTRAINT emails_kind_check,
    ADD CONSTRAINT emails_kind_check CHECK (kind IN (
        'guest_invitation', 'guest_reminder', 'task_assigned', 'task_overdue', 'task_ready',
        'schedule_failed'));

CREATE UNIQUE INDEX emails_event_recipient ON emails (team_id, event_id, recipient);
DROP INDEX emails_event;
