DROP TABLE run_tasks;
DROP TABLE run_sections;
DROP TABLE runs;
