DROP INDEX outbox_dispatched_age;
DROP INDEX outbox_feed_by_event;
DROP INDEX outbox_feed;
ALTER TABLE outbox DROP COLUMN webhook_event;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
