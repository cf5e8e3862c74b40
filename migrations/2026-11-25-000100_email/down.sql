DROP INDEX run_tasks_overdue;
ALTER TABLE run_tasks DROP COLUMN overdue_next_at;
DROP TABLE emails;
