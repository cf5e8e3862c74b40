-- Attachments of run tasks (API contract 14.2, issue 22): the row of a file whose bytes live
-- in the file store under teams/<team_id>/files/<id>. A row is written only after its bytes
-- are stored. Distributed by team_id like the tasks they belong to; no trigger.
CREATE TABLE task_attachments (
    team_id      uuid NOT NULL,
    -- UUIDv7: a task's attachments are listed in id order. Also the storage key's last part.
    id           uuid NOT NULL,
    run_id       uuid NOT NULL,
    task_id      uuid NOT NULL,
    -- For display only, sanitised (no path parts, no control characters), never empty.
    filename     text NOT NULL CHECK (char_length(filename) BETWEEN 1 AND 255),
    content_type text NOT NULL CHECK (char_length(content_type) BETWEEN 1 AND 255),
    size         bigint NOT NULL CHECK (size >= 0),
    -- Hex of the SHA-256 of the bytes.
    sha256       text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    -- As task_comments: a member's user id, 'api' or 'guest'.
    author       text NOT NULL,
    author_email text CHECK (author_email = lower(author_email)),
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (team_id, id),
    FOREIGN KEY (team_id, run_id, task_id) REFERENCES run_tasks (team_id, run_id, id)
);

CREATE INDEX task_attachments_of_task ON task_attachments (team_id, run_id, task_id, id);

-- The attachments a comment shows (API contract 14.1 `attachment_ids`): ids of attachments of
-- the comment's task; one deleted since is no longer shown.
ALTER TABLE task_comments ADD COLUMN attachment_ids uuid[] NOT NULL DEFAULT '{}';
