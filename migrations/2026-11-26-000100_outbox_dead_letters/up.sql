-- Outbox events that can never be dispatched (a stored form no reader accepts) are set aside with
-- when and why (`last_error`) instead of being claimed again after every lease, which held up
-- every event behind them. `procflow admin outbox --dead` lists them, `--retry ID` re-queues one.
ALTER TABLE outbox ADD COLUMN dead_at timestamptz;

-- Claims skip events set aside: the index of due events leaves them out.
DROP INDEX outbox_pending;
CREATE INDEX outbox_pending ON outbox (due_at) WHERE delivered_at IS NULL AND dead_at IS NULL;
-- The operators' list, oldest first.
CREATE INDEX outbox_dead ON outbox (dead_at, id) WHERE dead_at IS NOT NULL;

-- Version-1 events (procflow_domain::event's list of shapes) lack fields that only their run and
-- tasks know. Migration 2026-11-24-000100_webhooks filled them in every row it found; an older
-- instance still running during that upgrade could write more. This function fills them the same
-- way (runs and tasks are never deleted) and names them in the event feed; it is run once here,
-- and an operator may run it again before re-queueing an event set aside as version 1.
-- Answers how many rows it changed (a row may count once per group of fields).
CREATE FUNCTION outbox_upgrade_version_one() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    changed bigint := 0;
    n bigint;
BEGIN
    UPDATE outbox o SET payload = jsonb_set(o.payload, '{payload,task_count}',
            to_jsonb((SELECT count(*) FROM run_tasks t
                      WHERE t.team_id = o.team_id
                        AND t.run_id = (o.payload #>> '{payload,run,id}')::uuid)))
        WHERE o.kind = 'process_run.created' AND NOT o.payload->'payload' ? 'task_count';
    GET DIAGNOSTICS n = ROW_COUNT;
    changed := changed + n;
    UPDATE outbox o SET payload = jsonb_set(jsonb_set(o.payload, '{payload,run,due_date}',
            coalesce(to_jsonb(r.due_date), 'null'::jsonb)), '{payload,run,is_shared}',
            to_jsonb(r.is_shared))
        FROM runs r
        WHERE o.kind IN ('process_run.created', 'process_run.completed')
          AND r.team_id = o.team_id AND r.id = (o.payload #>> '{payload,run,id}')::uuid
          AND NOT o.payload->'payload'->'run' ? 'is_shared';
    GET DIAGNOSTICS n = ROW_COUNT;
    changed := changed + n;
    UPDATE outbox o SET payload = jsonb_set(o.payload, '{payload,task,section_id}',
            to_jsonb(t.section_id))
        FROM run_tasks t
        WHERE o.kind IN ('process_step.completed', 'process_step.assigned')
          AND t.team_id = o.team_id
          AND t.run_id = (o.payload #>> '{payload,task,instance_id}')::uuid
          AND t.id = (o.payload #>> '{payload,task,id}')::uuid
          AND NOT o.payload->'payload'->'task' ? 'section_id';
    GET DIAGNOSTICS n = ROW_COUNT;
    changed := changed + n;
    UPDATE outbox SET webhook_event = kind
        WHERE webhook_event IS NULL
          AND (kind IN ('process_run.created', 'process_run.completed')
               OR (kind = 'process_step.completed'
                   AND payload #>> '{payload,task,webhook_enabled}' = 'true'));
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN changed + n;
END
$$;

SELECT outbox_upgrade_version_one();
