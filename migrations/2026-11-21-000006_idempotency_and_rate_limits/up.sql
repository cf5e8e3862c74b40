-- Idempotency-Key records (API contract 10): kept 24 hours, per team.
CREATE TABLE idempotency_keys (
    team_id         uuid NOT NULL REFERENCES teams (id),
    key             text NOT NULL,
    -- SHA-256 of method, path and body: the same key with another request is refused.
    request_hash    bytea NOT NULL,
    -- NULL while the first request is in flight.
    response_status integer,
    response_body   bytea,
    created_at      timestamptz NOT NULL,
    completed_at    timestamptz,
    PRIMARY KEY (team_id, key)
);

CREATE INDEX idempotency_keys_expiry ON idempotency_keys (created_at);

-- Rate-limit state (API contract 3): the accepted requests of each key in the rolling window,
-- one row per key, updated in one statement, so the limit holds across server instances.
CREATE TABLE rate_limits (
    team_id    uuid NOT NULL,
    api_key_id uuid NOT NULL,
    hits       timestamptz[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (team_id, api_key_id),
    FOREIGN KEY (team_id, api_key_id) REFERENCES api_keys (team_id, id) ON DELETE CASCADE
);
