DELETE FROM token_directory WHERE kind = 'run_link';
DROP TABLE run_links;
