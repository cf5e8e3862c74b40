-- The function as migration 2026-11-26-000100 made it.
CREATE OR REPLACE FUNCTION outbox_upgrade_version_one() RETURNS bigint LANGUAGE plpgsql AS $$
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
