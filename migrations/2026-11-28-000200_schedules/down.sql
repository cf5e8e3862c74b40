DROP TABLE schedule_occurrences;
DROP TABLE schedules;
