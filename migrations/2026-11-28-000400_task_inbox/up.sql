-- The inbox (API contract 15.1): a team's tasks across runs, by due date (none last) then id.
-- The sort key is the due date with "none" as +infinity, so that one ascending index order is
-- the list's order and a keyset cursor is one row comparison; hidden tasks are never listed, so
-- they stay out of the indexes. With an assignee (the common question, "what is open for
-- Ada") the page is a range of the first index; without one, of the second. Either way a page
-- reads about `limit` index entries and joins each to its run by primary key, whatever the
-- number of runs.
CREATE INDEX run_tasks_inbox_by_assignee ON run_tasks
    (team_id, assignee, state, (COALESCE(due_date, 'infinity'::timestamptz)), id)
    WHERE NOT hidden;
CREATE INDEX run_tasks_inbox ON run_tasks
    (team_id, state, (COALESCE(due_date, 'infinity'::timestamptz)), id)
    WHERE NOT hidden;
-- A cursor names a task by its id alone (no run in the URL): finding it is an index lookup.
CREATE INDEX run_tasks_by_id ON run_tasks (team_id, id);
