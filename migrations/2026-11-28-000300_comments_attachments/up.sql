-- Comments on run tasks (API contract 14.1, issue 22). Distributed by team_id like the tasks
-- they belong to: the key and the reference to the task go through team_id; no trigger.
CREATE TABLE task_comments (
    team_id      uuid NOT NULL,
    -- UUIDv7: a thread is in id order.
    id           uuid NOT NULL,
    run_id       uuid NOT NULL,
    task_id      uuid NOT NULL,
    -- A member's user id, 'api' or 'guest' (procflow_domain::actor::Actor).
    author       text NOT NULL,
    -- The author's address when it was written (a member's or the invited guest's).
    author_email text CHECK (author_email = lower(author_email)),
    -- Plain text, never rendered as HTML; empty once deleted.
    body         text NOT NULL CHECK (char_length(body) <= 10000),
    -- The active members it mentions (user ids).
    mentions     uuid[] NOT NULL DEFAULT '{}',
    deleted      boolean NOT NULL DEFAULT false,
    created_at   timestamptz NOT NULL,
    edited_at    timestamptz,
    PRIMARY KEY (team_id, id),
    FOREIGN KEY (team_id, run_id, task_id) REFERENCES run_tasks (team_id, run_id, id),
    CHECK (deleted = (body = ''))
);

-- A task's thread, oldest first.
CREATE INDEX task_comments_thread ON task_comments (team_id, run_id, task_id, id);

-- The email to a task's assignee or a member mentioned when a comment is written.
ALTER TABLE emails
    DROP CONSTRAINT emails_kind_check,
    ADD CONSTRAINT emails_kind_check CHECK (kind IN (
        'guest_invitation', 'guest_reminder', 'task_assigned', 'task_overdue', 'task_ready',
        'task_comment'));
