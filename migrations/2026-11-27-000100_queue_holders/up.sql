-- Leases that die with their holder (issue 27). A claim now names the worker process that
-- holds the job (`holder`, chosen at its start); the holder renews the lease (`due_at`) of every
-- job it still has in flight, a few times per lease, in one statement per queue; a killed holder
-- stops renewing, so its jobs are taken over one short lease after its last renewal instead of
-- one long lease after the claim. Rows claimed by an older version have no holder: they are
-- taken over when their lease runs out, as before.
ALTER TABLE webhook_deliveries ADD COLUMN holder uuid;
ALTER TABLE emails ADD COLUMN holder uuid;

-- The renewal and the give-back on shutdown find a holder's jobs in flight: only held rows are
-- in these indexes (at most the workers' concurrency), so renewing costs the same whatever the
-- backlog or the 30 days of ended jobs.
CREATE INDEX webhook_deliveries_held ON webhook_deliveries (holder) WHERE status = 'delivering';
CREATE INDEX emails_held ON emails (holder) WHERE status = 'sending';
