CREATE FUNCTION procflow_key_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('procflow_keys', encode(NEW.key_hash, 'hex'));
    RETURN NULL;
END $$;

CREATE TRIGGER api_keys_revoked AFTER UPDATE OF revoked_at ON api_keys
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
    EXECUTE FUNCTION procflow_key_revoked();

CREATE FUNCTION procflow_team_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('procflow_keys', '');
    RETURN NULL;
END $$;

CREATE TRIGGER teams_subscription_changed AFTER UPDATE OF subscription ON teams
    FOR EACH ROW WHEN (OLD.subscription IS DISTINCT FROM NEW.subscription)
    EXECUTE FUNCTION procflow_team_changed();

DROP INDEX run_share_links_team_token_hash;
CREATE UNIQUE INDEX run_share_links_token_hash ON run_share_links (token_hash);
ALTER TABLE api_keys DROP CONSTRAINT api_keys_team_key_hash_key;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash);

DROP TABLE token_directory;
