-- Run links (API contract 13.2): a template's public start link. One per template; keyed by
-- team like every tenant table, no trigger. `GET /start/<token>` names no team: it finds the
-- team through token_directory (kind 'run_link', the token's digest), then this row on the
-- team's shard by (team_id, token_hash).
CREATE TABLE run_links (
    team_id     uuid NOT NULL,
    template_id uuid NOT NULL,
    -- The token itself: the link is published on purpose (on a website), and turning it on
    -- again must answer the same URL. Only the team's own API shows it; look-ups use the
    -- digest below, never this column.
    token       text NOT NULL,
    -- encode(sha256(token), 'hex'), as token_directory keeps it.
    token_hash  text NOT NULL CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (team_id, template_id),
    FOREIGN KEY (team_id, template_id) REFERENCES templates (team_id, id)
);

-- Unique per team; unique across teams through token_directory.
CREATE UNIQUE INDEX run_links_team_token_hash ON run_links (team_id, token_hash);
