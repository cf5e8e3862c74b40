-- Share links are kept as the SHA-256 of their token, as API keys are (issue "Hard to break,
-- round two"): a copy of the database opens no shared run. The server cannot show a link
-- again, so each invitation (and each email that carries the link) makes one of its own:
-- every link of a run opens it until sharing is turned off, which deletes them all.
CREATE TABLE run_share_links (
    team_id    uuid NOT NULL,
    run_id     uuid NOT NULL,
    -- encode(sha256(token), 'hex'), as procflow_domain::values::ShareToken::digest writes it.
    token_hash text NOT NULL CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (team_id, run_id, token_hash),
    FOREIGN KEY (team_id, run_id) REFERENCES run_shares (team_id, run_id) ON DELETE CASCADE
);

-- A link names its run by its token alone (no team in the URL): found by the digest.
CREATE UNIQUE INDEX run_share_links_token_hash ON run_share_links (token_hash);

-- Existing links keep working: their tokens' digests become the runs' first links.
INSERT INTO run_share_links (team_id, run_id, token_hash, created_at)
SELECT team_id, run_id, encode(sha256(convert_to(token, 'UTF8')), 'hex'), created_at
  FROM run_shares;

DROP INDEX run_shares_token;
ALTER TABLE run_shares DROP COLUMN token;
