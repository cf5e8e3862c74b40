DROP FUNCTION outbox_upgrade_version_one();
DROP INDEX outbox_dead;
DROP INDEX outbox_pending;
CREATE INDEX outbox_pending ON outbox (due_at) WHERE delivered_at IS NULL;
ALTER TABLE outbox DROP COLUMN dead_at;
