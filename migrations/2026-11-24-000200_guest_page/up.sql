-- A share link names its run by its token: every read of the guest page finds the share by
-- its token (unique: 256 random bits), whichever the team.
CREATE UNIQUE INDEX run_shares_token ON run_shares (token);

-- The guest page's post limits (API contract 7.1): per name (a run, a client address), the
-- posts admitted in the rolling window, oldest first, at most the limit. Rows are locked in
-- name order while a post is decided, so the limits hold across server instances.
CREATE TABLE rate_windows (
    name     text PRIMARY KEY,
    hits     timestamptz[] NOT NULL DEFAULT '{}',
    -- The newest hit (or when the row was made): rows idle for a whole window are swept.
    last_hit timestamptz NOT NULL
);

CREATE INDEX rate_windows_idle ON rate_windows (last_hit);
