-- Every instance remembers the rate-limit refusals of blocked keys, to answer them without a
-- round trip. A revoked key (or a team whose subscription changed) must be answered for what
-- it is at once, by every instance: these triggers tell them, whoever made the change (the
-- admin CLI, another instance, SQL by hand). Both are rare, so the commit serialisation of a
-- notifying transaction costs nothing that matters.
CREATE FUNCTION procflow_key_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('procflow_keys', encode(NEW.key_hash, 'hex'));
    RETURN NULL;
END $$;

CREATE TRIGGER api_keys_revoked AFTER UPDATE OF revoked_at ON api_keys
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
    EXECUTE FUNCTION procflow_key_revoked();

-- An empty payload: forget everything remembered (the keys of the team are not listed).
CREATE FUNCTION procflow_team_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('procflow_keys', '');
    RETURN NULL;
END $$;

CREATE TRIGGER teams_subscription_changed AFTER UPDATE OF subscription ON teams
    FOR EACH ROW WHEN (OLD.subscription IS DISTINCT FROM NEW.subscription)
    EXECUTE FUNCTION procflow_team_changed();
