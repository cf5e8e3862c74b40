-- Every tenant table is keyed by its team first (docs/scaling.md): the property that lets the
-- schema be distributed by team_id (Citus) with every row of a team on one node. The outbox was
-- the one tenant table keyed by its id alone.
ALTER TABLE outbox DROP CONSTRAINT outbox_pkey;
ALTER TABLE outbox ADD PRIMARY KEY (team_id, id);
-- The worker settles claimed events by id: only events not yet delivered, so the index holds
-- just the backlog (a non-unique index is allowed on a distributed table).
CREATE INDEX outbox_pending_id ON outbox (id) WHERE delivered_at IS NULL;
