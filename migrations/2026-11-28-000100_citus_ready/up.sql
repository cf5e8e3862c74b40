-- Citus-ready (issue 25): nothing a distributed table cannot have.
--
-- A request names its team by a token alone in two places (an API key; a share link's token),
-- so the token's digest was unique across teams, which a table distributed by team_id cannot
-- enforce. The directory below holds those digests and the team each one names: a global
-- table (a reference table on Citus, replicated to every node), keyed by (kind, digest) so
-- that its primary key keeps each token unique across all teams. A look-up reads the team
-- here, then the team's own rows on its one shard. Other kinds of token (the code's
-- `TokenKind` lists them) are added by writing rows of a new kind: no change of schema.
--
-- The directory is written in the transaction that writes the token's row. It carries no
-- foreign key (a reference table cannot refer to a distributed one): an entry whose row is
-- gone (a run deleted, sharing turned off) names a team where nothing is found, which answers
-- as an unknown token does; the row on the team's shard is always what decides.
CREATE TABLE token_directory (
    -- 'api_key', 'share_link', ...: the code's TokenKind.
    kind    text NOT NULL,
    -- encode(sha256(token), 'hex').
    digest  text NOT NULL CHECK (digest ~ '^[0-9a-f]{64}$'),
    team_id uuid NOT NULL,
    PRIMARY KEY (kind, digest)
);

INSERT INTO token_directory (kind, digest, team_id)
SELECT 'api_key', encode(key_hash, 'hex'), team_id FROM api_keys;
INSERT INTO token_directory (kind, digest, team_id)
SELECT 'share_link', token_hash, team_id FROM run_share_links;

-- Unique per team now; unique across teams through the directory.
ALTER TABLE api_keys DROP CONSTRAINT api_keys_key_hash_key;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_team_key_hash_key UNIQUE (team_id, key_hash);
DROP INDEX run_share_links_token_hash;
CREATE UNIQUE INDEX run_share_links_team_token_hash ON run_share_links (team_id, token_hash);

-- No triggers on distributed tables: a trigger's NOTIFY would fire on the worker holding the
-- shard, where no instance listens. The store sends `procflow_keys` itself, on the
-- coordinator, after the change commits (store/teams.rs).
DROP TRIGGER teams_subscription_changed ON teams;
DROP FUNCTION procflow_team_changed();
DROP TRIGGER api_keys_revoked ON api_keys;
DROP FUNCTION procflow_key_revoked();
