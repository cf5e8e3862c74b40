DROP TABLE run_guests;
DROP TABLE run_shares;
