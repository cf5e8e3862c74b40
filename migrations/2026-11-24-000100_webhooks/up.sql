-- Outbound webhooks (API contract 8): endpoints, one delivery per (event, endpoint), and the
-- event feed read from the outbox.

CREATE TABLE webhook_endpoints (
    team_id              uuid NOT NULL REFERENCES teams (id),
    id                   uuid NOT NULL,
    url                  text NOT NULL CHECK (char_length(url) <= 2048),
    -- Webhook event names, a non-empty set.
    events               text[] NOT NULL CHECK (cardinality(events) > 0),
    description          text,
    enabled              boolean NOT NULL,
    disabled_reason      text CHECK (disabled_reason IN ('consecutive_failures')),
    consecutive_failures integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
    -- whsec_ + base64: kept readable, since every delivery is signed with it.
    secret               text NOT NULL,
    previous_secret      text,
    previous_secret_until timestamptz,
    created_at           timestamptz NOT NULL,
    updated_at           timestamptz NOT NULL,
    PRIMARY KEY (team_id, id),
    CHECK ((previous_secret IS NULL) = (previous_secret_until IS NULL))
);

-- List order: created_at then id.
CREATE INDEX webhook_endpoints_list ON webhook_endpoints (team_id, created_at, id);

CREATE TABLE webhook_deliveries (
    team_id         uuid NOT NULL,
    -- UUIDv7: newest first is the key read backwards.
    id              uuid NOT NULL,
    webhook_id      uuid NOT NULL,
    event_id        uuid NOT NULL,
    event           text NOT NULL,
    origin          text NOT NULL CHECK (origin IN ('event', 'redelivery', 'test')),
    status          text NOT NULL CHECK (status IN ('pending', 'delivering', 'delivered', 'failed')),
    attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    response_status integer,
    response_body   text,
    error           text,
    -- The envelope's JSON text, byte for byte what is sent.
    payload         text NOT NULL,
    created_at      timestamptz NOT NULL,
    last_attempt_at timestamptz,
    -- Pending: when the next attempt is due; delivering: when the lease runs out.
    due_at          timestamptz NOT NULL,
    lease           uuid,
    PRIMARY KEY (team_id, id),
    FOREIGN KEY (team_id, webhook_id) REFERENCES webhook_endpoints (team_id, id) ON DELETE CASCADE,
    CHECK ((status = 'delivering') = (lease IS NOT NULL))
);

-- Exactly one delivery of an event to an endpoint from the fan-out, however often it runs.
CREATE UNIQUE INDEX webhook_deliveries_fan_out ON webhook_deliveries (team_id, webhook_id, event_id)
    WHERE origin = 'event';
-- What workers claim: only deliveries not done yet, so claiming costs the same however many
-- ended deliveries are kept. The backlog figures and a shutdown's release read it too. Every
-- index here is written by each claim and each outcome (both change the status): keep few.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (due_at)
    WHERE status IN ('pending', 'delivering');
-- An endpoint's log, newest first, with or without a status.
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (team_id, webhook_id, id);
CREATE INDEX webhook_deliveries_log_status ON webhook_deliveries (team_id, webhook_id, status, id);
-- The 30-day sweep.
CREATE INDEX webhook_deliveries_age ON webhook_deliveries (created_at);

-- The event feed: the webhook event an outbox event is (null for the others), written with it.
ALTER TABLE outbox ADD COLUMN webhook_event text;
CREATE INDEX outbox_feed ON outbox (team_id, occurred_at, id) WHERE webhook_event IS NOT NULL;
CREATE INDEX outbox_feed_by_event ON outbox (team_id, webhook_event, occurred_at, id)
    WHERE webhook_event IS NOT NULL;
-- The 30-day sweep of dispatched events.
CREATE INDEX outbox_dispatched_age ON outbox (occurred_at) WHERE delivered_at IS NOT NULL;

-- Events written before: the fields the envelopes need, read from the runs and tasks.
UPDATE outbox o SET payload = jsonb_set(o.payload, '{payload,task_count}',
        to_jsonb((SELECT count(*) FROM run_tasks t
                  WHERE t.team_id = o.team_id AND t.run_id = (o.payload #>> '{payload,run,id}')::uuid)))
    WHERE o.kind = 'process_run.created' AND NOT o.payload->'payload' ? 'task_count';
UPDATE outbox o SET payload = jsonb_set(jsonb_set(o.payload, '{payload,run,due_date}',
        coalesce(to_jsonb(r.due_date), 'null'::jsonb)), '{payload,run,is_shared}', to_jsonb(r.is_shared))
    FROM runs r
    WHERE o.kind IN ('process_run.created', 'process_run.completed')
      AND r.team_id = o.team_id AND r.id = (o.payload #>> '{payload,run,id}')::uuid
      AND NOT o.payload->'payload'->'run' ? 'is_shared';
UPDATE outbox o SET payload = jsonb_set(o.payload, '{payload,task,section_id}', to_jsonb(t.section_id))
    FROM run_tasks t
    WHERE o.kind IN ('process_step.completed', 'process_step.assigned')
      AND t.team_id = o.team_id AND t.run_id = (o.payload #>> '{payload,task,instance_id}')::uuid
      AND t.id = (o.payload #>> '{payload,task,id}')::uuid
      AND NOT o.payload->'payload'->'task' ? 'section_id';
UPDATE outbox SET webhook_event = kind
    WHERE kind IN ('process_run.created', 'process_run.completed')
       OR (kind = 'process_step.completed' AND payload #>> '{payload,task,webhook_enabled}' = 'true');
