DROP INDEX outbox_pending_id;
ALTER TABLE outbox DROP CONSTRAINT outbox_pkey;
ALTER TABLE outbox ADD PRIMARY KEY (id);
