-- Link sharing: a row exists exactly while a run is shared; its token is the capability.
CREATE TABLE run_shares (
    team_id    uuid NOT NULL,
    run_id     uuid NOT NULL,
    token      text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (team_id, run_id),
    FOREIGN KEY (team_id, run_id) REFERENCES runs (team_id, id) ON DELETE CASCADE
);

-- At most one guest per run (the primary key says so).
CREATE TABLE run_guests (
    team_id          uuid NOT NULL,
    run_id           uuid NOT NULL,
    id               uuid NOT NULL,
    email            text NOT NULL CHECK (email = lower(email)),
    enable_reminders boolean NOT NULL,
    reminder_days    integer NOT NULL CHECK (reminder_days BETWEEN 1 AND 365),
    invited_at       timestamptz NOT NULL,
    engaged_at       timestamptz,
    reminded_at      timestamptz,
    PRIMARY KEY (team_id, run_id),
    UNIQUE (team_id, id),
    FOREIGN KEY (team_id, run_id) REFERENCES run_shares (team_id, run_id) ON DELETE CASCADE
);

-- The reminder sweep: guests to remind who have not engaged yet.
CREATE INDEX run_guests_due_reminders ON run_guests (invited_at)
    WHERE enable_reminders AND engaged_at IS NULL AND reminded_at IS NULL;
