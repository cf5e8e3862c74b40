DROP INDEX schedules_due;
CREATE INDEX schedules_due ON schedules (next_run_at) WHERE enabled AND next_run_at IS NOT NULL;
