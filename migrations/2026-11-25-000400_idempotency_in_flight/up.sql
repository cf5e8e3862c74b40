-- Records still without a response, by age: a request whose instance died leaves one, which
-- frees its key after a short lease and is swept then. Small: only requests running now.
CREATE INDEX idempotency_keys_in_flight ON idempotency_keys (created_at)
    WHERE response_status IS NULL;
