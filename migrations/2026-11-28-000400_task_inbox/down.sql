DROP INDEX run_tasks_by_id;
DROP INDEX run_tasks_inbox;
DROP INDEX run_tasks_inbox_by_assignee;
