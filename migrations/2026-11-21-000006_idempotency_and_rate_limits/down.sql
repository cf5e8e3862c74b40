DROP TABLE rate_limits;
DROP TABLE idempotency_keys;
