-- outbox_upgrade_version_one() (migration 2026-11-26-000100) again, the same fields filled, in
-- a form Citus runs on distributed tables (issue 25): Citus refuses a non-IMMUTABLE function
-- applied to a column in an UPDATE (to_jsonb of a count or a timestamp), so each group's new
-- payloads are made by a SELECT (co-located on team_id, run on each shard) and the UPDATE
-- only copies them in, by (team_id, id), from the arrays the SELECT answered.
CREATE OR REPLACE FUNCTION outbox_upgrade_version_one() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    changed bigint := 0;
    n bigint;
    teams uuid[];
    ids uuid[];
    payloads jsonb[];
BEGIN
    SELECT array_agg(s.team_id), array_agg(s.id), array_agg(s.payload)
      INTO teams, ids, payloads
      FROM (SELECT e.team_id, e.id,
                   jsonb_set(e.payload, '{payload,task_count}', to_jsonb(count(t.id)))
                       AS payload
              FROM outbox e
              LEFT JOIN run_tasks t
                ON t.team_id = e.team_id
               AND t.run_id = (e.payload #>> '{payload,run,id}')::uuid
             WHERE e.kind = 'process_run.created' AND NOT e.payload->'payload' ? 'task_count'
             GROUP BY e.team_id, e.id, e.payload) s;
    UPDATE outbox o SET payload = u.payload
      FROM unnest(teams, ids, payloads) AS u(team_id, id, payload)
     WHERE o.team_id = u.team_id AND o.id = u.id;
    GET DIAGNOSTICS n = ROW_COUNT;
    changed := changed + n;

    SELECT array_agg(e.team_id), array_agg(e.id),
           array_agg(jsonb_set(jsonb_set(e.payload, '{payload,run,due_date}',
               coalesce(to_jsonb(r.due_date), 'null'::jsonb)),
               '{payload,run,is_shared}', to_jsonb(r.is_shared)))
      INTO teams, ids, payloads
      FROM outbox e
      JOIN runs r
        ON r.team_id = e.team_id AND r.id = (e.payload #>> '{payload,run,id}')::uuid
     WHERE e.kind IN ('process_run.created', 'process_run.completed')
       AND NOT e.payload->'payload'->'run' ? 'is_shared';
    UPDATE outbox o SET payload = u.payload
      FROM unnest(teams, ids, payloads) AS u(team_id, id, payload)
     WHERE o.team_id = u.team_id AND o.id = u.id;
    GET DIAGNOSTICS n = ROW_COUNT;
    changed := changed + n;

    SELECT array_agg(e.team_id), array_agg(e.id),
           array_agg(jsonb_set(e.payload, '{payload,task,section_id}', to_jsonb(t.section_id)))
      INTO teams, ids, payloads
      FROM outbox e
      JOIN run_tasks t
        ON t.team_id = e.team_id
       AND t.run_id = (e.payload #>> '{payload,task,instance_id}')::uuid
       AND t.id = (e.payload #>> '{payload,task,id}')::uuid
     WHERE e.kind IN ('process_step.completed', 'process_step.assigned')
       AND NOT e.payload->'payload'->'task' ? 'section_id';
    UPDATE outbox o SET payload = u.payload
      FROM unnest(teams, ids, payloads) AS u(team_id, id, payload)
     WHERE o.team_id = u.team_id AND o.id = u.id;
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
