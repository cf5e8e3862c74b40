-- What an API key may do (API contract 11): `read` keys call only operations that change
-- nothing; `write` keys (every key made before scopes existed) call everything.
ALTER TABLE api_keys
    ADD COLUMN scope text NOT NULL DEFAULT 'write'
        CONSTRAINT api_keys_scope_check CHECK (scope IN ('read', 'write'));
