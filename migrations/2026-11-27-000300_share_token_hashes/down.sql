-- The tokens themselves are gone: a share gets a new random token, and every link made
-- before is void (invite again to get one).
ALTER TABLE run_shares ADD COLUMN token text;
UPDATE run_shares
   SET token = md5(random()::text || clock_timestamp()::text || run_id::text)
            || md5(random()::text || run_id::text);
ALTER TABLE run_shares ALTER COLUMN token SET NOT NULL;
CREATE UNIQUE INDEX run_shares_token ON run_shares (token);
DROP TABLE run_share_links;
