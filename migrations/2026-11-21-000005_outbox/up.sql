-- The transactional outbox: events written in the transaction of the change that raised them,
-- delivered later by workers that lease them (FOR UPDATE SKIP LOCKED).
CREATE TABLE outbox (
    id           uuid PRIMARY KEY,
    team_id      uuid NOT NULL REFERENCES teams (id),
    kind         text NOT NULL,
    payload      jsonb NOT NULL,
    occurred_at  timestamptz NOT NULL,
    due_at       timestamptz NOT NULL,
    attempts     integer NOT NULL DEFAULT 0,
    leased_until timestamptz,
    delivered_at timestamptz,
    last_error   text
);

CREATE INDEX outbox_pending ON outbox (due_at) WHERE delivered_at IS NULL;
CREATE INDEX outbox_team ON outbox (team_id, occurred_at);
