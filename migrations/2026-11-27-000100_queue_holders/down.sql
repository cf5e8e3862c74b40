DROP INDEX emails_held;
DROP INDEX webhook_deliveries_held;
ALTER TABLE emails DROP COLUMN holder;
ALTER TABLE webhook_deliveries DROP COLUMN holder;
