DROP TABLE rate_windows;
DROP INDEX run_shares_token;
