-- Emails (API contract 8.4): one per event at most, queued from the outbox beside the webhook
-- deliveries and sent by the same worker under the same kind of lease.
CREATE TABLE emails (
    team_id         uuid NOT NULL REFERENCES teams (id),
    -- UUIDv7.
    id              uuid NOT NULL,
    -- The event it tells of: the Message-ID is derived from it.
    event_id        uuid NOT NULL,
    kind            text NOT NULL
        CHECK (kind IN ('guest_invitation', 'guest_reminder', 'task_assigned', 'task_overdue')),
    recipient       text NOT NULL CHECK (recipient = lower(recipient)),
    -- What the message says (procflow_domain::mail::MailContent), fixed when queued.
    content         jsonb NOT NULL,
    status          text NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
    attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    error           text,
    created_at      timestamptz NOT NULL,
    last_attempt_at timestamptz,
    -- Pending: when the next attempt is due; sending: when the lease runs out.
    due_at          timestamptz NOT NULL,
    lease           uuid,
    PRIMARY KEY (team_id, id),
    CHECK ((status = 'sending') = (lease IS NOT NULL))
);

-- Exactly one email per event, however often the fan-out runs.
CREATE UNIQUE INDEX emails_event ON emails (team_id, event_id);
-- What workers claim: only emails not done yet.
CREATE INDEX emails_due ON emails (due_at) WHERE status IN ('pending', 'sending');
-- The 30-day sweep.
CREATE INDEX emails_age ON emails (created_at);

-- Overdue notices: when the next one is due (null: at the due date). The scheduler reads only
-- open tasks with a due date and an assignee, so its cost follows the open tasks, never the
-- finished runs.
ALTER TABLE run_tasks ADD COLUMN overdue_next_at timestamptz;
CREATE INDEX run_tasks_overdue ON run_tasks (due_date)
    WHERE state = 'open' AND due_date IS NOT NULL AND assignee IS NOT NULL;

-- run_guests.reminded_at (already there, and in the partial index run_guests_due_reminders):
-- when the one reminder was settled: sent, or given up because the run had completed, so that
-- guests of finished runs leave the index.
