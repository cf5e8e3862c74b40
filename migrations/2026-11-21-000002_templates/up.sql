-- Templates with their sections and tasks. A task's custom elements are a value of the task
-- (jsonb): always read and written with it, never queried alone.
CREATE TABLE templates (
    team_id      uuid NOT NULL REFERENCES teams (id),
    id           uuid NOT NULL,
    title        text NOT NULL,
    description  text,
    cover_image  text,
    icon         text,
    icon_type    text,
    is_published boolean NOT NULL DEFAULT false,
    version      integer NOT NULL DEFAULT 0 CHECK (version >= 0),
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    archived_at  timestamptz,
    PRIMARY KEY (team_id, id)
);

-- List order: created_at then id, archived templates left out.
CREATE INDEX templates_list ON templates (team_id, created_at, id) WHERE archived_at IS NULL;

CREATE TABLE template_sections (
    team_id     uuid NOT NULL,
    template_id uuid NOT NULL,
    id          uuid NOT NULL,
    title       text NOT NULL,
    description text,
    position    integer NOT NULL CHECK (position >= 0),
    color       text CHECK (color ~ '^#[0-9A-Fa-f]{6}$'),
    PRIMARY KEY (team_id, template_id, id),
    FOREIGN KEY (team_id, template_id) REFERENCES templates (team_id, id) ON DELETE CASCADE
);

CREATE TABLE template_tasks (
    team_id         uuid NOT NULL,
    template_id     uuid NOT NULL,
    id              uuid NOT NULL,
    section_id      uuid NOT NULL,
    title           text NOT NULL,
    position        integer NOT NULL CHECK (position >= 0),
    -- A user id, an email, or 'runner'.
    assignee        text,
    is_essential    boolean NOT NULL,
    task_type       text NOT NULL CHECK (task_type IN ('task', 'approval')),
    -- The due-date rule of the API contract, as JSON.
    due_date        jsonb,
    webhook_enabled boolean NOT NULL,
    custom_elements jsonb NOT NULL,
    created_at      timestamptz NOT NULL,
    PRIMARY KEY (team_id, template_id, id),
    UNIQUE (team_id, template_id, position),
    FOREIGN KEY (team_id, template_id, section_id)
        REFERENCES template_sections (team_id, template_id, id) ON DELETE CASCADE
);
