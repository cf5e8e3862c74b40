-- Schedules (API contract 13.1): a template's runs started on a recurrence. Keyed by team like
-- every tenant table (docs/scaling.md); no trigger, no cross-team lock: the scheduler finds
-- due schedules with a plain read through `schedules_due` and settles each occurrence with a
-- conditional UPDATE on (team_id, id, next_run_at) in its own transaction.
CREATE TABLE schedules (
    team_id      uuid NOT NULL REFERENCES teams (id),
    id           uuid NOT NULL,
    template_id  uuid NOT NULL,
    name         text,
    -- The recurrence as the client wrote it (DTSTART and RRULE lines) and its IANA zone;
    -- checked by procflow_domain::schedule::Recurrence before it is written.
    recurrence   text NOT NULL,
    timezone     text NOT NULL,
    enabled      boolean NOT NULL,
    -- What each run gets (procflow_domain::schedule::ScheduledRun as JSON).
    run          jsonb NOT NULL,
    next_run_at  timestamptz,
    last_run_at  timestamptz,
    last_run_id  uuid,
    -- {code, message, at} of the latest occurrence that started nothing, or null.
    last_error   jsonb,
    missed_count bigint NOT NULL DEFAULT 0 CHECK (missed_count >= 0),
    -- Bumped by every write, the scheduler's too: an API change applies only to the revision
    -- it read.
    revision     bigint NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    PRIMARY KEY (team_id, id),
    FOREIGN KEY (team_id, template_id) REFERENCES templates (team_id, id)
);

CREATE INDEX schedules_team_template ON schedules (team_id, template_id);

-- The scheduler's scan: only enabled schedules with an occurrence left, by due time, so it
-- does not grow with disabled or finished schedules (nor with past occurrences, which are
-- never rows).
CREATE INDEX schedules_due ON schedules (next_run_at) WHERE enabled AND next_run_at IS NOT NULL;

-- One run per schedule and occurrence, however many instances race over it.
CREATE TABLE schedule_occurrences (
    team_id       uuid NOT NULL,
    schedule_id   uuid NOT NULL,
    occurrence_at timestamptz NOT NULL,
    run_id        uuid NOT NULL,
    PRIMARY KEY (team_id, schedule_id, occurrence_at),
    FOREIGN KEY (team_id, schedule_id) REFERENCES schedules (team_id, id) ON DELETE CASCADE,
    FOREIGN KEY (team_id, run_id) REFERENCES runs (team_id, id)
);
