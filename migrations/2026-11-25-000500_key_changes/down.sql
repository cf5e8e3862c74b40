DROP TRIGGER teams_subscription_changed ON teams;
DROP FUNCTION procflow_team_changed();
DROP TRIGGER api_keys_revoked ON api_keys;
DROP FUNCTION procflow_key_revoked();
