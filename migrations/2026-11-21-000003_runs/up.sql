-- Runs: frozen copies of a template's sections and tasks.
CREATE TABLE runs (
    team_id          uuid NOT NULL,
    -- UUIDv7: time-ordered, so "newest first" is the primary key read backwards.
    id               uuid NOT NULL,
    template_id      uuid NOT NULL,
    template_version integer NOT NULL,
    title            text NOT NULL,
    status           text NOT NULL CHECK (status IN ('active', 'completed')),
    -- A user id or 'api'.
    started_by       text NOT NULL,
    timezone         text NOT NULL,
    due_date         timestamptz,
    is_shared        boolean NOT NULL DEFAULT false,
    -- Tasks neither completed nor skipped: lets a task update decide completion in O(1).
    open_tasks       integer NOT NULL CHECK (open_tasks >= 0),
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz,
    completed_at     timestamptz,
    PRIMARY KEY (team_id, id),
    FOREIGN KEY (team_id, template_id) REFERENCES templates (team_id, id),
    CHECK ((status = 'completed') = (completed_at IS NOT NULL)),
    CHECK ((status = 'completed') = (open_tasks = 0))
);

-- Filtered lists, newest first.
CREATE INDEX runs_by_template ON runs (team_id, template_id, id);
CREATE INDEX runs_by_status ON runs (team_id, status, id);

CREATE TABLE run_sections (
    team_id     uuid NOT NULL,
    run_id      uuid NOT NULL,
    id          uuid NOT NULL,
    title       text NOT NULL,
    description text,
    position    integer NOT NULL CHECK (position >= 0),
    color       text,
    PRIMARY KEY (team_id, run_id, id),
    FOREIGN KEY (team_id, run_id) REFERENCES runs (team_id, id) ON DELETE CASCADE
);

CREATE TABLE run_tasks (
    team_id          uuid NOT NULL,
    run_id           uuid NOT NULL,
    id               uuid NOT NULL,
    template_task_id uuid NOT NULL,
    section_id       uuid NOT NULL,
    title            text NOT NULL,
    position         integer NOT NULL CHECK (position >= 0),
    state            text NOT NULL CHECK (state IN ('open', 'completed', 'skipped')),
    completed_at     timestamptz,
    -- A user id, 'api' or 'guest'.
    completed_by     text,
    -- A user id or an email.
    assignee         text,
    is_essential     boolean NOT NULL,
    task_type        text NOT NULL CHECK (task_type IN ('task', 'approval')),
    due_date         timestamptz,
    webhook_enabled  boolean NOT NULL,
    decision         text CHECK (decision IN ('approved', 'rejected')),
    comment          text,
    custom_elements  jsonb NOT NULL,
    created_at       timestamptz NOT NULL,
    PRIMARY KEY (team_id, run_id, id),
    UNIQUE (team_id, run_id, position),
    FOREIGN KEY (team_id, run_id) REFERENCES runs (team_id, id) ON DELETE CASCADE,
    FOREIGN KEY (team_id, run_id, section_id) REFERENCES run_sections (team_id, run_id, id),
    CHECK ((state = 'completed') = (completed_at IS NOT NULL AND completed_by IS NOT NULL)),
    CHECK (NOT is_essential OR state <> 'skipped')
);
