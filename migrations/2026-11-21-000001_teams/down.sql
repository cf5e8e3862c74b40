DROP TABLE api_keys;
DROP TABLE members;
DROP TABLE teams;
